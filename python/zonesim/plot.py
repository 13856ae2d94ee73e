"""Plots of zonesim results (matplotlib): throughput and latency over time, latency CDFs per
job, WAF and GC bars across configurations, a sweep heat map.

Every function takes what it plots (a :class:`zonesim.Result`, a report dict as written by
``zonesim run --json``, or a sweep DataFrame) and an optional matplotlib ``ax``; it returns the
``Axes``. :func:`report_figures` writes the figures of one report to files
(``python -m zonesim plot report.json --out DIR``).
"""

from __future__ import annotations

import os
from typing import Optional, Sequence

import matplotlib

if not os.environ.get("DISPLAY") and os.environ.get("MPLBACKEND") is None:
    matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from . import DIRECTIONS, Result, timeseries_frame  # noqa: E402

_COLORS = {"read": "#1f77b4", "write": "#d62728", "trim": "#7f7f7f", "flush": "#2ca02c", "zone_mgmt": "#9467bd"}


def _report(x) -> dict:
    return x.to_dict() if isinstance(x, Result) else x


def _ax(ax):
    if ax is None:
        _, ax = plt.subplots(figsize=(7, 3.6), constrained_layout=True)
    return ax


def throughput(result, ax=None, unit: str = "mib_s"):
    """Read and write throughput per interval (``unit``: ``mib_s`` or ``iops``)."""
    ts = timeseries_frame(_report(result))
    ax = _ax(ax)
    t = ts["t_ms"] / 1000.0
    for d in ("read", "write"):
        col = f"{d}_{unit}"
        if ts[col].any():
            ax.plot(t, ts[col], label=d, color=_COLORS[d], lw=1.4)
    ax.set_xlabel("simulated time (s)")
    ax.set_ylabel("MiB/s" if unit == "mib_s" else "IOPS")
    ax.set_title("Throughput over time")
    ax.grid(alpha=0.3)
    ax.legend(frameon=False)
    ax.set_ylim(bottom=0)
    return ax


def latency(result, ax=None):
    """Mean and p99 latency per interval, per direction (log scale)."""
    ts = timeseries_frame(_report(result))
    ax = _ax(ax)
    t = ts["t_ms"] / 1000.0
    for d in ("read", "write"):
        if not ts[f"{d}_iops"].any():
            continue
        busy = ts[f"{d}_iops"] > 0
        ax.plot(t[busy], ts[f"{d}_lat_p99_us"][busy], color=_COLORS[d], lw=1.4, label=f"{d} p99")
        ax.plot(t[busy], ts[f"{d}_lat_mean_us"][busy], color=_COLORS[d], lw=1, ls="--", label=f"{d} mean")
    ax.set_yscale("log")
    ax.set_xlabel("simulated time (s)")
    ax.set_ylabel("latency (µs)")
    ax.set_title("Latency over time")
    ax.grid(alpha=0.3, which="both")
    ax.legend(frameon=False, ncol=2)
    return ax


def device_state(result, ax=None):
    """Cumulative WAF and free superblocks over time (the device's columns)."""
    ts = timeseries_frame(_report(result))
    ax = _ax(ax)
    t = ts["t_ms"] / 1000.0
    ax.plot(t, ts["waf"], color="black", lw=1.4, label="WAF (cumulative)")
    ax.set_xlabel("simulated time (s)")
    ax.set_ylabel("WAF")
    ax2 = ax.twinx()
    ax2.plot(t, ts["free_superblocks"], color="#ff7f0e", lw=1.2, label="free superblocks")
    ax2.set_ylabel("free superblocks")
    ax.set_title("Device state over time")
    lines = ax.get_lines() + ax2.get_lines()
    ax.legend(lines, [l.get_label() for l in lines], frameon=False, loc="lower right")
    ax.grid(alpha=0.3)
    return ax


def _percentile_steps(op: dict):
    """The CDF points a JSON report has: its percentiles (min, p50, p99, p99.9, max)."""
    lat = op["latency_us"]
    return [lat["min"], lat["p50"], lat["p99"], lat["p999"], lat["max"]], [0.0, 0.5, 0.99, 0.999, 1.0]


def latency_cdfs(result, ax=None, ops: Sequence[str] = ("read", "write")):
    """Latency CDF of every job and direction, tail-emphasised (y: 1 - fraction, log).

    A :class:`Result` has the full histogram; a report dict only its percentiles, drawn as
    points joined by lines (and labelled so)."""
    ax = _ax(ax)
    full = isinstance(result, Result)
    rep = _report(result)
    for job in rep["jobs"]:
        for op in ops:
            if job[op]["ios"] == 0:
                continue
            if full:
                cdf = result.latency_cdf(job["name"], op)
                x, y = cdf["latency_us"], cdf["fraction"]
            else:
                x, y = _percentile_steps(job[op])
            tail = [max(1.0 - f, 1e-5) for f in y]
            ax.plot(x, tail, marker=None if full else "o", lw=1.3, label=f"{job['name']} {op}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.invert_yaxis()
    ax.set_yticks([1, 0.1, 0.01, 0.001, 0.0001])
    ax.set_yticklabels(["0", "90%", "99%", "99.9%", "99.99%"])
    ax.set_xlabel("latency (µs)")
    ax.set_ylabel("percentile")
    ax.set_title("Latency CDF per job" + ("" if full else " (report percentiles)"))
    ax.grid(alpha=0.3, which="both")
    ax.legend(frameon=False, fontsize=8)
    return ax


def waf_gc_bars(df, by: Optional[Sequence[str]] = None, ax=None):
    """WAF (bars) and GC pages moved (hatched bars, right axis) per configuration of a sweep
    DataFrame, averaged over seeds; ``by`` are the columns naming a configuration (default:
    the grid columns)."""
    from .sweep import headline_columns

    ok = df[df["error"].isna()] if "error" in df.columns else df
    by = list(by or [c for c in df.columns if c not in headline_columns() + ["seed", "error"]])
    g = ok.groupby(by, sort=False)[["waf", "gc_pages_moved"]].mean().reset_index()
    labels = [" / ".join(str(r[k]) for k in by) for _, r in g.iterrows()]
    ax = _ax(ax)
    xs = range(len(g))
    w = 0.4
    ax.bar([x - w / 2 for x in xs], g["waf"], width=w, color="#1f77b4", label="WAF")
    ax.set_ylabel("WAF")
    ax2 = ax.twinx()
    ax2.bar([x + w / 2 for x in xs], g["gc_pages_moved"], width=w, color="#ff7f0e", hatch="//", label="GC pages moved")
    ax2.set_ylabel("GC pages moved")
    ax.set_xticks(list(xs))
    ax.set_xticklabels(labels, rotation=30, ha="right", fontsize=8)
    ax.set_xlabel(" / ".join(k.split(".")[-1] for k in by))
    ax.set_title("Write amplification and GC per configuration")
    handles = ax.patches[:1] + ax2.patches[:1]
    ax.legend(handles, ["WAF", "GC pages moved"], frameon=False)
    return ax


def heatmap(df, x: str, y: str, value: str = "waf", ax=None, fmt: str = "{:.2f}"):
    """A sweep as a heat map: ``value`` (mean over seeds) for each (``x``, ``y``) pair."""
    ok = df[df["error"].isna()] if "error" in df.columns else df
    piv = ok.pivot_table(index=y, columns=x, values=value, aggfunc="mean", sort=False)
    ax = _ax(ax)
    im = ax.imshow(piv.values, cmap="viridis", aspect="auto", origin="lower")
    ax.set_xticks(range(len(piv.columns)))
    ax.set_xticklabels([str(c) for c in piv.columns])
    ax.set_yticks(range(len(piv.index)))
    ax.set_yticklabels([str(i) for i in piv.index])
    ax.set_xlabel(x)
    ax.set_ylabel(y)
    vmax = piv.values.max() if piv.size else 0
    for i in range(piv.shape[0]):
        for j in range(piv.shape[1]):
            v = piv.values[i, j]
            ax.text(j, i, fmt.format(v), ha="center", va="center", fontsize=9,
                    color="white" if v < 0.6 * vmax else "black")
    ax.figure.colorbar(im, ax=ax, label=value)
    ax.set_title(f"{value} by {x.split('.')[-1]} × {y.split('.')[-1]}")
    return ax


def report_figures(report, out_dir: str, formats: Sequence[str] = ("png",)) -> list:
    """Write the figures of one report (a Result, a dict, or a JSON file's path) into
    ``out_dir``: the latency CDFs always; throughput, latency and device state over time when
    the report has a time series. Returns the paths written."""
    import json

    if isinstance(report, (str, os.PathLike)):
        with open(report) as f:
            report = json.load(f)
    os.makedirs(out_dir, exist_ok=True)
    figs = [("latency_cdf", latency_cdfs)]
    if _report(report).get("timeseries") is not None:
        figs += [("throughput", throughput), ("latency", latency), ("device_state", device_state)]
    paths = []
    for name, fn in figs:
        ax = fn(report)
        for fmt in formats:
            p = os.path.join(out_dir, f"{name}.{fmt}")
            ax.figure.savefig(p, dpi=120)
            paths.append(p)
        plt.close(ax.figure)
    return paths
