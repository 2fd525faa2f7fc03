"""``python -m gpusim.cupy script.py``: an unchanged CuPy script runs on the simulator."""
import json
import subprocess
import sys
from pathlib import Path

from tests.cupy.conftest import KERNELS

SCRIPT = f'''
import numpy as np
import cupy
from cupy.cuda import Event
mod = cupy.RawModule(path={str(KERNELS)!r})
a = cupy.zeros(256, dtype=cupy.float32)
start, end = Event(), Event()
start.record()
mod.get_function("add_one")((2,), (128,), (a, np.int32(256)))
end.record()
print("sum", float(a.sum()), "ms", cupy.cuda.get_elapsed_time(start, end) > 0)
'''


def test_an_unchanged_cupy_script_runs_with_the_report_on_stderr(tmp_path):
    script = tmp_path / "prog.py"
    script.write_text(SCRIPT)
    trace = tmp_path / "t.json"
    proc = subprocess.run([sys.executable, "-m", "gpusim.cupy", "--trace", str(trace), str(script)],
                          capture_output=True, text=True, timeout=300, cwd=Path(__file__).resolve().parents[2])
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "sum 256.0 ms True"
    assert "add_one" in proc.stderr and "total simulated time" in proc.stderr
    assert [e["name"] for e in json.loads(trace.read_text())["traceEvents"] if e["ph"] == "X"] == ["add_one"]
