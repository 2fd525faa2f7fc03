"""The ISA against the H100: ``benchmarks/isa_device.py``'s record, rerun in the emulator.

The record (``tests/golden/h100/isa/isa_device.json.gz``, made on the device with ``python
benchmarks/isa_device.py``) keeps each case's PTX, launch, inputs and the GPU's outputs.  Here each case runs
in the emulator on the same PTX and inputs and must give the same bits (the integer, bit, warp, atomic,
cp.async, device-function and FMA-contraction cases), or, for the ``.approx`` functions, stay within the
error bound the PTX ISA documents for the GPU's (the emulator computes them to float32 accuracy); the
distances are printed (``pytest -s``) as the rows of the table in ``isa/README.md``.  Outputs that depend on the
order of atomics compare as multisets; every other output must match (the scalar video instructions included:
the GPU runs ptxas's 64-bit lowering of them, which ``gpusim.functional.inst_int.scalar_video_lane`` follows).
Without the record these tests skip; the cases themselves are always
built and run in the emulator (``test_the_cases_run_here``), so the script cannot rot.
"""
from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

import gpusim

ROOT = Path(__file__).resolve().parents[2]
RECORD = ROOT / "tests" / "golden" / "h100" / "isa" / "isa_device.json.gz"
_spec = importlib.util.spec_from_file_location("isa_device", ROOT / "benchmarks" / "isa_device.py")
isa_device = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(isa_device)

# Outputs whose value depends on the order in which the lanes' atomics happen (which the GPU leaves open):
# (case, argument index) -> the element indices not compared.  The old values of atom.exch are compared as a
# multiset.
ORDER_DEPENDENT = {("atomics", "0"): [0, 8, 9, 14],
                   # each arrival's pending count (a warp's lanes share one): a multiset, below
                   ("mbarrier", "0"): list(range(1, 256, 2)), ("mbarrier_nocomplete", "0"): list(range(1, 256, 2))}
UNORDERED = {("atomics", "1")}

# The PTX ISA's error bounds for the .approx instructions: ("ulp", n) or ("abs", e) or ("rel", e).
BOUNDS = {
    # 2^-20.5 absolute in [-2pi, 2pi], 2^-14.7 in [-100pi, 100pi], nothing guaranteed outside: SIN_COS_BOUND
    "sin.approx.f32": ("abs", 2.0 ** -20.5), "cos.approx.f32": ("abs", 2.0 ** -20.5),
    "ex2.approx.f32": ("ulp", 2), "ex2.approx.ftz.f32": ("ulp", 2),
    # 2^-22.6 absolute on the logarithm of the mantissa, then the result's own rounding: in units of that sum
    "lg2.approx.f32": ("abs+ulp", 2.0 ** -22.6),
    "rcp.approx.f32": ("ulp", 1), "rsqrt.approx.f32": ("rel", 2.0 ** -22.9), "sqrt.approx.f32": ("rel", 2.0 ** -23),
    "tanh.approx.f32": ("rel", 2.0 ** -10.987), "div.approx.f32": ("ulp", 2), "div.full.f32": ("ulp", 2),
    "rcp.approx.ftz.f64": ("rel", 2.0 ** -20), "rsqrt.approx.ftz.f64": ("rel", 2.0 ** -20),
}


def sin_cos_bound(x: np.ndarray) -> np.ndarray:
    """The PTX ISA's absolute error bound of sin/cos.approx.f32 at each input (NaN outside [-100pi, 100pi])."""
    ax = np.abs(x)
    return np.where(ax <= 2 * np.pi, 2.0 ** -20.5, np.where(ax <= 100 * np.pi, 2.0 ** -14.7, np.nan))


def args_of(case: dict) -> list:
    out = []
    for a in case["args"]:
        if "scalar" in a:
            out.append(isa_device.NP[a["type"]](a["scalar"]))
        else:
            out.append(isa_device.from_bits(a["type"], a["array"]).copy())
    return out


def emulate(case: dict) -> dict[str, np.ndarray]:
    res = gpusim.run(case["ptx"], kernel=case["kernel"], grid=case["grid"], block=case["block"], args=args_of(case))
    return {str(k): np.asarray(res.args[k]) for k, a in enumerate(case["args"]) if a.get("out")}


def _record():
    if not RECORD.exists():
        pytest.skip(f"no device record yet ({RECORD.relative_to(ROOT)}): run benchmarks/isa_device.py on the GPU")
    return isa_device.read_record(RECORD)


def _cases(section: str):
    if not RECORD.exists():
        return [pytest.param(None, marks=pytest.mark.skip(reason="no device record yet: run "
                                                                 "benchmarks/isa_device.py on the GPU"))]
    rec = isa_device.read_record(RECORD)
    return [pytest.param(c, id=c["name"]) for c in rec["sections"].get(section, []) if "outputs" in c]


def test_record_holds_every_case_the_script_makes():
    """A record made without a file the script reads (tests/fixtures/calls.ptx) silently lacked its cases."""
    rec = _record()
    made = {"snippets": isa_device.snippet_cases(), "kernels": isa_device.kernel_cases()}
    for section, cases in made.items():
        recorded = {c["name"] for c in rec["sections"][section] if "outputs" in c}
        assert {c["name"] for c in cases} <= recorded, (section, {c["name"] for c in cases} - recorded)


def test_record_provenance():
    rec = _record()
    p = rec["provenance"]
    assert "H100" in p["gpu"] and p["driver"] and p["date"] and p["command"]
    assert not rec.get("timeouts"), f"sections that ran out of time: {rec['timeouts']}"


@pytest.mark.parametrize("case", _cases("snippets") + _cases("kernels") + _cases("fma"))
def test_bit_identical_to_the_h100(case):
    got = emulate(case)
    for k, want_hex in case["outputs"].items():
        t = case["args"][int(k)]["type"]
        want = isa_device.from_bits(t, want_hex)
        mine = got[k].view(want.dtype).reshape(-1)
        skip = ORDER_DEPENDENT.get((case["name"], k), [])
        if (case["name"], k) in UNORDERED:
            assert sorted(isa_device.hex_of(mine)) == sorted(want_hex), (case["name"], k)
            continue
        keep = np.ones(want.size, bool)
        keep[skip] = False
        if skip:      # the order-dependent elements: the same values, in some order
            assert sorted(isa_device.hex_of(mine[skip])) == sorted(np.array(want_hex)[skip].tolist()) or \
                case["name"] == "atomics", (case["name"], k)
        mh, wh = np.array(isa_device.hex_of(mine)), np.array(want_hex)
        bad = np.flatnonzero((mh != wh) & keep)
        assert bad.size == 0, (f"{case['name']} argument {k}: {bad.size} of {want.size} differ, first at "
                               f"{bad[:5].tolist()}: emulator {mh[bad[:5]].tolist()} H100 {wh[bad[:5]].tolist()}")


def _error(kind, got, exact):
    """Distance of ``got`` (its own float type) from ``exact``: absolute, relative, or in ulps of got's type."""
    dt = got.dtype
    got = got.astype(np.float64)
    if kind == "abs":
        return np.abs(got - exact)
    if kind == "rel":
        return np.abs(got - exact) / np.maximum(np.abs(exact), np.finfo(np.float64).tiny)
    spacing = np.abs(np.spacing(exact.astype(dt))).astype(np.float64)
    if kind == "abs+ulp":
        return np.abs(got - exact) / (2.0 ** -22.6 + spacing)
    return np.abs(got - exact) / np.maximum(spacing, np.finfo(np.float64).tiny)


# For the table in isa/README.md (python -m pytest -s -q tests/hw/test_isa_device.py -k approx prints its rows):
# each case's inputs (benchmarks/isa_device.py APPROX) and the PTX ISA's bound as the manual words it.
INPUTS = {"sin": "[-pi, pi]", "sin_wide": "[-100pi, 100pi]", "cos": "[-pi, pi]", "cos_wide": "[-100pi, 100pi]",
          "ex2": "[-126, 127]", "ex2_ftz": "[-140, 127]", "lg2": "2^[-126, 127]", "rcp": "+-2^[-120, 120]",
          "rcp_f64": "2^[-1000, 1000]", "rsqrt": "2^[-120, 120]", "rsqrt_f64": "2^[-1000, 1000]",
          "sqrt": "2^[-120, 120]", "tanh": "[-10, 10]", "div_approx": "[-1e6, 1e6] / +-2^[-100, 100]",
          "div_full": "[-1e6, 1e6] / +-2^[-100, 100]"}
BOUND_TEXT = {"sin.approx.f32": "2^-20.5 abs in [-2pi, 2pi], 2^-14.7 abs in [-100pi, 100pi]",
              "cos.approx.f32": "2^-20.5 abs in [-2pi, 2pi], 2^-14.7 abs in [-100pi, 100pi]",
              "lg2.approx.f32": "2^-22.6 abs (+ the result's rounding)", "tanh.approx.f32": "2^-10.987 rel",
              "rsqrt.approx.f32": "2^-22.9 rel", "sqrt.approx.f32": "2^-23 rel",
              "rcp.approx.ftz.f64": "2^-20 rel (as tested)", "rsqrt.approx.ftz.f64": "2^-20 rel (as tested)"}

EXACT = {"sin": np.sin, "cos": np.cos, "ex2": np.exp2, "lg2": np.log2, "rcp": lambda x: 1 / x,
         "rsqrt": lambda x: 1 / np.sqrt(x), "sqrt": np.sqrt, "tanh": np.tanh}


@pytest.mark.parametrize("case", _cases("approx"))
def test_approx_within_the_documented_bound_of_the_h100(case):
    ins = case["instruction"]
    kind, bound = BOUNDS[ins]
    if kind == "abs+ulp":
        bound = 1.0
    t = case["args"][-1]["type"]
    xs = [isa_device.from_bits(a["type"], a["array"]).astype(np.float64) for a in case["args"][:-1]]
    if ins.startswith("div"):
        exact = xs[0] / xs[1]
    else:
        exact = EXACT[ins.split(".")[0]](xs[0])
    gpu = isa_device.from_bits(t, case["outputs"][str(len(case["args"]) - 1)])
    emu = emulate(case)[str(len(case["args"]) - 1)].view(gpu.dtype)
    finite = np.isfinite(exact) & (np.abs(exact) < np.finfo(gpu.dtype).max / 4) & \
        (np.abs(exact) > np.finfo(gpu.dtype).tiny * 4)
    if ins.startswith(("sin", "cos")):
        finite &= np.abs(xs[0]) <= 100 * np.pi
        bound = sin_cos_bound(xs[0][finite])          # per input: the bound of its range
    e_gpu = _error(kind, gpu[finite], exact[finite])
    e_emu = _error(kind, emu[finite], exact[finite])
    e_between = _error(kind, emu[finite], gpu[finite].astype(np.float64))     # the distance to write down
    d_abs = np.abs(emu[finite].astype(np.float64) - gpu[finite])
    d_rel = d_abs / np.abs(exact[finite])
    unit = {"abs": "abs", "rel": "rel", "ulp": "ulp", "abs+ulp": "of the bound"}[kind]
    bound_text = BOUND_TEXT.get(ins, f"{BOUNDS[ins][1]} {BOUNDS[ins][0]}")
    print(f"\n| `{ins}` ({case['name']}) | {INPUTS.get(case['name'], '?')} | {finite.sum()} | {d_abs.max():.3g} | "
          f"{d_rel.max():.3g} | {e_between.max():.3g} {unit} | {e_gpu.max():.3g} {unit} | {e_emu.max():.3g} {unit} | "
          f"{bound_text} |")
    assert np.all(e_gpu <= bound), f"{ins}: the H100 itself is outside the bound as written here"
    assert np.all(e_emu <= bound), f"{ins}: the emulator is outside the PTX ISA's bound"
    assert np.all(e_between <= 2 * bound), f"{ins}: the emulator and the H100 differ by more than twice the bound"


def test_the_cases_run_here():
    """Every case of the script builds and runs in the emulator (no GPU): its PTX parses, its kernels launch;
    the FMA section's CUDA C compiles with the local nvcc when there is one."""
    cases = isa_device.snippet_cases() + isa_device.kernel_cases() + isa_device.approx_cases(256)
    if shutil.which("nvcc"):
        cases += isa_device.fma_cases(isa_device.nvcc_ptx, 256)
    for case in cases:
        out = emulate(case)
        assert out, case["name"]
