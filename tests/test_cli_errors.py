"""Every error path of the command line, run as a user runs it (a subprocess): one clear line on stderr
starting with ``gpusim: error:`` (argparse's usage errors: ``gpusim ...: error:``), exit code 1 (2 for usage
errors), never a traceback.  An error in a kernel compiled from CUDA follows its line with indented detail:
the CUDA source line and the PTX position (``isa/location.py``)."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PROGRAMS = ROOT / "programs"


def gpusim(*argv, cwd: Path, stdin=None, shell_pipe: str | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
               COLUMNS="100")
    cmd = [sys.executable, "-m", "gpusim", *map(str, argv)]
    if shell_pipe:
        line = " ".join(f"'{c}'" for c in cmd) + " | " + shell_pipe
        return subprocess.run(["bash", "-o", "pipefail", "-c", line], cwd=cwd, env=env, capture_output=True,
                              text=True, timeout=300)
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def one_line(r: subprocess.CompletedProcess, code: int, *fragments: str) -> str:
    err = r.stderr.strip()
    assert "Traceback" not in r.stderr, r.stderr
    assert r.returncode == code, (r.returncode, r.stderr)
    lines = [ln for ln in err.splitlines() if ln.strip()]
    if code == 1:
        # one error line; an error in a kernel may add indented detail: its CUDA source line, the PTX position
        assert lines[0].startswith("gpusim: error: ") and all(ln[0].isspace() for ln in lines[1:]), err
        head = lines[0]
    else:   # argparse: the usage, then one error line
        assert lines[-1].startswith("gpusim") and ": error: " in lines[-1], err
        head = lines[-1]
    for f in fragments:
        assert f in head, (f, head)
    return head


@pytest.fixture
def kernel_dir(tmp_path):
    """A user's folder with vector_add as k.ptx (and k.cu), no launch file."""
    shutil.copy(PROGRAMS / "vector_add.ptx", tmp_path / "k.ptx")
    return tmp_path


def test_run_without_a_launch_file_says_how_to_make_one(kernel_dir):
    one_line(gpusim("run", "k.ptx", cwd=kernel_dir), 1, "k.ptx: no launch file says how to launch it",
             "k.toml does not exist", "gpusim init k.ptx")


def test_launch_file_mistakes_name_the_file_and_key(kernel_dir):
    assert gpusim("init", "k.ptx", cwd=kernel_dir).returncode == 0
    toml = kernel_dir / "k.toml"
    text = toml.read_text()
    toml.write_text(text.replace('shape = ["n"]', "", 1))
    one_line(gpusim("run", "k.ptx", cwd=kernel_dir), 1,
             "k.toml: [[args]] #1 'param_0': 'shape' is required for fill = \"uniform\"")
    toml.write_text(text.replace('grid  = ["cdiv(n, 256)"]', 'grid = ["n.bit_length()"]'))
    one_line(gpusim("run", "k.ptx", cwd=kernel_dir), 1, "k.toml: [launch] grid[0]: 'n.bit_length()'")
    toml.write_text(text.replace("\n[[args]]\n", "\n[[args]]\nname = \"extra\"\ndtype = \"int32\"\nvalue = 1\n\n[[args]]\n", 1))
    one_line(gpusim("run", "k.ptx", cwd=kernel_dir), 1, "[[args]] (extra, param_0, param_1, param_2, param_3) do not "
             "match the parameters of kernel 'vector_add' (param_0: .u64", "5 [[args]] for 4 parameters")
    toml.write_text(text.replace('value = "n"', 'value = "size"'))
    one_line(gpusim("run", "k.ptx", cwd=kernel_dir), 1, "[[args]] #4 'param_3': value: 'size': unknown name 'size'")


def test_check_without_a_reference(kernel_dir):
    gpusim("init", "k.ptx", cwd=kernel_dir)
    one_line(gpusim("run", "k.ptx", "--mode", "emulate", "--check", "--quiet", cwd=kernel_dir), 1,
             "k.toml has no [reference]")


def test_init_refuses_to_overwrite(kernel_dir):
    (kernel_dir / "k.toml").write_text("# mine\n")
    one_line(gpusim("init", "k.ptx", cwd=kernel_dir), 1, "k.toml exists")
    assert (kernel_dir / "k.toml").read_text() == "# mine\n"


@pytest.mark.parametrize("argv, fragment", [
    (["run", "vector_add", "--budget", "0"], "--budget: expected a positive integer, not '0'"),
    (["run", "vector_add", "--block", "0"], "--block"),
    (["run", "vector_add", "--smem", "-4"], "--smem: expected an integer >= 0"),
    (["run", "vector_add", "--trace-memory", "0"], "--trace-memory: expected a positive number of GiB, not '0'"),
    (["frobnicate"], "invalid choice"),
    (["run", "vector_add", "--what-if", "bank"], "unknown what-if 'bank'; expected auto, all, none or some of"),
    (["report", "vector_add", "--what-if", "banks,nope"], "unknown what-if 'nope'"),
    (["run", "vector_add", "--jobs", "0"], "--jobs: expected a positive integer, not '0'"),
    (["run", "vector_add", "--trace", "t.json", "--max-events", "0"], "--max-events: expected a positive integer"),
    (["run", "vector_add", "--trace", "t.json", "--trace-sms", "a,b"], "--trace-sms: expected SM numbers"),
    (["run", "vector_add", "--plot", "figs", "--bin", "-5"], "--bin: expected a positive integer"),
])
def test_usage_errors_exit_2(tmp_path, argv, fragment):
    one_line(gpusim(*argv, cwd=tmp_path), 2, fragment)


@pytest.mark.parametrize("argv, fragment", [
    (["run", "no_such_program"], "no_such_program: no such file"),
    (["run", "vector_add", "--size", "huge", "--quiet"], "program 'vector_add' has no size 'huge'; sizes: small"),
    (["run", "vector_add", "--size", "q=3", "--quiet"], "'q' is not a parameter of vector_add"),
    (["run", "vector_add", "--size", "small", "--mode", "emulate", "--budget", "100", "--quiet"],
     "exceeded the instruction budget of 100"),
    (["occupancy", "vector_add", "--gpu", "nope"], "nope"),
    (["simulate", "missing.trace"], "missing.trace: no such trace file"),
    (["run", "vector_add", "--size", "small", "--quiet", "--no-diagnosis", "--trace", "t.json", "--trace-sms", "999"],
     "--trace: SM 999 does not exist on h100 (0..131)"),
])
def test_errors_exit_1_with_one_line(tmp_path, argv, fragment):
    one_line(gpusim(*argv, cwd=tmp_path), 1, fragment)


def test_a_non_utf8_byte_is_reported_at_its_line_and_column(tmp_path):
    text = (PROGRAMS / "vector_add.ptx").read_bytes().split(b"\n")
    text[42] = text[42] + b" // caf\xe9"
    (tmp_path / "k.ptx").write_bytes(b"\n".join(text))
    col = len(text[42]) - 1 + 1 - len(b"\xe9") + 1
    one_line(gpusim("run", "k.ptx", "--grid", "1", "--block", "32", cwd=tmp_path), 1,
             f"k.ptx:43:{col}: not UTF-8 text (byte 0xe9")


def test_a_corrupted_trace_file_is_one_line(tmp_path):
    assert gpusim("trace", "vector_add", "--size", "small", "-o", "t.trace", cwd=tmp_path).returncode == 0
    raw = bytearray((tmp_path / "t.trace").read_bytes())
    raw[len(raw) // 2: len(raw) // 2 + 64] = b"\0" * 64
    (tmp_path / "bad.trace").write_bytes(raw)
    one_line(gpusim("simulate", "bad.trace", "--quiet", cwd=tmp_path), 1, "bad.trace: a damaged gpusim trace file")
    (tmp_path / "junk.trace").write_bytes(b"not a zip at all")
    one_line(gpusim("simulate", "junk.trace", "--quiet", cwd=tmp_path), 1, "junk.trace: not a gpusim trace file")


def test_compile_does_not_overwrite(tmp_path):
    shutil.copy(PROGRAMS / "vector_add.cu", tmp_path / "k.cu")
    (tmp_path / "k.ptx").write_text("// mine\n")
    one_line(gpusim("compile", "k.cu", cwd=tmp_path), 1, "k.ptx exists: pass -o FILE")
    assert (tmp_path / "k.ptx").read_text() == "// mine\n"


def test_sweep_dry_run_into_a_closed_pipe_is_quiet():
    r = gpusim("sweep", ROOT / "examples" / "sweeps" / "matmul_tile_regs.toml", "--dry-run", cwd=ROOT,
               shell_pipe="head -n 1")
    assert r.returncode == 0 and r.stderr == "" and r.stdout.startswith("study matmul_tile_regs: 16 points")


def test_resume_into_another_studys_results_refuses(tmp_path):
    study = ('[sweep]\nname = "{name}"\ngpu = "pmpp-device-d"\n[[programs]]\nname = "vector_add"\n'
             'sizes = ["small"]\n[gpu_overrides]\n"sm.count" = {sms}\n[vary]\nscheduler = ["gto"]\n'
             '[metrics]\ncollect = ["smsp__inst_executed.sum"]\n')
    (tmp_path / "a.toml").write_text(study.format(name="a", sms=2))
    (tmp_path / "b.toml").write_text(study.format(name="b", sms=2))
    (tmp_path / "a2.toml").write_text(study.format(name="a", sms=4))
    r = gpusim("sweep", "a.toml", "--workers", "1", "--quiet", "-o", "r.csv", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    before = (tmp_path / "r.csv").read_text(), (tmp_path / "r.schema.json").read_text()
    one_line(gpusim("sweep", "b.toml", "--workers", "1", "--quiet", "-o", "r.csv", "--resume", cwd=tmp_path), 1,
             "r.csv holds the results of another study (study 'a' there, 'b' here)")
    one_line(gpusim("sweep", "a2.toml", "--workers", "1", "--quiet", "-o", "r.csv", "--resume", cwd=tmp_path), 1,
             "gpu_overrides {'sm.count': 2} there, {'sm.count': 4} here")
    assert ((tmp_path / "r.csv").read_text(), (tmp_path / "r.schema.json").read_text()) == before
    (tmp_path / "r.schema.json").unlink()
    one_line(gpusim("sweep", "a.toml", "--workers", "1", "--quiet", "-o", "r.csv", "--resume", cwd=tmp_path), 1,
             "no r.schema.json beside it")


def test_sweep_writes_into_the_current_directory(tmp_path):
    spec = tmp_path / "studies" / "s.toml"
    spec.parent.mkdir()
    spec.write_text('[sweep]\ngpu = "pmpp-device-d"\n[[programs]]\nname = "vector_add"\nsizes = ["small"]\n'
                    '[vary]\nscheduler = ["gto"]\n[metrics]\ncollect = ["smsp__inst_executed.sum"]\n')
    out = tmp_path / "here"
    out.mkdir()
    r = gpusim("sweep", spec, "--workers", "1", "--quiet", cwd=out)
    assert r.returncode == 0, r.stderr
    assert (out / "s.csv").exists() and not (spec.parent / "s.csv").exists()
