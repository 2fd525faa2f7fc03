"""``gpusim.cupy.set_mode(sanitize=...)``: every launch of a CuPy program under the checker, as
``compute-sanitizer python prog.py``; memcheck knows the arrays the program freed to the device."""
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from gpusim.errors import GpusimError, LaunchError
from tests.cupy.conftest import KERNELS

N = 256


def freed_pointer(cupy, kernels):
    """The address of an array the program deleted and whose block the pool gave back to the device."""
    kernels.get_function("add_one")((1,), (1,), (cupy.zeros(1, dtype=np.float32), np.int32(0)))  # module loaded
    a = cupy.zeros(N, dtype=np.float32)
    ptr = a.data.ptr
    del a
    cupy.get_default_memory_pool().free_all_blocks()
    return ptr


def test_a_kernel_using_an_array_after_free_all_blocks_is_a_use_after_free_with_its_line(cupy, kernels, capsys):
    cupy.set_mode(sanitize="memcheck")
    ptr = freed_pointer(cupy, kernels)
    kernels.get_function("add_one")((2,), (128,), (np.uint64(ptr), np.int32(N)))
    rep = cupy.launches()[-1].sanitizer
    assert [(f.kind, f.lines, f.count) for f in rep.findings] == [("use after free", (6,), 2 * N)]  # ld + st
    assert "freed by free_all_blocks" in rep.findings[0].message
    err = capsys.readouterr().err            # printed as the launch ends, as compute-sanitizer does
    assert "memcheck error: use after free" in err and "cupy_kernels.cu:6" in err


def test_without_the_checker_the_same_launch_faults(cupy, kernels):
    ptr = freed_pointer(cupy, kernels)
    with pytest.raises(GpusimError, match="out-of-bounds"):
        kernels.get_function("add_one")((2,), (128,), (np.uint64(ptr), np.int32(N)))


def test_a_block_kept_by_the_pool_or_taken_by_a_later_array_is_still_memory(cupy, kernels):
    # as on the GPU (and under compute-sanitizer): the pool still owns a deleted array's block, and a freed
    # range handed out again is live memory, so a stale pointer into either is not reported
    cupy.set_mode(sanitize="all")
    add_one = kernels.get_function("add_one")
    add_one((1,), (1,), (cupy.zeros(1, dtype=np.float32), np.int32(0)))
    a = cupy.zeros(N, dtype=np.float32)
    ptr = a.data.ptr
    del a                                                     # back to the pool, not to the device
    add_one((2,), (128,), (np.uint64(ptr), np.int32(N)))
    cupy.get_default_memory_pool().free_all_blocks()
    b = cupy.zeros(N, dtype=np.float32)
    assert b.data.ptr == ptr
    add_one((2,), (128,), (np.uint64(ptr), np.int32(N)))
    assert [r.sanitizer.ok for r in cupy.launches()] == [True, True, True]
    assert (b.get() == 1).all()


def test_a_checked_launch_is_timed_as_a_plain_one(cupy, kernels):
    cycles = {}
    for san in ("all", False):
        cupy.reset(mode="timing", flush_caches=True, sanitize=san)
        add_one = cupy.RawModule(path=str(KERNELS)).get_function("add_one")
        a = cupy.zeros(1024, dtype=np.float32)
        add_one((8,), (128,), (a, np.int32(1024)))
        rec = cupy.launches()[-1]
        assert (rec.sanitizer is not None) == bool(san) and (rec.sanitizer is None or rec.sanitizer.ok)
        cycles[san] = rec.cycles
    assert cycles["all"] == cycles[False] > 0


def test_the_tools_are_named_kept_across_reset_and_counted_in_the_report(cupy, kernels):
    with pytest.raises(LaunchError, match="unknown tool 'racechek'"):
        cupy.set_mode(sanitize="racechek")
    cupy.set_mode(sanitize="racecheck,memcheck")
    assert cupy.get_mode()["sanitize"] == ("racecheck", "memcheck")
    cupy.reset()
    assert cupy.get_mode()["sanitize"] == ("racecheck", "memcheck")
    ptr = freed_pointer(cupy, kernels)
    kernels.get_function("add_one")((2,), (128,), (np.uint64(ptr), np.int32(N)))
    text = str(cupy.report(quiet=True))
    assert "sanitizer (racecheck, memcheck): 2 launches checked, 1 reported something (1 error, 0 warnings" in text
    cupy.set_mode(sanitize=False)
    assert cupy.get_mode()["sanitize"] == ()


def test_python_m_gpusim_cupy_sanitize_checks_an_unchanged_script(tmp_path):
    script = tmp_path / "prog.py"
    script.write_text(f"import numpy as np\nimport cupy\n"
                      f"k = cupy.RawModule(path={str(KERNELS)!r}).get_function('add_one')\n"
                      f"a = cupy.zeros(128, dtype=cupy.float32)\n"
                      f"k((2,), (128,), (a, np.int32(256)))\nprint('done')\n")
    proc = subprocess.run([sys.executable, "-m", "gpusim.cupy", "--sanitize", "all", "--mode", "emulate",
                           str(script)], capture_output=True, text=True, timeout=300,
                          cwd=Path(__file__).resolve().parents[2])
    assert proc.returncode == 0 and proc.stdout.strip() == "done", proc.stderr
    assert "memcheck error: out-of-bounds access in global memory" in proc.stderr
    assert "1 launches checked, 1 reported something" in proc.stderr
    bad = subprocess.run([sys.executable, "-m", "gpusim.cupy", "--sanitize", "bogus", str(script)],
                         capture_output=True, text=True, timeout=300, cwd=Path(__file__).resolve().parents[2])
    assert bad.returncode == 2 and "unknown tool 'bogus'" in bad.stderr and "Traceback" not in bad.stderr
