"""The README says what the commands print: its generated blocks equal what ``tools/readme_tables.py``
makes by running them, and its first commands work as written."""
from __future__ import annotations

import importlib.util
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _tool():
    spec = importlib.util.spec_from_file_location("readme_tables", ROOT / "tools" / "readme_tables.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_generated_blocks_match_what_the_commands_print():
    tool = _tool()
    text = tool.README.read_text()
    assert tool.render(text) == text, "README.md is out of date: run python tools/readme_tables.py"


def test_the_first_commands_name_files_that_exist():
    text = (ROOT / "README.md").read_text()
    first = re.search(r"```\n(.*?)\n```", text, re.S).group(1)
    assert "pip install -e . && gpusim run programs/matmul_tiled.cu" in first
    assert 'pip install -e ".[test]" && python -m pytest -q' in first
    assert (ROOT / "programs" / "matmul_tiled.cu").exists() and (ROOT / "programs" / "matmul_tiled.toml").exists()
