"""The experiment suite (`python -m zonesim experiments`): local threads and Ray tasks write the
records the CLI writes."""

import json
import subprocess
import sys

import pytest

from conftest import ROOT

# Two experiments that take well under a second each in quick form.
NAMES = ["conzone-seq", "mcmq-latency-table"]


def suite(out, backend):
    """Run NAMES at quick scale on `backend` with 2 workers; their outcomes by name."""
    r = subprocess.run(
        [sys.executable, "-m", "zonesim", "experiments", "--scale", "quick", "--backend", backend,
         "--workers", "2", "--out", str(out), *NAMES],
        capture_output=True, text=True, cwd=ROOT, timeout=600,
    )
    assert r.returncode == 0, r.stderr[-2000:]
    assert f"(quick scale, 2 experiments, {backend})" in r.stdout, r.stdout
    outcomes = {}
    for n in NAMES:
        rec = json.loads((out / f"{n}.json").read_text())
        assert rec["scale"] == "quick" and rec["seed"] == 1 and rec["wall_s"] >= 0
        outcomes[n] = rec["outcome"]
    return outcomes


def test_local_suite_writes_the_records_of_the_cli(cli, tmp_path):
    local = suite(tmp_path / "local", "local")
    for n in NAMES:
        f = tmp_path / f"{n}.cli.json"
        subprocess.run([cli, "experiment", "run", n, "--quick", "--json", str(f)], cwd=ROOT,
                       capture_output=True, check=False)
        assert json.loads(f.read_text()) == local[n], n


def test_ray_suite_equals_local(tmp_path):
    pytest.importorskip("ray")
    assert suite(tmp_path / "ray", "ray") == suite(tmp_path / "local", "local")
