"""The experiment suite at a scale, each experiment a task: locally on a pool of threads (the
runs release the GIL) or as Ray tasks (``ray.init(address=...)`` first for a cluster; else a
local Ray with ``workers`` CPUs). Each writes its record to ``out/NAME.json``, the form
``zonesim experiment run all --out DIR`` writes; then ``out/scoreboard.md`` is the scoreboard of
the folder (``zonesim experiment scoreboard --from DIR --markdown``).
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor, as_completed
from typing import Iterable, Optional

from . import ConfigError, _zonesim


def _record(name: str, scale: str, seed: int) -> tuple:
    return name, _zonesim.experiment_record(name, scale, seed)


def run_suite(
    out: str,
    scale: str = "paper",
    names: Optional[Iterable[str]] = None,
    backend: str = "local",
    workers: Optional[int] = None,
    seed: int = 1,
    progress: bool = True,
) -> list:
    """Run the experiments ``names`` (default: all) at ``scale``; write one record per
    experiment and the scoreboard into ``out``. Returns the paths written."""
    if backend not in ("local", "ray"):
        raise ConfigError(f"experiments: backend must be 'local' or 'ray' (got {backend!r})")
    all_names = [n for n, _ in _zonesim.experiment_list()]
    names = list(names) if names is not None else all_names
    for n in names:
        if n not in all_names:
            raise ConfigError(f"unknown experiment {n!r}; known: {', '.join(all_names)}")
    os.makedirs(out, exist_ok=True)
    run = _run_local if backend == "local" else _run_ray
    written = []
    for name, text in run(names, scale, seed, workers, progress):
        path = os.path.join(out, f"{name}.json")
        with open(path, "w") as f:
            f.write(text)
        written.append(path)
    if set(names) == set(all_names):
        md = _zonesim.scoreboard(out)[1]
        path = os.path.join(out, "scoreboard.md")
        with open(path, "w") as f:
            f.write(md)
        written.append(path)
    return written


def _bar(total: int, enabled: bool, desc: str):
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, disable=not enabled, leave=False)


def _run_local(names, scale, seed, workers, progress):
    results = []
    with ThreadPoolExecutor(max_workers=workers or os.cpu_count() or 1) as pool:
        futures = [pool.submit(_record, n, scale, seed) for n in names]
        with _bar(len(futures), progress, f"experiments ({scale})") as bar:
            for f in as_completed(futures):
                results.append(f.result())
                bar.update(1)
    return sorted(results)


def _run_ray(names, scale, seed, workers, progress):
    import ray

    if not ray.is_initialized():
        ray.init(
            num_cpus=workers or os.cpu_count() or 1,
            include_dashboard=False,
            log_to_driver=False,
            ignore_reinit_error=True,
        )
    remote = ray.remote(num_cpus=1, max_retries=0)(_record)
    pending = [remote.remote(n, scale, seed) for n in names]
    results = []
    with _bar(len(pending), progress, f"experiments ({scale}, ray)") as bar:
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            for r in done:
                results.append(ray.get(r))
                bar.update(1)
    return sorted(results)
