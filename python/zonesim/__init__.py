"""zonesim: a deterministic, user-space simulator of flash storage, from Python.

The simulation is the Rust library (``crates/zonesim``) behind the native module
``zonesim._zonesim``; this package only turns its results into Python objects and pandas
DataFrames, runs sweeps (``zonesim.sweep``) and plots (``zonesim.plot``). See docs/python.md.

    import zonesim
    dev = zonesim.Device("ufs-conventional", **{"nand.channels": 4})
    r = zonesim.run(dev, workload="examples/mixed.fio", seed=5, interval_ms=10)
    r.jobs(); r.timeseries(); r.latency_cdf("oltp", "read")
"""

from __future__ import annotations

import json
import os
from typing import Any, Iterable, Optional, Union

from . import _zonesim
from ._zonesim import ConfigError, InternalError, MissingFileError

__version__ = _zonesim.__version__
__all__ = [
    "ConfigError",
    "InternalError",
    "MissingFileError",
    "Device",
    "Result",
    "experiment",
    "experiments",
    "presets",
    "run",
    "sweep",
]

#: The request kinds of a report, in its order.
DIRECTIONS = ("read", "write", "trim", "flush", "zone_mgmt")


def presets() -> list[str]:
    """The names of the shipped device presets (``zonesim presets``)."""
    return list(_zonesim.presets())


def _literal(key: str, value: Any) -> str:
    """A Python value as the TOML literal of a ``--set KEY=VALUE`` override."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    raise ConfigError(
        f"config: {key}: a value must be a bool, number or string (got {type(value).__name__})"
    )


def _absolute(path: str) -> str:
    """An existing relative path made absolute (runs may happen in other processes)."""
    return os.path.abspath(path) if os.path.exists(path) else path


class Device:
    """A device: a preset name or a TOML file, then dotted-key overrides.

    ``Device("ufs-conventional", **{"nand.channels": 4, "ftl.gc.victim": "fifo"})``; every
    rule is checked at once and a bad key or value raises :class:`ConfigError` with the
    message of the CLI.
    """

    def __init__(self, preset_or_toml: Union[str, os.PathLike] = "ufs-conventional", **overrides: Any):
        self.spec = _absolute(os.fspath(preset_or_toml))
        self._sets: list[str] = []
        self._config: dict = {}
        self._load([f"{k}={_literal(k, v)}" for k, v in overrides.items()])

    def _load(self, sets: list[str]) -> None:
        self._config = json.loads(_zonesim.device_config(self.spec, sets))
        self._sets = sets

    def set(self, key: str, value: Any) -> "Device":
        """Override one dotted key (``dev.set("ftl.overprovisioning", 0.28)``); checked now."""
        self._load(self._sets + [f"{key}={_literal(key, value)}"])
        return self

    def with_overrides(self, **overrides: Any) -> "Device":
        """A copy of this device with more overrides."""
        d = Device.__new__(Device)
        d.spec = self.spec
        d._load(self._sets + [f"{k}={_literal(k, v)}" for k, v in overrides.items()])
        return d

    @property
    def sets(self) -> list[str]:
        """The overrides as ``KEY=VALUE`` strings (``zonesim run --set`` syntax)."""
        return list(self._sets)

    @property
    def config(self) -> dict:
        """The whole resolved configuration (every key, defaults included)."""
        return json.loads(json.dumps(self._config))

    @property
    def name(self) -> str:
        return self._config["name"]

    def __repr__(self) -> str:
        sets = "".join(f", {s}" for s in self._sets)
        return f"Device({self.spec!r}{sets})"


def _as_device(device: Union[Device, str, None]) -> Device:
    if device is None:
        return Device()
    if isinstance(device, Device):
        return device
    return Device(device)


def _workload_args(workload: Optional[str], trace: Optional[str], scenario: Optional[str] = None) -> dict:
    """A workload given as a path or as fio job-file text; or a trace path; or an aging
    scenario file."""
    given = [n for n, v in (("workload", workload), ("trace", trace), ("scenario", scenario)) if v is not None]
    if len(given) > 1:
        raise ConfigError(f"{' and '.join(given)} exclude each other: give one")
    if scenario is not None:
        return {"scenario": _absolute(os.fspath(scenario))}
    if trace is not None:
        return {"trace": _absolute(os.fspath(trace))}
    if workload is None:
        return {}
    workload = os.fspath(workload)
    # Not a file: job text when it reads as one (a section or an option), so "rw=write" gets
    # the job parser's own error rather than "no such file".
    if not os.path.exists(workload) and any(c in workload for c in "\n[="):
        return {"fio_text": (workload, "<fio text>")}
    return {"workload": _absolute(workload)}


class Result:
    """The outcome of one run: the CLI's JSON report and views of it as DataFrames."""

    def __init__(self, report_json: str, headline: Iterable, cdfs: Iterable):
        self._json = report_json
        self._report = json.loads(report_json)
        #: The headline metrics (IOPS, MiB/s, latency, WAF, GC) as a dict.
        self.headline = dict(headline)
        self._cdfs = {(job, op): points for job, op, points in cdfs}

    def to_dict(self) -> dict:
        """The report, exactly as ``zonesim run --json`` writes it (schema: docs/report.md)."""
        return json.loads(self._json)

    def to_json(self) -> str:
        return self._json

    def jobs(self):
        """One row per job and direction that saw requests: ios, bytes, IOPS, MiB/s, latency."""
        import pandas as pd

        rows = []
        for job in self._report["jobs"]:
            for op in DIRECTIONS:
                o = job[op]
                if o["ios"] == 0 and op not in ("read", "write"):
                    continue
                lat = o["latency_us"]
                rows.append(
                    {
                        "job": job["name"],
                        "namespace": job["namespace"],
                        "op": op,
                        "ios": o["ios"],
                        "bytes": o["bytes"],
                        "iops": o["iops"],
                        "mib_s": o["bandwidth_mib_s"],
                        **{f"lat_{k}_us": v for k, v in lat.items()},
                        "window_ns": job["window_ns"],
                    }
                )
        return pd.DataFrame(rows)

    def iterations(self):
        """An aging scenario's records (``run(scenario=...)``), one row per iteration:
        throughput, free bytes, FS / device / end-to-end WAF and the file system's sample."""
        import pandas as pd

        sc = self._report.get("scenario")
        if sc is None:
            raise ValueError("the report has no scenario: run with scenario=FILE.toml")
        rows = []
        for it in sc["iterations"]:
            row = {k: v for k, v in it.items() if k != "sample"}
            row.update({f"fs_{k}": v for k, v in it.get("sample", {}).items() if not isinstance(v, (dict, list))})
            rows.append(row)
        return pd.DataFrame(rows)

    def timeseries(self):
        """The time series (``stats.interval_ms``), one row per simulated interval."""
        return timeseries_frame(self._report)

    def latency_cdf(self, job: str, op: str = "read"):
        """The latency distribution of one job and direction: ``latency_us`` and ``fraction``
        (of its requests at or below it), from the run's full HDR histogram."""
        import pandas as pd

        if (job, op) not in self._cdfs:
            have = sorted({j for j, _ in self._cdfs})
            raise KeyError(f"no {op} requests for job {job!r} (jobs with requests: {have})")
        pts = self._cdfs[(job, op)]
        return pd.DataFrame(pts, columns=["latency_us", "fraction"])

    def __repr__(self) -> str:
        h = self.headline
        return (
            f"Result(read {h['read_iops']:.0f} IOPS, write {h['write_iops']:.0f} IOPS, "
            f"WAF {h['waf']:.3f})"
        )


def timeseries_frame(report: dict):
    """The ``timeseries`` of a report (a dict) as a DataFrame."""
    import pandas as pd

    ts = report.get("timeseries")
    if ts is None:
        raise ValueError("the report has no time series: run with interval_ms=... (stats.interval_ms)")
    return pd.DataFrame(ts["rows"], columns=ts["columns"])


def run(
    device: Union[Device, str, None] = None,
    workload: Optional[str] = None,
    trace: Optional[str] = None,
    precondition: Optional[str] = "none",
    namespace: Optional[int] = None,
    seed: int = 1,
    progress: bool = False,
    interval_ms: Optional[float] = None,
    as_fast_as_possible: bool = False,
    qd: int = 32,
    time_scale: float = 1.0,
    check_invariants: bool = False,
    scenario: Optional[str] = None,
    power_off_at_request: Optional[int] = None,
    power_off_at_us: Optional[float] = None,
) -> Result:
    """Run one simulation, as ``zonesim run`` does; the GIL is released while it simulates.

    ``workload`` is an fio job file or the text of one; ``trace`` a block trace (replayed at
    its arrival times, or ``as_fast_as_possible`` at ``qd``); ``scenario`` an aging scenario
    file run on the host file system (``zonesim run --scenario``: the device needs ``fs.kind``;
    its records are ``Result.iterations()``). ``namespace`` defaults to the device's
    ``main_namespace`` (1 for the zoned presets). ``interval_ms`` samples the time
    series (``stats.interval_ms``). ``power_off_at_request`` / ``power_off_at_us`` cut power
    during the measured run (``zonesim run --power-off-at-request`` / ``--power-off-at-us``;
    the report's ``power`` section, docs/power.md). Ctrl-C stops the run and raises
    ``KeyboardInterrupt``.
    """
    dev = _as_device(device)
    sets = dev.sets
    if interval_ms is not None:
        sets.append(f"stats.interval_ms={_literal('stats.interval_ms', float(interval_ms))}")
    bar = None
    callback = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(unit=" req", desc="running", leave=False)
        shown = [None]  # the phase the bar shows

        def callback(phase: str, done: int, fraction: Optional[float]) -> None:
            # With a known total (runtime, request or byte budget, trace file size) the bar
            # counts percent of the phase done, with tqdm's rate and ETA; else requests.
            if phase != shown[0]:
                shown[0] = phase
                bar.set_description(phase, refresh=False)
                bar.unit = "%" if fraction is not None else " req"
                bar.reset(total=100 if fraction is not None else None)
            bar.n = round(fraction * 100, 1) if fraction is not None else done
            bar.refresh()

    try:
        report_json, headline, cdfs = _zonesim.run(
            dev.spec,
            sets,
            seed=seed,
            precondition=precondition or "none",
            namespace=namespace,
            as_fast_as_possible=as_fast_as_possible,
            qd=qd,
            time_scale=time_scale,
            check_invariants=check_invariants,
            progress=callback,
            power_off_at_request=power_off_at_request,
            power_off_at_us=power_off_at_us,
            **_workload_args(workload, trace, scenario),
        )
    finally:
        if bar is not None:
            bar.close()
    return Result(report_json, headline, cdfs)


def experiments() -> list[str]:
    """The names of the reproductions of published results (``zonesim experiment list``)."""
    return [name for name, _ in _zonesim.experiment_list()]


def experiment(name: str, quick: bool = False, seed: int = 1, scale: Optional[str] = None):
    """Run one reproduction: its table (ours beside the paper's numbers, with each row's
    registry ``id`` and ``status``) as a DataFrame, with ``title``, ``source``, ``notes`` and
    ``wall_s`` in ``df.attrs``. ``scale`` is ``"quick"``, ``"full"`` (the default) or
    ``"paper"`` (the paper's own scale: the form of record); ``quick=True`` is
    ``scale="quick"``."""
    import pandas as pd

    if scale is None:
        scale = "quick" if quick else "full"
    text, wall_s = _zonesim.experiment(name, scale=scale, seed=seed)
    out = json.loads(text)
    df = pd.DataFrame(out["rows"])
    for k in ("name", "title", "source", "notes"):
        if k in out:
            df.attrs[k] = out[k]
    df.attrs["wall_s"] = wall_s
    return df


def scoreboard(records: Optional[str] = None) -> dict:
    """The scoreboard (``zonesim experiment scoreboard --json``): every seed result with its
    status at the paper's scale, and the totals per paper. ``records`` is a folder of
    paper-scale records (``python -m zonesim experiments --out DIR``); default: the records
    built into the package."""
    return json.loads(_zonesim.scoreboard(None if records is None else os.fspath(records))[0])


from .sweep import sweep  # noqa: E402  (uses run and Device above)
