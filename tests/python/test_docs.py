"""The sweep table of docs/python.md is what examples/sweep_op_victim.py prints (so the docs
cannot drift from the example)."""

import os
import subprocess
import sys

from conftest import ROOT

EXAMPLE = os.path.join(ROOT, "examples", "sweep_op_victim.py")
DOC = os.path.join(ROOT, "docs", "python.md")


def doc_table():
    """The block under `python examples/sweep_op_victim.py --workers 2` in docs/python.md."""
    lines = open(DOC).read().split("\n")
    i = lines.index("    python examples/sweep_op_victim.py --workers 2")
    start = lines.index("```", i) + 1
    return lines[start : lines.index("```", start)]


def test_the_docs_sweep_table_is_the_examples_output(tmp_path):
    out = subprocess.run(
        [sys.executable, EXAMPLE, "--workers", "2", "--out", str(tmp_path / "f.png")],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split("\n")
    table = [l for l in out[1:] if l and not l.startswith("wrote ")]
    assert table == doc_table(), (
        "docs/python.md's sweep table is stale: run `python examples/sweep_op_victim.py "
        "--workers 2` and paste its table:\n" + "\n".join(table)
    )
