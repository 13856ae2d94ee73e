"""Parameter sweeps: a grid of device keys run on a local pool of threads or as Ray tasks.

Each point is an ordinary :func:`zonesim.run`; the grid is expanded by the library
(``sim::sweep::points``, the same as ``zonesim sweep SWEEP.toml``) and each row holds the grid
values, the seed and the run's headline metrics (``Report::headline``). A point that fails
keeps its row, with the message in ``error`` and no metrics; the other points are unaffected.
Runs release the GIL, so a local pool of N threads simulates N points at once.
"""

from __future__ import annotations

import math
import os
from concurrent.futures import ThreadPoolExecutor, as_completed
from typing import Any, Iterable, Mapping, Optional, Sequence

from . import _zonesim


def _run_point(spec: str, sets: list, run_kwargs: dict, seed: int) -> dict:
    """One point and seed: its headline metrics, or the error that stopped it."""
    from . import run, Device

    try:
        dev = Device.__new__(Device)
        dev.spec = spec
        dev._load(list(sets))
        r = run(dev, seed=seed, **run_kwargs)
        return {"error": None, **r.headline}
    except Exception as e:  # a point's failure is its row's, never the sweep's
        return {"error": f"{type(e).__name__}: {e}"}


def _tasks(base_sets: list, literal_grid: list, labels: dict, seeds: Iterable[int]):
    """(grid values, overrides, seed) of every point and seed; ``labels`` maps each
    ``KEY=LITERAL`` override to the value shown in its column."""
    seeds = list(seeds)
    tasks = []
    # Points x seeds are counted (and refused over the cap) before any point is made.
    for point_sets in _zonesim.grid_points(literal_grid, len(seeds)):
        values = {s.split("=", 1)[0]: labels[s] for s in point_sets}
        for seed in seeds:
            tasks.append((values, base_sets + point_sets, seed))
    return tasks


def _progress_bar(total: int, enabled: bool, desc: str):
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, unit=" run", disable=not enabled)


def sweep(
    device=None,
    grid: Optional[Mapping[str, Sequence[Any]]] = None,
    workload: Optional[str] = None,
    trace: Optional[str] = None,
    seeds: Iterable[int] = (1,),
    backend: str = "local",
    workers: Optional[int] = None,
    progress: bool = True,
    **run_kwargs: Any,
):
    """Run every combination of ``grid`` (dotted device key -> values) for every seed.

    Returns a DataFrame, one row per point and seed: the grid columns, ``seed``, the headline
    metrics and ``error`` (None, or why that point failed). ``backend="local"`` runs ``workers``
    points at once in this process (default: the CPU count); ``backend="ray"`` runs each point
    as a Ray task (``ray.init(address=...)`` first for a cluster; otherwise a local Ray with
    ``workers`` CPUs is started). Other keyword arguments go to :func:`zonesim.run`.
    """
    from . import _as_device, _literal

    from . import ConfigError

    dev = _as_device(device)
    grid = dict(grid or {})
    for k, values in grid.items():
        # A string is a sequence of characters, not a list of values: refuse it by name.
        if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
            raise ConfigError(f"sweep: grid[{k!r}] must be a list of values (got {values!r})")
        grid[k] = list(values)
        if not grid[k]:
            raise ConfigError(f"sweep: grid[{k!r}] must not be empty")
    if isinstance(seeds, (str, bytes)) or not isinstance(seeds, Iterable):
        raise ConfigError(f"sweep: seeds must be a list of integers (got {seeds!r})")
    seeds = list(seeds)
    if not seeds:
        raise ConfigError("sweep: seeds must not be empty")
    for s in seeds:
        if isinstance(s, bool) or not isinstance(s, int) or not 0 <= s < 2**64:
            raise ConfigError(f"sweep: seeds must be integers in 0..2**64-1 (got {s!r})")
    literal_grid = [(k, [_literal(k, v) for v in values]) for k, values in grid.items()]
    labels = {f"{k}={_literal(k, v)}": v for k, values in grid.items() for v in values}
    tasks = _tasks(dev.sets, literal_grid, labels, seeds)
    return _sweep(dev.spec, tasks, workload, trace, backend, workers, progress, run_kwargs)


def sweep_file(path: str, backend: str = "local", workers: Optional[int] = None, progress: bool = True):
    """Run a sweep file (the ``zonesim sweep SWEEP.toml`` format, read by the library)."""
    import json

    spec = json.loads(_zonesim.sweep_file(os.fspath(path)))
    spec["grid"] = [(key, literals) for key, literals in spec["grid"]]
    labels = {}
    for key, literals in spec["grid"]:
        for lit in literals:
            labels[f"{key}={lit}"] = _label(lit)
    tasks = _tasks(spec["sets"], spec["grid"], labels, spec["seeds"])
    kwargs = {"precondition": spec["precondition"], "namespace": spec["namespace"]}
    return _sweep(spec["device"], tasks, spec["workload"], None, backend, workers, progress, kwargs)


def _label(literal: str):
    """The value a TOML literal of a sweep file stands for (numbers, bools, basic strings)."""
    import json

    try:
        return json.loads(literal)
    except ValueError:
        return literal


def _refuse_logs(workload):
    """A job with fio's logs (write_lat_log, ...) is refused, as ``zonesim sweep`` refuses it
    (the library's check): every point of the sweep would write the same log files at once."""
    if workload is None:
        return
    text, origin = workload, "workload"
    if os.path.isfile(workload):
        with open(workload, encoding="utf-8", errors="replace") as f:
            text, origin = f.read(), workload
    _zonesim.refuse_fio_logs(text, origin)


def _sweep(spec, tasks, workload, trace, backend, workers, progress, run_kwargs):
    import pandas as pd

    from . import ConfigError, _absolute

    _refuse_logs(workload)
    if backend not in ("local", "ray"):
        raise ConfigError(f"sweep: backend must be 'local' or 'ray' (got {backend!r})")
    if workers is not None and workers < 1:
        raise ConfigError(f"sweep: workers must be at least 1 (got {workers})")
    # Absolute paths: Ray workers may run elsewhere.
    kwargs = dict(run_kwargs)
    kwargs["workload"] = None if workload is None else _absolute(os.fspath(workload))
    kwargs["trace"] = None if trace is None else _absolute(os.fspath(trace))
    run = _run_local if backend == "local" else _run_ray
    results = run(spec, tasks, kwargs, workers, progress)
    rows = [{**values, "seed": seed, **res} for (values, _, seed), res in zip(tasks, results)]
    df = _nan_if_missing(pd.DataFrame(rows))
    cols = [c for c in df.columns if c != "error"] + ["error"]
    return df[cols]


def _run_local(spec, tasks, kwargs, workers, progress):
    workers = workers or os.cpu_count() or 1
    results: list = [None] * len(tasks)
    with _progress_bar(len(tasks), progress, "sweep") as bar:
        with ThreadPoolExecutor(max_workers=workers) as pool:
            futures = {
                pool.submit(_run_point, spec, sets, kwargs, seed): i
                for i, (_, sets, seed) in enumerate(tasks)
            }
            try:
                for f in as_completed(futures):
                    results[futures[f]] = f.result()
                    bar.update(1)
            except BaseException:
                for f in futures:
                    f.cancel()
                raise
    return results


def _run_ray(spec, tasks, kwargs, workers, progress):
    import ray

    if not ray.is_initialized():
        ray.init(
            num_cpus=workers or os.cpu_count() or 1,
            include_dashboard=False,
            log_to_driver=False,
            ignore_reinit_error=True,
        )
    remote = ray.remote(num_cpus=1, max_retries=0)(_run_point)
    refs = [remote.remote(spec, sets, kwargs, seed) for (_, sets, seed) in tasks]
    index = {r: i for i, r in enumerate(refs)}
    results: list = [None] * len(tasks)
    pending = list(refs)
    with _progress_bar(len(tasks), progress, "sweep (ray)") as bar:
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            for r in done:
                try:
                    results[index[r]] = ray.get(r)
                except Exception as e:  # the task itself died (worker lost)
                    results[index[r]] = {"error": f"{type(e).__name__}: {e}"}
                bar.update(1)
    return results


def headline_columns() -> list:
    """The metric columns of a sweep (the library's ``Report::headline``)."""
    return list(_zonesim.headline_names())


def _nan_if_missing(df):
    for c in headline_columns():
        if c in df.columns:
            df[c] = df[c].astype(float)
        else:
            df[c] = math.nan
    return df
