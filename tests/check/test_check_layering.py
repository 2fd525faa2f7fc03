"""The checker sits above the emulator: the emulator works (and imports) without it, and the checker
uses neither the timing model nor the memory system."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def loaded(code: str) -> list[str]:
    out = subprocess.run([sys.executable, "-c", code + "\nimport sys\nprint(sorted(sys.modules))"], cwd=ROOT,
                         capture_output=True, text=True, check=True)
    return eval(out.stdout.strip().splitlines()[-1])


def test_the_emulator_imports_nothing_of_the_checker():
    mods = loaded("import gpusim.functional.emulator")
    assert not [m for m in mods if m.startswith("gpusim.check")]


def test_the_checker_imports_no_timing_or_memory_model():
    mods = loaded("import gpusim.check, gpusim.check.cli")
    assert not [m for m in mods if m.startswith(("gpusim.timing", "gpusim.memory"))]
