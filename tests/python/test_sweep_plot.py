"""Sweeps (local and Ray, failures kept, the CLI's sweep) and plots."""

import os
import subprocess
import sys

import pandas as pd
import pytest

import zonesim
import zonesim.plot
from conftest import ROOT

GRID = {"ftl.overprovisioning": [0.07, 0.28], "ftl.gc.victim": ["greedy", "fifo"]}


def test_local_sweep_rows_and_failures_kept(job):
    grid = {"ftl.overprovisioning": [0.07, 0.28, 9.0], "ftl.gc.victim": ["greedy", "fifo"]}
    df = zonesim.sweep(zonesim.Device(), grid=grid, workload=job, seeds=[1, 2], workers=2, progress=False)
    assert len(df) == 12
    assert list(df.columns[:3]) == ["ftl.overprovisioning", "ftl.gc.victim", "seed"]
    bad = df[df["ftl.overprovisioning"] == 9.0]
    assert len(bad) == 4 and bad["error"].str.contains("ftl.overprovisioning").all()
    assert bad["waf"].isna().all()
    good = df[df["error"].isna()]
    assert len(good) == 8 and (good["read_iops"] > 0).all()
    # Each row is the same as a single run of its point.
    row = good.iloc[0]
    one = zonesim.run(zonesim.Device(**{"ftl.overprovisioning": 0.07, "ftl.gc.victim": "greedy"}), workload=job, seed=1)
    assert row["waf"] == one.headline["waf"] and row["read_p99_us"] == one.headline["read_p99_us"]


def test_one_worker_and_two_give_the_same_rows(job):
    a = zonesim.sweep(grid=GRID, workload=job, workers=1, progress=False)
    b = zonesim.sweep(grid=GRID, workload=job, workers=2, progress=False)
    pd.testing.assert_frame_equal(a.drop(columns="error"), b.drop(columns="error"))


def test_ray_sweep_equals_local(job):
    ray = pytest.importorskip("ray")
    # 54 points: 9 OP values x 3 victim policies x 2 seeds, small runs.
    grid = {
        "ftl.overprovisioning": [0.07, 0.1, 0.12, 0.14, 0.18, 0.2, 0.22, 0.25, 0.28],
        "ftl.gc.victim": ["greedy", "fifo", "cost_benefit"],
    }
    text = "[w]\nrw=randrw\nbs=4k\niodepth=4\nnumber_ios=400\n"
    try:
        remote = zonesim.sweep(grid=grid, workload=text, seeds=[1, 2], backend="ray", workers=2, progress=False)
    finally:
        ray.shutdown()
    local = zonesim.sweep(grid=grid, workload=text, seeds=[1, 2], workers=2, progress=False)
    assert len(remote) == 54
    assert remote["error"].isna().all(), remote["error"].dropna().tolist()
    pd.testing.assert_frame_equal(remote.drop(columns="error"), local.drop(columns="error"))


def test_cli_sweep_file_equals_python(cli, tmp_path, job):
    f = tmp_path / "s.toml"
    f.write_text(
        f'workload = "{job}"\nseeds = [1, 3]\n[set]\n"nand.channels" = 4\n'
        '[grid]\n"ftl.gc.victim" = ["greedy", "fifo"]\n"ftl.overprovisioning" = [0.07, 0.28]\n'
    )
    out = tmp_path / "r.csv"
    p = subprocess.run([cli, "sweep", str(f), "--out", str(out), "--workers", "2"], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    rust = pd.read_csv(out)
    py = zonesim.sweep(zonesim.Device(**{"nand.channels": 4}), grid={"ftl.gc.victim": ["greedy", "fifo"], "ftl.overprovisioning": [0.07, 0.28]},
                       workload=job, seeds=[1, 3], progress=False)
    assert list(rust.columns) == list(py.columns)
    pd.testing.assert_frame_equal(rust.drop(columns="error"), py.drop(columns="error"), check_dtype=False)
    out2 = tmp_path / "p.csv"
    p = subprocess.run([sys.executable, "-m", "zonesim", "sweep", str(f), "--out", str(out2), "--workers", "2"],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    pd.testing.assert_frame_equal(pd.read_csv(out2), rust, check_dtype=False)
    f.write_text('[grid]\n"ftl.gc.victim" = "greedy"\n')
    p = subprocess.run([cli, "sweep", str(f), "--out", str(out)], capture_output=True, text=True)
    assert p.returncode == 2 and "grid.ftl.gc.victim" in p.stderr


def test_plots_write_files(tmp_path, job, cli):
    r = zonesim.run(workload=job, interval_ms=2)
    paths = zonesim.plot.report_figures(r, str(tmp_path / "a"), formats=("png", "svg"))
    assert len(paths) == 8 and all(os.path.getsize(p) > 1000 for p in paths)
    df = zonesim.sweep(grid=GRID, workload=job, workers=2, progress=False)
    ax = zonesim.plot.waf_gc_bars(df)
    ax.figure.savefig(tmp_path / "bars.png")
    ax = zonesim.plot.heatmap(df, "ftl.overprovisioning", "ftl.gc.victim", "read_p99_us")
    ax.figure.savefig(tmp_path / "heat.png")
    assert (tmp_path / "bars.png").stat().st_size > 1000 and (tmp_path / "heat.png").stat().st_size > 1000
    # From a CLI report, on the command line.
    rep = tmp_path / "report.json"
    subprocess.run([cli, "run", "--workload", job, "--interval-ms", "2", "--json", str(rep)], check=True, capture_output=True)
    out = tmp_path / "figs"
    p = subprocess.run([sys.executable, "-m", "zonesim", "plot", str(rep), "--out", str(out)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert sorted(os.listdir(out)) == ["device_state.png", "latency.png", "latency_cdf.png", "throughput.png"]


def test_parquet_without_pyarrow_fails_before_the_sweep(tmp_path, job):
    try:
        import pyarrow  # noqa: F401

        pytest.skip("pyarrow is installed")
    except ImportError:
        pass
    f = tmp_path / "s.toml"
    f.write_text(f'workload = "{job}"\n[grid]\n"ftl.gc.victim" = ["greedy"]\n')
    p = subprocess.run([sys.executable, "-m", "zonesim", "sweep", str(f), "--out", str(tmp_path / "r.parquet")],
                       capture_output=True, text=True)
    assert p.returncode == 2 and "pyarrow" in p.stderr and "rows" not in p.stdout, (p.stdout, p.stderr)


def test_sweep_refuses_bad_arguments_by_name(job):
    dev = zonesim.Device()
    cases = [
        ({"grid": {"ftl.gc.victim": "greedy"}}, "grid['ftl.gc.victim'] must be a list"),
        ({"grid": {"ftl.gc.victim": []}}, "grid['ftl.gc.victim'] must not be empty"),
        ({"grid": GRID, "seeds": []}, "seeds must not be empty"),
        ({"grid": GRID, "seeds": [-1]}, "seeds must be integers"),
        ({"grid": {f"k{i}": [1, 2, 3, 4] for i in range(32)}}, "more than 1000000 runs"),
    ]
    for kwargs, needle in cases:
        with pytest.raises(ValueError, match=needle.replace("[", r"\[").replace("]", r"\]")):
            zonesim.sweep(dev, workload=job, progress=False, **kwargs)


def test_a_job_with_fio_logs_is_refused_before_the_sweep(tmp_path):
    job = tmp_path / "logs.fio"
    job.write_text("[w]\nrw=randwrite\nbs=4k\nnumber_ios=100\nwrite_lat_log=w\n")
    with pytest.raises(zonesim.ConfigError, match="write_lat_log"):
        zonesim.sweep(grid=GRID, workload=str(job), progress=False)
    assert not list(tmp_path.glob("w_*.log"))
