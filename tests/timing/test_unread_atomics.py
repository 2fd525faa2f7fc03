"""An atom whose result nothing reads is timed as the RED ptxas makes of it (isa.aggregate's ``result_unread``):
no register waits for it, the L2 takes it on its no-return path, and Nsight's counters name it ``op_red``.

Float atomics at per-lane addresses, so no warp aggregation is involved; h100 preset.
"""
import numpy as np

import gpusim

HEAD = ".version 8.0\n.target sm_90\n.address_size 64\n"


def kernel(body: str) -> str:
    return (HEAD + ".visible .entry k(.param .u64 po)\n{\n"
            " .reg .b32 %r<4>; .reg .f32 %f<12>; .reg .b64 %rd<8>;\n"
            " ld.param.u64 %rd1, [po]; cvta.to.global.u64 %rd2, %rd1;\n"
            " mov.u32 %r1, %tid.x; mul.wide.u32 %rd3, %r1, 4; add.s64 %rd4, %rd2, %rd3;\n"
            " mov.f32 %f1, 0f3F800000;\n" + body + "\n ret;\n}\n")


def run(body: str):
    out = np.zeros(256, dtype=np.float32)
    res = gpusim.run(kernel(body), kernel="k", grid=(4, 1, 1), block=(256, 1, 1), args=[out], mode="timing",
                     gpu="h100")
    return res.timing, res.args[0]


UNREAD = " ".join(f"atom.global.add.f32 %f{2 + i}, [%rd4], %f1;" for i in range(8))
RED = " ".join("red.global.add.f32 [%rd4], %f1;" for _ in range(8))
READ = UNREAD + " add.f32 %f10, %f2, %f9; st.global.f32 [%rd4], %f10;"


def test_an_atom_nothing_reads_times_and_counts_exactly_as_red():
    (t_unread, out_unread), (t_red, out_red) = run(UNREAD), run(RED)
    assert t_unread.cycles == t_red.cycles
    for k in ("l1tex__t_requests_pipe_lsu_mem_global_op_red.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum",
              "lts__t_sectors_op_red.sum", "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio"):
        assert t_unread.counters[k] == t_red.counters[k], k
    assert t_unread.counters["l1tex__t_requests_pipe_lsu_mem_global_op_red.sum"] == 4 * 8 * 8    # 32 warps x 8
    assert t_unread.counters["l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum"] == 0
    assert np.array_equal(out_unread, out_red) and out_red[0] == 4 * 8


def test_an_atom_whose_result_is_read_is_an_atom_with_a_result_to_wait_for():
    t_read, _ = run(READ)
    t_unread, _ = run(UNREAD)
    c = t_read.counters
    assert c["l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum"] == 4 * 8 * 2      # %f2 and %f9 are read
    assert c["l1tex__t_requests_pipe_lsu_mem_global_op_red.sum"] == 4 * 8 * 6
    assert c["lts__t_sectors_op_atom.sum"] == 4 * 8 * 2 * 4 and c["lts__t_sectors_op_red.sum"] == 4 * 8 * 6 * 4
    assert t_read.cycles > t_unread.cycles
