"""Every notebook runs top to bottom (nbclient), is stored without outputs, and every cell tagged "figure"
displays an image."""
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def test_the_five_notebooks_exist():
    assert [p.stem for p in NOTEBOOKS] == ["01_tour", "02_bank_conflicts", "03_coalescing_dram", "04_occupancy",
                                           "05_reductions"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_stored_without_outputs(path):
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, f"{path.name}: clear the outputs"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_runs_and_shows_its_figures(path):
    from nbclient import NotebookClient
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}},
                   extra_arguments=["--HistoryManager.enabled=False"]).execute(
        env={"MPLBACKEND": "module://matplotlib_inline.backend_inline"})
    figs = [c for c in nb.cells if "figure" in c.metadata.get("tags", [])]
    assert figs, "tag the cells that make figures with 'figure'"
    for c in figs:
        images = [o for o in c.outputs if o.get("output_type") in ("display_data", "execute_result")
                  and "image/png" in o.get("data", {})]
        assert images, f"{path.name}: cell {c.source[:60]!r} shows no figure"
