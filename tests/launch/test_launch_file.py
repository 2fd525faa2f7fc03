"""Launch files: the agreed format loads, generates seeded inputs, checks results, and every mistake is
reported with the file, the table, the entry and the key."""
from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import numpy as np
import pytest

from gpusim.errors import LaunchFileError
from gpusim.launch import load

ROOT = Path(__file__).resolve().parents[2]

GEMM = '''
[program]
name = "gemm"
kernel = "gemm_kernel"
description = "C = alpha*A*B + beta*C"
suite = "PolyBench/GPU"
default_size = "default"
registers = 40

[sizes]
small   = { ni = 8,  nj = 8,  nk = 4 }
default = { ni = 32, nj = 64, nk = 16 }

[launch]
grid  = ["cdiv(nj, 32)", "cdiv(ni, 8)"]
block = [32, 8]
shared_mem = "nk * 4"

[[args]]
name = "alpha"
dtype = "float32"
value = 1.5

[[args]]
name = "A"
dtype = "float32"
shape = ["ni", "nk"]
fill = "uniform"
low = 0.0
high = 1.0

[[args]]
name = "idx"
dtype = "int32"
shape = "ni"
fill = "range"
start = 3
step = 2

[[args]]
name = "row_ptr"
dtype = "int32"
fill = "python"
function = "graphs.py:csr_graph"

[[args]]
name = "col_idx"
dtype = "int32"
fill = "python"
function = "graphs.py:csr_graph"

[[args]]
name = "w"
dtype = "float64"
fill = "npy"
file = "w.npy"

[[args]]
name = "C"
dtype = "float32"
shape = ["ni", "nj"]
fill = "zeros"

[[args]]
name = "n"
dtype = "int32"
value = "ni * nj"

[symbols.M]
dtype = "float32"
shape = [5]
fill = "normal"

[symbols.K]
dtype = "uint32"
shape = [2, 2]
fill = "integers"
low = 0
high = 4294967296

[reference]
function = "gemm_ref.py:reference"
tolerance = { rtol = 1e-5, atol = 1e-6 }
why = "float sums in another order"
'''

GRAPHS = '''
import numpy as np
CALLS = []
def csr_graph(params, rng):
    CALLS.append(params["ni"])
    n = params["ni"]
    return {"row_ptr": np.arange(n + 1, dtype=np.int32), "col_idx": rng.integers(0, n, n, dtype=np.int32)}
'''

REF = '''
import numpy as np
def reference(inputs, params):
    return {"C": np.full((params["ni"], params["nj"]), inputs["alpha"], dtype=np.float32)}
'''


def write(folder: Path, text: str = GEMM, **files) -> Path:
    (folder / "gemm.toml").write_text(textwrap.dedent(text))
    (folder / "graphs.py").write_text(GRAPHS)
    (folder / "gemm_ref.py").write_text(REF)
    np.save(folder / "w.npy", np.linspace(0, 1, 7))
    for name, content in files.items():
        (folder / name.replace("__", ".")).write_text(content)
    return folder / "gemm.toml"


def test_the_contract_example_loads_and_launches(tmp_path):
    spec = load(write(tmp_path))
    assert (spec.name, spec.suite, spec.default_size, spec.registers("gemm_kernel")) == \
        ("gemm", "PolyBench/GPU", "default", 40)
    lnch = spec.launch()
    assert (lnch.kernel, lnch.grid, lnch.block, lnch.shared_mem) == ("gemm_kernel", (2, 4, 1), (32, 8, 1), 64)
    assert spec.launch("small").grid == (1, 1, 1)
    assert spec.kernels == ("gemm_kernel",)
    assert spec.registers("_Z11gemm_kernelfPf") == 40 and spec.registers("other") is None


def test_inputs_follow_the_contract_and_are_seeded(tmp_path):
    spec = load(write(tmp_path))
    args = spec.make_args("small", seed=3)
    alpha, a, idx, row_ptr, col_idx, w, c, n = args
    assert type(alpha) is np.float32 and alpha == 1.5 and type(n) is np.int32 and n == 64
    rng = np.random.default_rng([3, 0])
    np.testing.assert_array_equal(a, rng.uniform(0.0, 1.0, size=(8, 4)).astype(np.float32))
    np.testing.assert_array_equal(col_idx, rng.integers(0, 8, 8, dtype=np.int32))   # the python fill's turn
    assert idx.tolist() == [3, 5, 7, 9, 11, 13, 15, 17] and idx.dtype == np.int32
    assert row_ptr.tolist() == list(range(9))
    np.testing.assert_array_equal(w, np.linspace(0, 1, 7))
    assert c.shape == (8, 8) and not c.any() and c.dtype == np.float32
    syms = spec.make_symbols("small", seed=3)
    rng = np.random.default_rng([3, 1])
    np.testing.assert_array_equal(syms["M"], rng.normal(0.0, 1.0, size=(5,)).astype(np.float32))
    np.testing.assert_array_equal(syms["K"], rng.integers(0, 2**32, size=(2, 2), dtype=np.uint32))
    again = spec.make_args("small", seed=3)
    assert all(np.array_equal(x, y) for x, y in zip(args, again))
    assert not np.array_equal(spec.make_args("small", seed=4)[1], a)


def test_a_python_fill_is_called_once_per_size_and_seed(tmp_path):
    spec = load(write(tmp_path))
    module = spec.function("graphs.py:csr_graph", "t")
    module.__globals__["CALLS"].clear()
    spec.make_args("small", seed=0)
    assert module.__globals__["CALLS"] == [8]


def test_reference_and_check(tmp_path):
    spec = load(write(tmp_path))
    args = spec.make_args("small")
    ref = spec.reference(args, spec.make_symbols("small"), "small")
    assert list(ref) == [6] and ref[6].shape == (8, 8)
    res = spec.check(args, ref)
    assert not res.ok and "C (arg 6): 64 of 64 elements differ" in res.message
    after = list(args)
    after[6] = ref[6].copy()
    assert spec.check(after, ref).ok and "rtol=1e-05, atol=1e-06 (float sums in another order)" in \
        spec.check(after, ref).message


def test_size_overrides(tmp_path):
    spec = load(write(tmp_path))
    assert spec.params("ni=16") == {"ni": 16, "nj": 64, "nk": 16}
    assert spec.launch("ni=16,nj=32").grid == (1, 2, 1)
    with pytest.raises(Exception, match="'q' is not a parameter of gemm"):
        spec.params("q=3")
    with pytest.raises(Exception, match="no size 'huge'; sizes: small, default"):
        spec.params("huge")


def test_kernel_names_may_follow_a_size_parameter(tmp_path):
    text = GEMM.replace('kernel = "gemm_kernel"', 'kernel = "gemm_{nk}"').replace("registers = 40",
                                                                              "registers = { gemm_4 = 30 }")
    spec = load(write(tmp_path, text))
    assert spec.launch("small").kernel == "gemm_4" and spec.launch().kernel == "gemm_16"
    assert spec.kernels == ("gemm_4", "gemm_16")
    assert spec.registers("gemm_4") == 30 and spec.registers("gemm_16") is None


def test_a_minimal_file_has_one_default_size(tmp_path):
    (tmp_path / "k.toml").write_text('[launch]\ngrid = 4\nblock = 32\n[[args]]\nname = "x"\ndtype = "int32"\n'
                                     'value = 3\n')
    spec = load(tmp_path / "k.toml")
    assert spec.sizes == {"default": {}} and spec.launch().grid == (4, 1, 1) and spec.kernel is None
    assert spec.make_args() == [3] and spec.make_symbols() == {}


def _error(tmp_path, old, new, **files) -> str:
    text = GEMM.replace(old, new)
    assert text != GEMM or not old
    with pytest.raises(LaunchFileError) as e:
        load(write(tmp_path, text, **files))
    return str(e.value)


@pytest.mark.parametrize("old, new, message", [
    ('shape = ["ni", "nk"]\n', "", "gemm.toml: [[args]] #2 'A': 'shape' is required for fill = \"uniform\""),
    ('[[args]]\nname = "alpha"\ndtype = "float32"\n', '[[args]]\nname = "alpha"\n',
     "gemm.toml: [[args]] #1 'alpha': 'dtype' is required (one of int8"),
    ('dtype = "float32"\nvalue = 1.5', 'dtype = "float"\nvalue = 1.5',
     "gemm.toml: [[args]] #1 'alpha': dtype = 'float': expected one of"),
    ("value = 1.5", "vlaue = 1.5", "gemm.toml: [[args]] #1 'alpha': unknown key 'vlaue'; known: name, dtype"),
    ("value = 1.5", "", "gemm.toml: [[args]] #1 'alpha': give 'value' (a scalar"),
    ('fill = "uniform"', 'fill = "random"', "[[args]] #2 'A': fill = \"random\": expected one of uniform"),
    ("low = 0.0\nhigh = 1.0", "start = 0", "[[args]] #2 'A': 'start' does not go with fill = \"uniform\""),
    ('file = "w.npy"', "", "[[args]] #6 'w': 'file' is required for fill = \"npy\""),
    ('block = [32, 8]', "", "gemm.toml: [launch]: 'block' is required"),
    ('grid  = ["cdiv(nj, 32)", "cdiv(ni, 8)"]', 'grid = ["cdiv(nj, 32)", "ni.real"]',
     "gemm.toml: [launch] grid[1]: 'ni.real': attribute access is not allowed"),
    ('grid  = ["cdiv(nj, 32)", "cdiv(ni, 8)"]', 'grid = ["cdiv(nx, 32)"]',
     "gemm.toml: [launch] grid[0]: 'cdiv(nx, 32)': unknown name 'nx' (the size's parameters: ni, nj, nk)"),
    ('value = "ni * nj"', 'value = "ni * nj * 100000000"',
     "[[args]] #8 'n': value: 6400000000 does not fit in int32"),
    ('default_size = "default"', 'default_size = "medium"', "[program] default_size: 'medium' is not one of"),
    ('[program]', '[programme]\n[program]', "gemm.toml: [programme]: unknown table"),
    ('tolerance = { rtol = 1e-5, atol = 1e-6 }', 'tolerance = "close"',
     "gemm.toml: [reference] tolerance: expected \"exact\" or { rtol = 1e-5, atol = 1e-6 }"),
    ('function = "gemm_ref.py:reference"', 'function = "gemm_ref.py:ref"',
     "gemm.toml: [reference] function: gemm_ref.py has no function 'ref' (it has: reference)"),
    ('function = "graphs.py:csr_graph"', 'function = "graph.py:csr_graph"',
     "gemm.toml: [[args]] #4 'row_ptr': function: 'graph.py:csr_graph': no such file"),
    ('name = "col_idx"', 'name = "row_ptr"', "[[args]] #5 'row_ptr': a second argument named 'row_ptr'"),
    ('[symbols.M]', '[symbols.A]', "gemm.toml: [symbols.A]: 'A' is also an argument's name"),
    ('[sizes]', '[sizes]\nodd = 3', "gemm.toml: [sizes] odd: expected a table of parameters"),
])
def test_errors_name_the_file_the_entry_and_the_key(tmp_path, old, new, message):
    assert message in _error(tmp_path, old, new)


def test_errors_from_python_files_are_one_line(tmp_path):
    msg = _error(tmp_path, "", "", graphs__py="def csr_graph(:\n")
    assert "[[args]] #4 'row_ptr': function: loading graphs.py failed: SyntaxError" in msg
    spec = load(write(tmp_path, GEMM, graphs__py="def csr_graph(p, rng):\n    return {'row_ptr': 1 / 0}\n"))
    with pytest.raises(LaunchFileError, match=r"\[\[args\]\] #4 'row_ptr': graphs.py:csr_graph raised "
                                              r"ZeroDivisionError: division by zero"):
        spec.make_args()
    spec = load(write(tmp_path, GEMM, graphs__py="import numpy as np\ndef csr_graph(p, rng):\n"
                                                 "    return {'row_ptr': np.zeros(3, np.int32)}\n"))
    with pytest.raises(LaunchFileError, match=r"#5 'col_idx': graphs.py:csr_graph returned no entry 'col_idx' "
                                              r"\(it returned: row_ptr\)"):
        spec.make_args()
    spec = load(write(tmp_path, GEMM, graphs__py="import numpy as np\ndef csr_graph(p, rng):\n"
                                                 "    return {'row_ptr': np.zeros(3), 'col_idx': 0}\n"))
    with pytest.raises(LaunchFileError, match="float64 does not convert to int32 without loss"):
        spec.make_args()


def test_an_npy_file_must_fit(tmp_path):
    path = write(tmp_path)
    np.save(tmp_path / "w.npy", np.zeros(3, dtype=np.complex64))
    with pytest.raises(LaunchFileError, match="w.npy gives complex64, and dtype = 'float64'"):
        load(path).make_args()
    (tmp_path / "w.npy").unlink()
    with pytest.raises(LaunchFileError, match=r"#6 'w': file = 'w.npy': no such file"):
        load(path).make_args()


def test_not_toml_and_not_utf8(tmp_path):
    p = tmp_path / "k.toml"
    p.write_text("[launch\n")
    with pytest.raises(LaunchFileError, match="k.toml: not valid TOML"):
        load(p)
    p.write_bytes(b"# ok\n" * 6 + b"# caf\xe9\n")
    with pytest.raises(LaunchFileError, match=r"k.toml:7:6: not UTF-8 text \(byte 0xe9\)"):
        load(p)
    with pytest.raises(LaunchFileError, match="nope.toml: no such launch file"):
        load(tmp_path / "nope.toml")


def test_args_that_do_not_fit_the_kernel_name_both_lists(tmp_path):
    import gpusim
    from gpusim.launch import check_args, cuda_kernels
    shutil.copy(ROOT / "programs" / "vector_add.ptx", tmp_path)
    shutil.copy(ROOT / "programs" / "vector_add.cu", tmp_path)
    text = (ROOT / "programs" / "vector_add.toml").read_text().split("[reference]")[0]
    (tmp_path / "vector_add.toml").write_text(text.replace('name = "B"', 'name = "Bee"'))
    spec = load(tmp_path / "vector_add.toml")
    module, _ = gpusim.load_module(tmp_path / "vector_add.ptx")
    k = module.kernel("vector_add")
    cuda = cuda_kernels((tmp_path / "vector_add.cu").read_text())["vector_add"]
    with pytest.raises(LaunchFileError) as e:
        check_args(spec, k, cuda)
    assert "[[args]] (A, Bee, C, n) do not match the parameters of kernel 'vector_add' (A: .u64, B: .u64, " \
           "C: .u64, n: .u32): [[args]] #2 is 'Bee', parameter 2 is 'B'" in str(e.value)
    (tmp_path / "vector_add.toml").write_text(text.replace('value = "n"', 'shape = 1\nfill = "zeros"'))
    with pytest.raises(LaunchFileError, match="#4 'n' is an array, but parameter 'n' is a value"):
        check_args(load(tmp_path / "vector_add.toml"), k, cuda)
    (tmp_path / "inputs.py").write_text("import numpy as np\ndef count(p, rng):\n    return {'n': np.int32(7)}\n")
    (tmp_path / "vector_add.toml").write_text(text.replace('value = "n"', 'shape = [1]\nfill = "python"\n'
                                                           'function = "inputs.py:count"'))
    with pytest.raises(LaunchFileError, match="#4 'n' is an array, but parameter 'n' is a value"):
        check_args(load(tmp_path / "vector_add.toml"), k, cuda)
    (tmp_path / "vector_add.toml").write_text(text.replace('value = "n"', 'fill = "python"\n'
                                                           'function = "inputs.py:count"'))
    check_args(load(tmp_path / "vector_add.toml"), k, cuda)       # a python function may give a value
    assert load(tmp_path / "vector_add.toml").make_args("small")[3] == np.int32(7)
    (tmp_path / "vector_add.toml").write_text(text.replace('dtype = "int32"', 'dtype = "int64"'))
    with pytest.raises(LaunchFileError, match=r"#4 'n' is int64 \(8 bytes\), parameter 'n' is .u32 \(4 bytes\)"):
        check_args(load(tmp_path / "vector_add.toml"), k, cuda)
    (tmp_path / "vector_add.toml").write_text(text.replace('[[args]]\nname = "n"', '[[args]]\nname = "q"\n'
                                                           'dtype = "int32"\nvalue = 1\n\n[[args]]\nname = "n"'))
    with pytest.raises(LaunchFileError, match=r"\(param_0: .u64, param_1: .u64, param_2: .u64, param_3: .u32\): 5 \[\[args\]\] for 4"):
        check_args(load(tmp_path / "vector_add.toml"), k, None)


def test_cuda_signatures():
    from gpusim.launch import cuda_kernels
    src = """
    // __global__ void commented_out(int x)
    template <int T> __device__ float f(float x);
    extern "C" __global__ void __launch_bounds__(256) k1(const float* __restrict__ in, float *out,
                                                           unsigned int n, double s, int a[], MyStruct m)
    { }
    __global__ void k2() {}
    """
    found = cuda_kernels(src)
    assert list(found) == ["k1", "k2"] and found["k2"] == []
    got = [(p.name, p.pointer, p.dtype) for p in found["k1"]]
    assert got == [("in", True, "float32"), ("out", True, "float32"), ("n", False, "uint32"),
                   ("s", False, "float64"), ("a", True, "int32"), ("m", False, None)]


def test_an_array_may_say_the_host_left_it_uninitialised_or_freed(tmp_path):
    # the checker (gpusim check) reads this; a plain run uses the fill
    text = GEMM.replace('step = 2\n', 'step = 2\nhost = "uninitialised"\n').replace(
        'low = 0.0\nhigh = 1.0\n', 'low = 0.0\nhigh = 1.0\nhost = "freed"\n', 1)
    spec = load(write(tmp_path, text))
    assert spec.host_states() == {"freed": [1], "uninitialised": [2]}
    assert load(write(tmp_path, GEMM)).host_states() == {}


@pytest.mark.parametrize("old, new, message", [
    ("step = 2\n", 'step = 2\nhost = "stale"\n', "[[args]] #3 'idx': host = 'stale': expected one of "
                                                 "'uninitialised', 'freed'"),
    ("value = 1.5", 'value = 1.5\nhost = "freed"', "[[args]] #1 'alpha': 'host' goes with 'fill'"),
    ("[symbols.M]\n", '[symbols.M]\nhost = "freed"\n', "[symbols.M]: host = 'freed': a symbol has no host state"),
])
def test_a_host_state_is_checked(tmp_path, old, new, message):
    assert message in _error(tmp_path, old, new)
