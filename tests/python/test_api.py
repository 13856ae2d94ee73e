"""The Python API against the CLI: same reports, same errors, DataFrames, Ctrl-C."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest

import zonesim
from conftest import JOB, ROOT


def strip_wall(x):
    """A report without its wall-clock fields and its provenance (the same run asked for by
    the CLI and by Python differs in its command line and in how the workload was given)."""
    if isinstance(x, dict):
        return {
            k: strip_wall(v)
            for k, v in x.items()
            if k not in ("wall_s", "measure_wall_s", "requests_per_wall_s", "provenance")
        }
    if isinstance(x, list):
        return [strip_wall(v) for v in x]
    return x


def cli_json(cli, *args):
    out = subprocess.run([cli, "run", "--json-stdout", *args], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def cli_error(cli, *args):
    out = subprocess.run([cli, "run", *args], capture_output=True, text=True)
    assert out.returncode == 2, out
    return out.stderr.strip().removeprefix("zonesim: ")


def test_presets_are_the_clis():
    assert "ufs-conventional" in zonesim.presets()
    assert "conzone-paper" in zonesim.presets()


def test_report_equals_the_cli_json(cli, job):
    dev = zonesim.Device("ufs-conventional", **{"nand.channels": 4, "ftl.gc.victim": "fifo"})
    r = zonesim.run(dev, workload=job, seed=5, precondition="seq")
    want = cli_json(cli, "--workload", job, "--seed", "5", "--precondition", "seq",
                    "--set", "nand.channels=4", "--set", "ftl.gc.victim=fifo")
    assert strip_wall(r.to_dict()) == strip_wall(want)
    assert json.loads(r.to_json()) == r.to_dict()


def test_fio_text_and_file_give_the_same_report(job):
    a = zonesim.run(workload=job, seed=2).to_dict()
    b = zonesim.run(workload=JOB, seed=2).to_dict()
    assert strip_wall(a) == strip_wall(b)


def test_zoned_namespace_and_trace(cli):
    trace = os.path.join(ROOT, "tests", "fixtures", "traces", "tpcc-small.trace")
    r = zonesim.run("ufs-conventional", trace=trace, as_fast_as_possible=True, qd=8)
    want = cli_json(cli, "--trace", trace, "--as-fast-as-possible", "--qd", "8")
    assert strip_wall(r.to_dict()) == strip_wall(want)
    z = zonesim.run("conzone-paper", namespace=1, workload="[w]\nrw=write\nbs=512k\nzonemode=zbd\nsize=64m\n")
    assert z.to_dict()["jobs"][0]["namespace"] == 1


def test_set_and_overrides_are_checked_like_the_cli(cli):
    with pytest.raises(zonesim.ConfigError) as e:
        zonesim.Device("ufs-conventional", **{"nand.channelz": 2})
    assert str(e.value) == cli_error(cli, "--set", "nand.channelz=2")
    dev = zonesim.Device("ufs-conventional")
    with pytest.raises(zonesim.ConfigError) as e:
        dev.set("ftl.overprovisioning", 9.0)
    assert str(e.value) == cli_error(cli, "--set", "ftl.overprovisioning=9.0")
    assert dev.sets == [], "a rejected set changes nothing"
    dev.set("ftl.overprovisioning", 0.2).set("nand.cell", "qlc")
    assert dev.config["ftl"]["overprovisioning"] == 0.2 and dev.config["nand"]["cell"] == "qlc"
    with pytest.raises(zonesim.ConfigError) as e:
        zonesim.Device("no-such-preset")
    assert str(e.value) == cli_error(cli, "--device", "no-such-preset")
    assert isinstance(e.value, ValueError)


def test_bad_workloads_raise_with_file_and_line(tmp_path):
    bad = tmp_path / "bad.fio"
    bad.write_text("[j]\nrw=sideways\n")
    with pytest.raises(zonesim.ConfigError, match="bad.fio:2"):
        zonesim.run(workload=str(bad))
    with pytest.raises(zonesim.ConfigError, match="precondition"):
        zonesim.run(workload=JOB, precondition="hot")
    with pytest.raises(zonesim.ConfigError):
        zonesim.run(workload=JOB, trace="x.trace")
    # Job text without a section is job text, refused by the parser, not taken as a path.
    with pytest.raises(zonesim.ConfigError, match=r"<fio text>:1: option 'rw' outside of a section"):
        zonesim.run(workload="rw=write")
    # Control characters in an echoed value are shown escaped.
    with pytest.raises(zonesim.ConfigError, match=r"rand\\u\{1b\}write"):
        zonesim.run(workload="[j]\nrw=rand\x1bwrite\n")


def test_a_missing_file_is_a_file_not_found_error(tmp_path):
    missing = str(tmp_path / "absent.fio")
    with pytest.raises(FileNotFoundError, match="absent.fio") as e:
        zonesim.run(workload=missing)
    assert isinstance(e.value, zonesim.ConfigError)
    assert isinstance(e.value, zonesim.MissingFileError)


def test_jobs_frame_has_a_row_per_job_and_direction(job):
    r = zonesim.run(workload=job + "", seed=1)
    df = r.jobs()
    assert list(df["op"]) == ["read", "write"]
    rep = r.to_dict()["jobs"][0]
    assert df.loc[0, "ios"] == rep["read"]["ios"]
    assert df.loc[1, "lat_p99_us"] == rep["write"]["latency_us"]["p99"]
    assert df["ios"].sum() == 5000


def test_timeseries_frame_adds_up(job):
    r = zonesim.run(workload=job, interval_ms=2)
    ts = r.timeseries()
    assert ts.columns[0] == "t_ms" and "waf" in ts.columns and "read_lat_p99_us" in ts.columns
    lengths = ts["t_ms"].diff().fillna(ts["t_ms"].iloc[0]) / 1e3
    reads = (ts["read_iops"] * lengths).sum()
    assert abs(reads - r.to_dict()["host"]["read"]["ios"]) < 1e-6 * reads + 1e-6
    with pytest.raises(ValueError, match="interval_ms"):
        zonesim.run(workload=job).timeseries()


def test_latency_cdf_is_a_distribution(job):
    r = zonesim.run(workload=job)
    cdf = r.latency_cdf("r", "read")
    assert cdf["fraction"].is_monotonic_increasing and cdf["latency_us"].is_monotonic_increasing
    assert cdf["fraction"].iloc[-1] == 1.0
    assert cdf["latency_us"].iloc[-1] == r.to_dict()["jobs"][0]["read"]["latency_us"]["max"]
    with pytest.raises(KeyError):
        r.latency_cdf("r", "trim")


def test_experiment_table():
    df = zonesim.experiment("conzone-l2p-search", quick=True)
    assert {"case", "metric", "ours", "reference", "verdict"} <= set(df.columns)
    assert len(df) > 0 and df.attrs["name"] == "conzone-l2p-search" and df.attrs["title"]
    assert "conzone-l2p-search" in zonesim.experiments()
    with pytest.raises(zonesim.ConfigError):
        zonesim.experiment("nope")


def test_ctrl_c_stops_a_run_cleanly():
    code = "import zonesim\nzonesim.run(workload='[w]\\nrw=randread\\nbs=4k\\ntime_based=1\\nruntime=1000000\\n')\n"
    p = subprocess.Popen([sys.executable, "-c", code], stderr=subprocess.PIPE, text=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    time.sleep(3)
    assert p.poll() is None, "the run is still going"
    t = time.time()
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=60)
    assert time.time() - t < 10
    assert p.returncode != 0 and "KeyboardInterrupt" in err, err[-500:]


def test_runs_release_the_gil(job):
    """Two runs in two threads take about as long as one when there are two cores."""
    from concurrent.futures import ThreadPoolExecutor

    text = "[w]\nrw=randwrite\nbs=4k\niodepth=4\nnumber_ios=150000\n"
    t = time.perf_counter()
    zonesim.run(workload=text)
    one = time.perf_counter() - t
    ticks = []
    with ThreadPoolExecutor(2) as pool:
        f = pool.submit(zonesim.run, workload=text)
        while not f.done():  # this thread keeps running Python meanwhile
            ticks.append(time.perf_counter())
            time.sleep(0.005)
        f.result()
    assert len(ticks) > 0.5 * one / 0.005 * 0.2, "the main thread was starved of the GIL"


def test_scenario_runs_like_the_cli(cli):
    sc = os.path.join(ROOT, "tests", "fixtures", "scenarios", "tiny-aging.toml")
    dev = zonesim.Device("conzone-paper", **{"fs.kind": "f2fs"})
    r = zonesim.run(dev, scenario=sc)
    ours = strip_wall(r.to_dict())
    theirs = strip_wall(cli_json(cli, "--device", "conzone-paper", "--fs", "f2fs", "--scenario", sc))
    assert ours == theirs
    it = r.iterations()
    assert list(it["iteration"]) == [1, 2, 3]
    with pytest.raises(zonesim.ConfigError, match="exclude each other"):
        zonesim.run(dev, scenario=sc, workload="x.fio")
