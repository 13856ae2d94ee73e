"""Shared fixtures of the Python tests: a small job file and the CLI binary to compare with."""

import os
import shutil
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
JOB = "[r]\nrw=randrw\nbs=4k\niodepth=8\nnumber_ios=5000\n"


@pytest.fixture
def job(tmp_path):
    p = tmp_path / "j.fio"
    p.write_text(JOB)
    return str(p)


@pytest.fixture(scope="session")
def cli():
    """The `zonesim` CLI of this tree: $ZONESIM_BIN, else target/release or target/debug
    (built with cargo if neither exists)."""
    env = os.environ.get("ZONESIM_BIN")
    if env:
        return env
    for profile in ("release", "debug"):
        p = os.path.join(ROOT, "target", profile, "zonesim")
        if os.path.exists(p):
            return p
    if shutil.which("cargo") is None:
        pytest.fail("no zonesim binary and no cargo to build one: set ZONESIM_BIN")
    subprocess.run(["cargo", "build", "-q", "-p", "zonesim-cli"], cwd=ROOT, check=True)
    return os.path.join(ROOT, "target", "debug", "zonesim")
