"""The bug corpus (``programs/bugs/``) agrees with itself and with compute-sanitizer's reports on the H100.

- the corpus: at least 30 planted bugs covering every kind issue 13 lists; each planted line carries a
  ``// BUG`` comment and appears in the PTX's line info; every launch file loads; every fixed twin matches
  its reference in gpusim's emulator;
- the records (``tests/golden/h100/sanitizer/``): a report per kernel and tool, ``reports.json`` is the
  parse of the raw reports, and the manifest's ``[bug.sanitizer]`` tables are what the reports say: every
  bug compute-sanitizer found is listed with the lines it named (all of them planted lines), every bug it
  missed has a clean report from its tool, and every fixed twin is clean under all four tools and
  computed the reference result on the H100;
- the report parser, on the record formats compute-sanitizer 2025.3 prints.
"""
from __future__ import annotations

import re
import shutil

import numpy as np
import pytest

import gpusim
from gpusim.launch import check_args, cuda_kernels, load
from programs import bugs
from programs.bugs.sanitizer import collect, hostgen
from programs.bugs.sanitizer.parse import is_clean, parse_report

MANIFEST = bugs.manifest()
BUGS = [pytest.param(b, id=b["name"]) for b in MANIFEST]
KERNELS = bugs.kernels()
REPORTS = collect.load_reports()
KINDS = {"race", "uninit", "sync", "oob", "misaligned", "use_after_free", "const_oob"}


# -- the corpus -------------------------------------------------------------------------------------------
def test_the_corpus_covers_every_kind_with_several_forms():
    assert len(MANIFEST) >= 30
    assert len(set(KERNELS)) == len(KERNELS) == 2 * len(MANIFEST)

    def count(**want):
        return sum(all(b.get(k) == v for k, v in want.items()) for b in MANIFEST)

    assert count(kind="race", space="shared", scope="block") >= 4
    assert count(kind="race", space="shared", scope="warp") >= 2
    assert count(kind="race", space="global", scope="block") >= 2
    assert count(kind="race", space="global", scope="grid") >= 1
    assert {h for b in MANIFEST if b["kind"] == "race" for h in b["hazard"]} == {"RAW", "WAR", "WAW"}
    assert count(kind="uninit", space="shared") >= 2
    assert count(kind="uninit", space="local") >= 1
    assert count(kind="uninit", space="global") >= 2
    assert count(kind="sync", space="barrier") >= 3
    assert count(kind="sync", space="warp") >= 3
    for call in ("__syncwarp", "__shfl_down_sync", "__ballot_sync"):
        assert any(call in bugs.path(b["name"], ".cu").read_text() for b in MANIFEST if b["space"] == "warp")
    assert count(kind="oob", space="global") >= 3 and count(kind="oob", space="shared") >= 2
    assert count(kind="misaligned") >= 2 and count(kind="use_after_free") >= 1 and count(kind="const_oob") >= 1


@pytest.mark.parametrize("bug", BUGS)
def test_manifest_entry_is_well_formed(bug):
    assert bug["fixed"] == bug["name"] + "_fixed"
    assert bug["tool"] in bugs.TOOLS and bug["kind"] in KINDS
    assert bug["predicted"] in ("reported", "not reported")
    if bug["kind"] == "race":
        assert bug["hazard"] and set(bug["hazard"]) <= {"RAW", "WAR", "WAW"} and bug["scope"] in ("block", "warp", "grid")
    args = {e.name for e in load(bugs.path(bug["name"], ".toml")).args}
    for key, names in bug.get("host", {}).items():
        assert key in ("uninitialised", "freed") and set(names) <= args, (key, names)


@pytest.mark.parametrize("bug", BUGS)
def test_planted_lines_carry_the_bug_marker(bug):
    marked = [i for i, line in enumerate(bugs.path(bug["name"], ".cu").read_text().splitlines(), 1)
              if "// BUG" in line]
    assert marked == bug["lines"]
    assert "// BUG" not in bugs.path(bug["fixed"], ".cu").read_text()


@pytest.mark.parametrize("kernel", KERNELS)
def test_kernel_files_agree(kernel):
    cu, ptx = bugs.path(kernel, ".cu").read_text(), bugs.path(kernel, ".ptx").read_text()
    assert re.search(rf'extern "C" __global__ void {kernel}\(', cu)
    assert re.findall(r"\.entry\s+(\w+)", ptx) == [kernel]
    assert f'.file\t1 "{kernel}.cu"' in ptx                       # normalised as programs/regenerate.py does
    spec = load(bugs.path(kernel, ".toml"))
    assert spec.name == kernel and spec.launch().kernel == kernel and spec.reference_function
    module, _ = gpusim.load_module(bugs.path(kernel, ".ptx"))
    check_args(spec, module.kernel(kernel), cuda_kernels(cu)[kernel])   # names, kinds, widths of the params


@pytest.mark.parametrize("bug", BUGS)
def test_planted_lines_are_in_the_ptx_line_info(bug):
    ptx = bugs.path(bug["name"], ".ptx").read_text()
    locs = {int(n) for n in re.findall(r"\.loc\s+1\s+(\d+)\s", ptx)}
    assert set(bug["lines"]) <= locs, sorted(set(bug["lines"]) - locs)


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not installed")
@pytest.mark.parametrize("kernel", ["race_scan_war", "shfl_inactive_lanes_fixed"])
def test_nvcc_reproduces_the_checked_in_ptx(kernel, tmp_path):
    from programs.bugs.regenerate import _programs_regenerate
    out = tmp_path / f"{kernel}.ptx"
    regen = _programs_regenerate()
    regen.build_ptx(bugs.path(kernel, ".cu"), out)
    # the .debug_str section holds nvcc's path-dependent hash of inlined names: compare the code
    assert regen.without_debug_strings(out.read_text()) == \
        regen.without_debug_strings(bugs.path(kernel, ".ptx").read_text())


@pytest.mark.parametrize("bug", BUGS)
def test_fixed_twin_matches_its_reference_in_emulation(bug):
    res = gpusim.run(str(bugs.path(bug["fixed"], ".ptx")), mode="emulate", check=True)
    assert res.check.ok, res.check.message


def test_host_programs_apply_the_host_setup():
    def source(kernel):
        return hostgen.host_source(kernel, load(bugs.path(kernel, ".toml")), bugs.host_setup(kernel))

    freed = source("use_after_free")
    launch = freed.index("use_after_free<<<dim3(2, 1, 1), dim3(128, 1, 1), 0>>>(")
    assert "CHECK(cudaFree(d_in));" in freed[:launch] and 'save(out_dir, "in"' not in freed
    assert "CHECK(cudaFree(d_in))" not in source("use_after_free_fixed")
    uninit = source("uninit_global_accumulate")
    assert 'load(in_dir, "out"' not in uninit and 'load(in_dir, "a"' in uninit
    assert bugs.host_setup("uninit_global_accumulate_fixed") == {"uninitialised": ["out"]}


# -- the records ------------------------------------------------------------------------------------------
def test_records_cover_every_kernel_and_tool():
    assert list(REPORTS) == KERNELS
    for kernel in KERNELS:
        assert set(REPORTS[kernel]["tools"]) == set(bugs.TOOLS)
        for tool in bugs.TOOLS:
            assert collect.raw_path(kernel, tool).exists(), (kernel, tool)
            run = REPORTS[kernel]["tools"][tool]
            if run["truncated"]:            # the head and tail of a report over 8 MiB; the summary is whole
                assert run["errors"] < run["full_errors"] and run["full_log_bytes"] > 8 << 20
                assert run["racecheck_summary"]["count"] == run["full_errors"]
    assert sum(r["truncated"] for k in KERNELS for r in REPORTS[k]["tools"].values()) == 1


def test_provenance_names_the_gpu_and_the_tools():
    import json
    prov = json.loads((collect.GOLDEN / "provenance.json").read_text())
    assert "H100" in prov["gpu"] and "580." in prov["gpu"]
    assert "CUDA Version: 13.0" in prov["nvidia_smi_header"]
    assert re.search(r"Version 20\d\d\.\d", prov["compute_sanitizer"]) and "release 13.0" in prov["nvcc"]
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", prov["date_utc"])
    assert "--racecheck-report" in prov["options"]["racecheck"] and "--print-limit" in prov["options"]["memcheck"]
    assert not prov["skipped"]


@pytest.mark.parametrize("kernel", KERNELS)
def test_reports_json_is_the_parse_of_the_raw_reports(kernel):
    for tool in bugs.TOOLS:
        stored = {k: v for k, v in REPORTS[kernel]["tools"][tool].items()
                  if k not in ("rc", "timed_out", "wall_s", "truncated", "full_log_bytes", "full_errors")}
        assert collect.parsed_report(collect.read_raw(kernel, tool), tool) == stored, tool


@pytest.mark.parametrize("kernel", KERNELS)
def test_the_device_ran_the_launch_files_inputs(kernel):
    assert REPORTS[kernel]["inputs_sha256"] == collect.inputs_digest(kernel)


@pytest.mark.parametrize("bug", BUGS)
def test_manifest_says_what_compute_sanitizer_reported(bug):
    recorded = {k: v for k, v in bug["sanitizer"].items() if k != "note"}
    assert recorded == collect.observed(bug, REPORTS)


@pytest.mark.parametrize("bug", BUGS)
def test_compute_sanitizer_names_planted_lines_only(bug):
    obs, run = bug["sanitizer"], REPORTS[bug["name"]]["tools"][bug["tool"]]
    if obs["found"]:
        assert obs["lines"] and set(obs["lines"]) <= set(bug["lines"])
        if obs["lines"] != bug["lines"]:
            assert bug["sanitizer"].get("note"), "say why compute-sanitizer names only some planted lines"
    else:
        assert run["timed_out"] or is_clean(run), run["findings"]
        assert bug["sanitizer"].get("note"), "say why compute-sanitizer misses it"


@pytest.mark.parametrize("bug", BUGS)
def test_fixed_twin_is_clean_on_the_h100(bug):
    rec = REPORTS[bug["fixed"]]
    for tool, run in rec["tools"].items():
        assert run["rc"] == 0 and not run["timed_out"] and is_clean(run), (tool, run["findings"])
        assert run["racecheck_summary"] in (None, {"count": 0, "errors": 0, "warnings": 0})
    assert rec["native"]["rc"] == 0 and rec["native"]["output"] == "right"


def test_readme_table_is_current():
    text = collect.README.read_text()
    body = text[text.index(collect.TABLE_BEGIN) + len(collect.TABLE_BEGIN):text.index(collect.TABLE_END)]
    assert body.strip() == collect.table(REPORTS).strip(), "python -m programs.bugs.sanitizer.collect --readme"


# -- the parser -------------------------------------------------------------------------------------------
P = "========="


def test_parse_memcheck_records():
    text = "\n".join([
        f"{P} COMPUTE-SANITIZER",
        f"{P} Invalid __global__ read of size 4 bytes",
        f"{P}     at oob+0xa0 in /root/x/oob.cu:9",
        f"{P}     by thread (104,0,0) in block (7,0,0)",
        f"{P}     Access to 0x7f75fc800fa0 is out of bounds",
        f"{P}     and is 1 bytes after the nearest allocation at 0x7f75fc800000 of size 4,000 bytes",
        f"{P}     Saved host backtrace up to driver entry point at kernel launch time",
        f"{P}         Host Frame: main [0xa81b] in oob",
        f"{P} ",
        f"{P} Invalid __shared__ read of size 16 bytes",
        f"{P}     at mis+0x8a0 in mis.cu:19",
        f"{P}     by thread (1,0,0) in block (0,0,0)",
        f"{P}     Address 0x414 is misaligned",
        f"{P} ",
        f'{P} Program hit cudaErrorLaunchFailure (error 719) due to "unspecified launch failure" on CUDA API '
        f"call to cudaDeviceSynchronize.",
        f"{P} ",
        f"{P} Target application returned an error",
        f"{P} ERROR SUMMARY: 3 errors"])
    r = parse_report(text, "memcheck")
    assert r["error_summary"] == 3 and r["errors"] == 3 and r["lines"] == [9, 19] and not is_clean(r)
    oob, mis, api = r["findings"]
    assert (oob["cls"], oob["space"], oob["op"], oob["size"], oob["file"], oob["kernel"]) == \
        ("out_of_bounds", "__global__", "read", 4, "oob.cu", "oob")
    assert oob["threads"] == [[104, 0, 0]] and oob["blocks"] == [[7, 0, 0]]
    assert oob["nearest"] == {"distance": 1, "relation": "after", "base": "0x7f75fc800000", "size": 4000}
    assert (mis["cls"], mis["size"], mis["addresses"]) == ("misaligned", 16, ["0x414"])
    assert api["kind"] == "api_error" and api["call"] == "cudaDeviceSynchronize"


def test_parse_racecheck_records():
    text = "\n".join([
        f"{P} Warning: (Warp Level Programming) Potential RAW hazard detected at __shared__ 0x440 in block (2,0,0) :",
        f"{P}     Write Thread (16,0,0) at red+0x180 in red.cu:21",
        f"{P}     Read Thread (0,0,0) at red+0x1a0 in red.cu:22",
        f"{P}     Current Value : 173",
        f"{P} ",
        f"{P} Error: Potential WAW hazard detected at __shared__ 0x0 in block (0,0,0) :",
        f"{P}     Write Thread (1,0,0) at k(int *, int)+0x50 in k.cu:7",
        f"{P}     Write Thread (0,0,0) at k(int *, int)+0x50 in k.cu:7",
        f"{P}     Current Value : 1, Incoming Value : 2",
        f"{P} ",
        f"{P} Error: Race reported between Write access at m+0x480 in m.cu:19",
        f"{P}     and Read access at m+0x340 in m.cu:22 [1,024 hazards]",
        f"{P}     and Read access at m+0x370 in m.cu:22 [384 hazards]",
        f"{P} ",
        f"{P} RACECHECK SUMMARY: 3 hazards displayed (2 errors, 1 warning)"])
    r = parse_report(text, "racecheck")
    warp, waw, race = r["findings"]
    assert (warp["cls"], warp["severity"], warp["scope"], warp["lines"]) == \
        ("RAW", "Warning", "Warp Level Programming", [21, 22])
    assert warp["accesses"] == [{"access": "Write", "line": 21}, {"access": "Read", "line": 22}]
    assert (waw["cls"], waw["kernel"], waw["lines"], waw["threads"]) == ("WAW", "k", [7], [[1, 0, 0], [0, 0, 0]])
    assert race["kind"] == "race" and race["hazards"] == 1408 and race["lines"] == [19, 22]
    assert race["accesses"] == [{"access": "Write", "line": 19}, {"access": "Read", "line": 22}]
    assert r["racecheck_summary"] == {"count": 3, "errors": 2, "warnings": 1} and r["error_summary"] is None


def test_parse_synccheck_and_deadlock_records():
    text = "\n".join([
        f"{P} Barrier error detected. Invalid arguments.",
        f"{P}     at __syncwarp(unsigned int)+0x150 in sm_30_intrinsics.hpp:110",
        f"{P}     by thread (0,0,0) in block (0,0,0)",
        f"{P}         Device Frame: caller+0x150 in caller.cu:16",
        f"{P} ",
        f"{P} Deadlock detected in Barrier called by threads starting at (32,0,0) in block (0,0,0), "
        f"(active mask: 0xffffffff) at loop+0x5a0 in loop.cu:17",
        f"{P} Warning: Detected possible deadlock in synchronization call. If you think this might be a "
        f"false positive, try increasing a deadlock timeout.",
        f"{P} "])
    r = parse_report(text, "synccheck")
    barrier, deadlock = r["findings"]
    assert (barrier["kind"], barrier["cls"], barrier["file"], barrier["lines"]) == \
        ("barrier", "Invalid arguments.", "caller.cu", [16])            # the inlined-from frame, not the header
    assert (deadlock["kind"], deadlock["cls"], deadlock["lines"]) == ("deadlock", "Barrier", [17])
    assert r["errors"] == 2


def test_parse_initcheck_and_a_clean_report():
    text = "\n".join([
        f"{P} Uninitialized __global__ memory read of size 4 bytes",
        f"{P}     at acc+0xe0 in acc.cu:11",
        f"{P}     by thread (96,0,0) in block (0,0,0)",
        f"{P}     Address 0x7f1a86800580",
        f"{P} ",
        f"{P} ERROR SUMMARY: 1 error"])
    (f,) = parse_report(text, "initcheck")["findings"]
    assert (f["kind"], f["space"], f["size"], f["lines"], f["addresses"]) == \
        ("uninitialized", "__global__", 4, [11], ["0x7f1a86800580"])
    clean = parse_report(f"{P} COMPUTE-SANITIZER\n{P} ERROR SUMMARY: 0 errors\n", "memcheck")
    assert is_clean(clean) and clean["findings"] == [] and clean["error_summary"] == 0
