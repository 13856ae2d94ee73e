"""The quickstart notebook runs from top to bottom in a Jupyter kernel, and is committed
without outputs (scripts/check-python runs this with the package's test extras)."""

import json
import os

import nbclient
import nbformat

from conftest import ROOT

NOTEBOOK = os.path.join(ROOT, "examples", "quickstart.ipynb")


def test_the_notebook_is_committed_without_outputs():
    nb = json.load(open(NOTEBOOK))
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            assert cell["outputs"] == [] and cell["execution_count"] is None, (
                "examples/quickstart.ipynb carries outputs: clear them before committing "
                "(jupyter nbconvert --clear-output --inplace examples/quickstart.ipynb)"
            )


def test_the_notebook_runs():
    nb = nbformat.read(NOTEBOOK, as_version=4)
    client = nbclient.NotebookClient(
        nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": os.path.dirname(NOTEBOOK)}}
    )
    client.execute()  # raises CellExecutionError naming the cell that failed
