"""``python -m zonesim``: plots from a CLI report and sweeps from a sweep file.

    python -m zonesim plot report.json --out DIR [--format png --format svg]
    python -m zonesim sweep SWEEP.toml --out results.csv|.parquet [--workers N] [--backend ray]
    python -m zonesim experiments --scale paper --out DIR [--backend ray] [--workers N] [NAME ...]

Bad input prints one line and exits 2, as the ``zonesim`` CLI does.
"""

from __future__ import annotations

import argparse
import json
import sys
import time


def _plot(a) -> int:
    from . import plot

    try:
        with open(a.report) as f:
            report = json.load(f)
    except (OSError, ValueError) as e:
        print(f"zonesim: {a.report}: {e}", file=sys.stderr)
        return 2
    for p in plot.report_figures(report, a.out, formats=a.format or ["png"]):
        print(p)
    return 0


def _sweep(a) -> int:
    from . import ConfigError
    from .sweep import sweep_file

    if a.out.endswith(".parquet"):
        # Checked before the sweep runs, so its results are not lost at the end.
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            print(
                f"zonesim: --out {a.out}: writing parquet needs pyarrow (pip install pyarrow); "
                "or write .csv",
                file=sys.stderr,
            )
            return 2
    try:
        df = sweep_file(a.file, backend=a.backend, workers=a.workers, progress=sys.stderr.isatty())
    except ConfigError as e:
        print(f"zonesim: {e}", file=sys.stderr)
        return 2
    if a.out.endswith(".parquet"):
        df.to_parquet(a.out)
    else:
        df.to_csv(a.out, index=False)
    failed = int(df["error"].notna().sum())
    print(f"{len(df)} rows ({failed} failed) -> {a.out}")
    return 1 if failed else 0


def _experiments(a) -> int:
    from . import ConfigError
    from .suite import run_suite

    t0 = time.monotonic()
    try:
        paths = run_suite(
            a.out,
            scale=a.scale,
            names=a.names or None,
            backend=a.backend,
            workers=a.workers,
            seed=a.seed,
            progress=sys.stderr.isatty(),
        )
    except ConfigError as e:
        print(f"zonesim: {e}", file=sys.stderr)
        return 2
    for p in paths:
        print(p)
    # The wall-time summary: each experiment's own run time (its record) and the suite's.
    each = []
    for p in paths:
        if p.endswith(".json"):
            with open(p) as f:
                r = json.load(f)
            each.append(f"{r['outcome']['name']} {r['wall_s']:.1f} s")
    print(
        f"wall time ({a.scale} scale, {len(each)} experiments, {a.backend}): "
        f"{', '.join(each)}; total {time.monotonic() - t0:.1f} s"
    )
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m zonesim")
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("plot", help="figures of a `zonesim run --json` report")
    p.add_argument("report")
    p.add_argument("--out", required=True, help="folder for the figures")
    p.add_argument("--format", action="append", choices=["png", "svg", "pdf"])
    s = sub.add_parser("sweep", help="run a sweep file (grid in TOML)")
    s.add_argument("file")
    s.add_argument("--out", required=True, help="results.csv or results.parquet")
    s.add_argument("--workers", type=int, default=None)
    s.add_argument("--backend", choices=["local", "ray"], default="local")
    e = sub.add_parser("experiments", help="the experiment suite at a scale, as local or Ray tasks")
    e.add_argument("names", nargs="*", help="experiments (default: all)")
    e.add_argument("--scale", choices=["quick", "full", "paper"], default="paper")
    e.add_argument("--out", default="results/paper", help="folder of the records")
    e.add_argument("--workers", type=int, default=None)
    e.add_argument("--backend", choices=["local", "ray"], default="local")
    e.add_argument("--seed", type=int, default=1)
    a = ap.parse_args(argv)
    return {"plot": _plot, "sweep": _sweep, "experiments": _experiments}[a.cmd](a)


if __name__ == "__main__":
    sys.exit(main())
