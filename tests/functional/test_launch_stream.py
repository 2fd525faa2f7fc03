"""A launch streamed batch by batch (gpusim.functional.stream), as a datasheet: what is left when a consumer
stops recording runs in the emulator's whole batches, with the same results, unless the kernel's blocks can
see one another."""
import numpy as np
import programs

from gpusim.api import load_module
from gpusim.functional.emulator import Emulator
from gpusim.functional.recorder import MEMORY, SECTORS
from gpusim.functional.stream import blocks_communicate


def stream(name, size, max_lanes=4096):
    spec = programs.get(name)
    module, _ = load_module(name)
    lnch = spec.launch(size)
    return Emulator(module, max_lanes=max_lanes).stream(
        lnch.kernel, lnch.grid, lnch.block, spec.make_args(size, 0), symbols=spec.make_symbols(size, 0),
        shared_mem=int(lnch.shared_mem or 0), regs_per_thread=spec.registers(lnch.kernel))


def test_what_is_left_after_cut_batches_runs_in_whole_batches_with_the_same_results():
    whole = stream("matmul_naive", "default").finish()
    s = stream("matmul_naive", "default")
    s.blocks_per_batch = 1                  # a consumer cut the batches for what it records
    s.next_batch(MEMORY)
    progress_blocks = []
    s.progress = lambda done, total, w: progress_blocks.append(done)
    out = s.finish()
    sizes = np.diff([1] + sorted(set(progress_blocks)))   # (a long batch also reports inside)
    assert sizes.max() == 4096 // 256       # max_lanes / threads per block
    for a, b in zip(out.args, whole.args):
        assert np.array_equal(a, b)
    assert out.stats.warp_instructions == whole.stats.warp_instructions
    assert np.array_equal(out.stats.pc_warp_counts, whole.stats.pc_warp_counts)


def test_a_kernel_whose_blocks_meet_in_global_atomics_keeps_the_cut_batches():
    s = stream("histogram_smem", "small")
    assert blocks_communicate(s.instructions)
    assert not blocks_communicate(stream("matmul_naive", "small").instructions)
    s.blocks_per_batch = 1
    progress_blocks = []
    s.progress = lambda done, total, w: progress_blocks.append(done)
    s.finish()
    assert sorted(set(progress_blocks)) == list(range(1, s.n_blocks + 1))


def test_blocks_run_ahead_are_handed_out_in_the_batches_and_with_the_records_of_a_stream_that_did_not():
    plain, ahead = stream("matmul_naive", "default", 16384), stream("matmul_naive", "default", 16384)
    for s in (plain, ahead):
        s.blocks_per_batch = 3              # cut, as a sample cuts it
    ran, handed = 0, 0
    while not plain.done:
        a = plain.next_batch(SECTORS)
        if handed:                          # a first batch measures the sectors a block records
            ran += ahead.run_ahead(SECTORS, 64)
        b = ahead.next_batch(SECTORS)
        handed += 1
        assert (a.first_block, a.n_blocks) == (b.first_block, b.n_blocks)
        assert np.array_equal(a.counts.warp_counts, b.counts.warp_counts)
        for kind in ("read", "write"):
            for blk in range(a.first_block, a.first_block + a.n_blocks):
                x, y = (getattr(r.sectors, kind + "_sector")[getattr(r.sectors, kind + "_block") == blk] for r in (a, b))
                assert np.array_equal(np.unique(x), np.unique(y))
    assert ran >= 64 and ahead.done
    assert ahead.finish().stats.warp_instructions == plain.finish().stats.warp_instructions


def test_a_kernel_whose_blocks_meet_is_not_run_ahead():
    s = stream("histogram_smem", "default", 16384)
    s.blocks_per_batch = 1
    s.next_batch(SECTORS)
    assert s.run_ahead(SECTORS, 64) == 0
