"""Theoretical occupancy: every worked example of the seeds, and cross-checks against CUDA's occupancy
calculator (``cudaOccupancyMaxActiveBlocksPerMultiprocessor``, algorithm in shared/HARDWARE.md section 5).

Seed 000 is shared/seeds/000_13498b25b9d42689.txt (PMPP ch. 4-5 notes), seed 001 is
shared/seeds/001_9cac806ec0d29a33.txt (study notes).
"""
from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from gpusim.config import load_gpu
from gpusim.errors import LaunchError
from gpusim.timing.occupancy import driver_carveout_bytes, occupancy

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "h100"
MICRO = GOLDEN / "micro"

DEVICE_D = load_gpu("pmpp-device-d")
A100 = load_gpu("a100")
H100 = load_gpu("h100")

# Seed 001's second example device: "64 kb shared memory per SM", "2048 threads / sm", and the 32 blocks
# per SM that its shared-memory arithmetic reaches; otherwise device D's ungranular allocation.
SEED_001_64KB_DEVICE = load_gpu("pmpp-device-d", overrides={
    "sm.max_threads": 2048, "sm.max_warps": 64, "sm.max_blocks": 32,
    "sm.registers": 65536, "sm.max_registers_per_block": 65536,
    "sm.shared_bytes_per_sm": 65536, "sm.shared_bytes_per_block": 65536,
    "sm.shared_bytes_per_block_optin": 65536, "sm.shared_carveout_kb": [64], "sm.l1_shared_bytes": 65536,
})

TILE_16_SHARED_BYTES = 2 * 16 * 16 * 4     # Mds + Nds, float
# The seeds leave registers out of their thread and shared-memory examples; those tests use few enough
# registers per thread that the register file is not (also) the binding limit.
TILE_32_SHARED_BYTES = 2 * 32 * 32 * 4


# --- device D (seed 000, register and shared-memory sections) ------------------------------------------

def test_device_d_10_registers_fill_all_1536_threads():
    """Seed 000: "to support 1536 threads, each thread can only use 16384/1536 = 10.667 registers → 10
    registers per thread"."""
    occ = occupancy(DEVICE_D, 512, regs_per_thread=10)
    assert occ.blocks_per_sm == 3
    assert occ.active_warps_per_sm * 32 == 1536
    assert occ.occupancy_pct == 100.0


def test_device_d_11_registers_lose_a_whole_512_thread_block():
    """Seed 000: "if each thread uses 11 registers ... the next smaller number of threads is 1536 - 512 =
    1024, which is a 1- (1024/1536) = 1/3 reduction"."""
    occ = occupancy(DEVICE_D, 512, regs_per_thread=11)
    assert occ.blocks_per_sm == 2
    assert occ.active_warps_per_sm * 32 == 1024
    assert occ.limiting == ("registers",)
    assert occ.occupancy_pct == pytest.approx(100 * 2 / 3)


def test_device_d_5kb_blocks_fit_three_per_sm():
    """Seed 000: "if each block uses 5K bytes, then no more than 3 blocks (15K bytes) can be assigned to each
    SM"."""
    occ = occupancy(DEVICE_D, 64, regs_per_thread=10, shared_static_bytes=5 * 1024)
    assert occ.blocks_per_sm == 3
    assert occ.limiting == ("shared_mem",)
    assert occ.blocks_per_sm * occ.shared_bytes_per_block_allocated == 15 * 1024


def test_device_d_2kb_blocks_reach_the_8_block_limit_of_shared_memory():
    """Seed 000: "so to reach this maximum of 16K bytes, each block can't use more than 2K bytes of shared
    memory"."""
    assert occupancy(DEVICE_D, 64, 10, shared_static_bytes=2048).limit_shared_mem == 8
    assert occupancy(DEVICE_D, 64, 10, shared_static_bytes=2049).limit_shared_mem == 7


def test_device_d_tile_width_16_is_limited_by_threads_not_shared_memory():
    """Seed 000: "for TILE_WIDTH = 16 ... each block uses 2KB of shared memory ... the 16KB shared memory
    allows for 8 blocks ... the real limitation is the threading hardware limitation that only allows 1536
    threads in each SM → this limits the number of blocks in each SM to 6 ... so only 6 * 2KB = 12KB of
    shared memory will be used"."""
    occ = occupancy(DEVICE_D, (16, 16), regs_per_thread=8, shared_static_bytes=TILE_16_SHARED_BYTES)
    assert occ.limit_shared_mem == 8
    assert occ.limit_warps == 6
    assert occ.blocks_per_sm == 6
    assert occ.limiting == ("warps",)
    assert occ.blocks_per_sm * occ.shared_bytes_per_block_allocated == 12 * 1024


# --- 8x8 / 16x16 / 32x32 blocks on the 8-block, 1536-thread SM (seed 001) ---------------------------------

def test_8x8_blocks_hit_the_8_block_limit_with_512_of_1536_threads():
    """Seed 001: "each sm can take 1536 / 64 = 24 blocks ... 但是sm限制最多8个block，也就是最多 8 * 64 = 512
    threads ( out of 1536 threads ) go into one sm"."""
    occ = occupancy(DEVICE_D, (8, 8), regs_per_thread=10)
    assert occ.limit_warps == 24
    assert occ.blocks_per_sm == 8
    assert occ.limiting == ("blocks",)
    assert occ.active_warps_per_sm * 32 == 512
    assert occ.occupancy_pct == pytest.approx(100 / 3)


def test_16x16_blocks_use_the_full_thread_and_block_capacity():
    """Seed 001: "each sm can take 1536 / 256 = 6 blocks (小于block/sm的限制) 可以在硬件上使用full threads"."""
    occ = occupancy(DEVICE_D, (16, 16), regs_per_thread=10)
    assert occ.blocks_per_sm == 6
    assert occ.occupancy_pct == 100.0


def test_32x32_blocks_leave_a_third_of_the_threads_idle():
    """Seed 001: "1024 threads per block / each sm can take 1 block ... 无法使用full threads"."""
    occ = occupancy(DEVICE_D, (32, 32), regs_per_thread=8)
    assert occ.blocks_per_sm == 1
    assert occ.active_warps_per_sm * 32 == 1024
    assert occ.limiting == ("warps",)


def test_seed_001_tile_width_16_on_64kb_sm():
    """Seed 001: "TILE_WIDTH 16 ... each block 使用 2 * 16 * 16 * 4 bytes = 2048 bytes shared memory ...
    64 kb / 2048 bytes/block = max 32 block per sm due to share memory constrain; 2048 threads / (16*16) = 8
    block per sm due to threads limit"."""
    occ = occupancy(SEED_001_64KB_DEVICE, (16, 16), regs_per_thread=16, shared_static_bytes=TILE_16_SHARED_BYTES)
    assert occ.limit_shared_mem == 32
    assert occ.limit_warps == 8
    assert occ.blocks_per_sm == 8


def test_seed_001_tile_width_32_on_64kb_sm():
    """Seed 001: "TILE_WIDTH 32 ... 2 * 32 * 32 * 4 bytes = 8kb ... 64/8 = max 8 block per sm due to share
    memory constrain; 2048 / (32*32) = 2 block per sm due to threads limit"."""
    occ = occupancy(SEED_001_64KB_DEVICE, (32, 32), regs_per_thread=16, shared_static_bytes=TILE_32_SHARED_BYTES)
    assert occ.limit_shared_mem == 8
    assert occ.limit_warps == 2
    assert occ.blocks_per_sm == 2
    assert occ.limiting == ("warps",)


# --- A100 (seed 000, "Resource partitioning and occupancy") ----------------------------------------------

@pytest.mark.parametrize("threads, blocks", [(1024, 2), (512, 4), (256, 8), (128, 16), (64, 32)])
def test_a100_block_sizes_that_divide_2048_threads_reach_full_occupancy(threads, blocks):
    """Seed 000: "the 2048 thread slots are partitioned and assigned to 2048/512 = 4, 2048/256 = 8,
    2048/128 = 16, or 2048/64 = 32 blocks, respectively"; 1024 threads: "assigned to 2 blocks"."""
    occ = occupancy(A100, threads, regs_per_thread=32)
    assert occ.blocks_per_sm == blocks
    assert occ.occupancy_pct == 100.0


def test_a100_32_thread_blocks_run_out_of_block_slots_at_50_percent():
    """Seed 000: "each block has 32 threads ... only half the thread slots will be utilized (i.e. 32 blocks
    with 32 threads each) → occupancy is 1024 assigned threads / 2048 maximum threads = 50%"."""
    occ = occupancy(A100, 32, regs_per_thread=32)
    assert occ.blocks_per_sm == 32
    assert occ.limiting == ("blocks",)
    assert occ.occupancy_pct == 50.0


def test_a100_768_thread_blocks_reach_75_percent():
    """Seed 000: "if a block size of 768 is selected, the SM will be able to accommodate only floor(2048/768)
    = 2 full thread blocks ... The occupancy in this case is (1536 assigned threads)/(2,048 maximum threads)
    = 75%"."""
    occ = occupancy(A100, 768, regs_per_thread=16)
    assert occ.blocks_per_sm == 2
    assert occ.limiting == ("warps",)
    assert occ.occupancy_pct == 75.0


@pytest.mark.parametrize("threads", [64, 128, 256, 512, 768, 1024])
def test_a100_64_registers_cap_occupancy_at_50_percent_whatever_the_block_size(threads):
    """Seed 000: "if a kernel uses 64 registers per thread, the maximum number of threads that can be
    supported with 65,536 registers is 1024 threads ... the occupancy will be at most 50%"."""
    occ = occupancy(A100, threads, regs_per_thread=64)
    assert occ.active_warps_per_sm * 32 <= 1024
    assert occ.occupancy_pct <= 50.0
    assert "registers" in occ.limiting


def test_a100_performance_cliff_31_to_33_registers():
    """Seed 000: "a kernel that uses 31 registers per thread and configures it with 512 threads per block
    ... 4 blocks running simultaneously" then "bumping the number of registers used by each thread to 33
    ... assigning only 3 blocks to each SM instead of 4 ... a reduction in occupancy from 100% to 75%. This
    is sometimes referred to as a “performance cliff,”"."""
    before = occupancy(A100, 512, regs_per_thread=31)
    after = occupancy(A100, 512, regs_per_thread=33)
    assert (before.blocks_per_sm, before.occupancy_pct) == (4, 100.0)
    assert (after.blocks_per_sm, after.occupancy_pct) == (3, 75.0)
    assert after.limiting == ("registers",)


def test_cliff_without_allocation_granularity_uses_the_seeds_register_count():
    """Seed 000: "assigning only 3 blocks ... thus reducing the number of registers required to 50,688
    registers" (3 x 512 x 33: the seeds count registers without the 256-register per-warp rounding)."""
    a100_ungranular = A100.replace(**{"sm.register_alloc_unit": 32})
    occ = occupancy(a100_ungranular, 512, regs_per_thread=33)
    assert occ.blocks_per_sm == 3
    assert occ.blocks_per_sm * occ.registers_per_block_allocated == 50_688


# --- H100 cross-checks against CUDA's occupancy calculator -------------------------------------------------

@pytest.mark.parametrize("threads, regs, static_smem, blocks, pct, limiting", [
    (256, 32, 0, 8, 100.0, ("warps", "registers")),
    (256, 64, 0, 4, 50.0, ("registers",)),
    (256, 32, 48 * 1024, 4, 50.0, ("shared_mem",)),        # 48 KB + 1 KB reserved = 50176 B; 233472 // 50176
    (1024, 32, 0, 2, 100.0, ("warps", "registers")),
    (128, 16, 0, 16, 100.0, ("warps",)),                    # 16 x 32 = 512 regs/warp: registers allow 32
    (96, 40, 0, 16, 75.0, ("registers",)),                  # 1280 regs/warp: 12 warps per 16K bank, 48 // 3
    (256, 255, 0, 1, 12.5, ("registers",)),                 # 8160 -> 8192 regs/warp, 2 warps per bank
    (64, 16, 0, 32, 100.0, ("blocks", "warps")),
    (1, 1, 0, 32, 50.0, ("blocks",)),
])
def test_h100_matches_cuda_occupancy_calculator(threads, regs, static_smem, blocks, pct, limiting):
    occ = occupancy(H100, threads, regs, shared_static_bytes=static_smem)
    assert occ.blocks_per_sm == blocks
    assert occ.occupancy_pct == pct
    assert occ.limiting == limiting


def test_h100_allocation_granularity_is_visible_in_the_allocated_sizes():
    occ = occupancy(H100, 256, regs_per_thread=33, shared_static_bytes=1000)
    assert occ.registers_per_block_allocated == 8 * 1280       # 33 x 32 = 1056 -> 1280 per warp
    assert occ.shared_bytes_per_block_allocated == 2048        # 1000 + 1024 reserved -> 2048


def test_h100_registers_per_block_above_64k_give_zero_blocks():
    """512 threads x 255 registers (8192 per warp after rounding) need 131072 registers: CUDA refuses the
    launch ("too many resources requested") and its occupancy API returns 0."""
    occ = occupancy(H100, 512, regs_per_thread=255)
    assert occ.blocks_per_sm == 0 and occ.limiting == ("registers",)


def test_h100_dynamic_shared_memory_above_48kb_needs_the_optin():
    without = occupancy(H100, 256, 32, shared_dynamic_bytes=100 * 1024)
    assert without.blocks_per_sm == 0
    assert without.limiting == ("shared_mem",)
    with_optin = occupancy(H100, 256, 32, shared_dynamic_bytes=100 * 1024, optin=True)
    assert with_optin.blocks_per_sm == 2                       # 233472 // (102400 + 1024)
    assert occupancy(H100, 256, 32, shared_dynamic_bytes=227 * 1024, optin=True).blocks_per_sm == 1
    assert occupancy(H100, 256, 32, shared_dynamic_bytes=227 * 1024 + 1, optin=True).blocks_per_sm == 0


def test_static_shared_memory_cannot_use_the_optin():
    assert occupancy(H100, 256, 32, shared_static_bytes=48 * 1024 + 128, optin=True).blocks_per_sm == 0


def test_h100_carveout_preference_limits_shared_memory_blocks():
    occ = occupancy(H100, 64, 16, shared_static_bytes=10 * 1024, carveout_kb=32)
    assert occ.shared_bytes_per_sm_configured == 32 * 1024
    assert occ.limit_shared_mem == 2                           # 32768 // (10240 + 1024)


def test_carveout_too_small_for_one_block_moves_to_the_next_step():
    occ = occupancy(H100, 64, 16, shared_static_bytes=10 * 1024, carveout_kb=8)
    assert occ.shared_bytes_per_sm_configured == 16 * 1024
    assert occ.limit_shared_mem == 1


def test_h100_barrier_slots_limit_blocks_that_use_many_named_barriers():
    occ = occupancy(H100, 64, 16, barriers_per_block=4)
    assert occ.limit_barriers == 16                            # 64 slots // 4
    assert occ.blocks_per_sm == 16 and occ.limiting == ("barriers",)
    assert occupancy(A100, 64, 16, barriers_per_block=4).limit_barriers is None


def test_counters_use_nsight_compute_names():
    occ = occupancy(H100, 256, 64, n_blocks=132 * 4 * 3)
    assert occ.as_counters() == {
        "launch__occupancy_limit_blocks": 32,
        "launch__occupancy_limit_registers": 4,
        "launch__occupancy_limit_shared_mem": 16,               # the driver's 16 KB carve-out // 1 KB reserved
        "launch__occupancy_limit_warps": 8,
        "launch__occupancy_limit_barriers": 32,                 # 64 slots, reported capped at the 32 blocks
        "launch__shared_mem_config_size": 16 * 1024,            # room for 4 x 4 blocks of 1 KB
        "sm__maximum_warps_per_active_cycle_pct": 50.0,
        "launch__waves_per_multiprocessor": 3.0,
    }
    assert "launch__occupancy_limit_barriers" not in occupancy(A100, 256, 64).as_counters()


def test_waves_are_infinite_when_no_block_fits():
    assert math.isinf(occupancy(H100, 512, 255, n_blocks=10).waves_per_sm)


@pytest.mark.parametrize("kwargs, message", [
    (dict(threads_per_block=1025, regs_per_thread=32), r"1025 threads per block exceeds h100's limit of 1024"),
    (dict(threads_per_block=(32, 33), regs_per_thread=32), r"1056 threads per block"),
    (dict(threads_per_block=0, regs_per_thread=32), r"block: dimensions must be positive"),
    (dict(threads_per_block=256, regs_per_thread=256), r"regs_per_thread: 256 is outside 0\.\.255"),
    (dict(threads_per_block=256, regs_per_thread=32, shared_dynamic_bytes=-1), r"shared_dynamic_bytes"),
    (dict(threads_per_block=256, regs_per_thread=32, carveout_kb=50), r"carveout_kb: 50 KB is not a carve-out"),
    (dict(threads_per_block=256, regs_per_thread=32, n_blocks=0), r"n_blocks"),
])
def test_invalid_launches_are_launch_errors(kwargs, message):
    with pytest.raises(LaunchError, match=message):
        occupancy(H100, **kwargs)


# --- the driver's carve-out, as Nsight Compute reports it (gpusim/hw/README.md, "The carve-out rule") ------

@pytest.mark.parametrize("threads, regs, shared, config_kb, limit_shared_mem", [
    (256, 16, 0, 32, 32),           # occ 8, no shared memory: room for 4 x 8 = 32 blocks of 1 KB
    (256, 16, 1024, 32, 16),        # 2 KB per block, 2 x 8 = 16 blocks
    (256, 16, 2048, 64, 21),        # 3 KB x 16 = 48 KB -> 64 KB
    (256, 16, 8192, 132, 14),       # 9 KB x 16 = 144 KB, but past 132 KB only for the 8 blocks occ needs
    (256, 16, 16384, 164, 9),       # 17 KB x 8 = 136 KB -> 164 KB: occ's own blocks may go above 132 KB
    (1024, 32, 4096, 16, 3),        # 1024 threads: room for occ = 2 blocks of 5 KB only
    (256, 64, 48 * 1024, 196, 4),   # 49 KB: 8 blocks (2 x occ 4) do not fit, the 4 that do need 196 KB
])
def test_h100_driver_carveout_examples(threads, regs, shared, config_kb, limit_shared_mem):
    assert driver_carveout_bytes(H100, threads, regs, shared) == config_kb * 1024
    occ = occupancy(H100, threads, regs, shared_static_bytes=shared)
    assert occ.shared_bytes_per_sm_configured == config_kb * 1024
    assert occ.limit_shared_mem == limit_shared_mem
    assert occ.l1_bytes_per_sm == 256 * 1024 - config_kb * 1024


@pytest.mark.parametrize("threads", [32, 64, 96, 128, 256, 384, 512, 768, 1024])
@pytest.mark.parametrize("regs", [16, 32, 40, 64, 128])
@pytest.mark.parametrize("shared", [0, 1000, 4096, 12 * 1024, 40 * 1024, 48 * 1024])
def test_driver_carveout_never_costs_resident_blocks(threads, regs, shared):
    """The driver's carve-out holds every block the largest one would: only the reported limit and the L1
    size move, never blocks_per_sm."""
    driver = occupancy(H100, threads, regs, shared_static_bytes=shared)
    largest = occupancy(H100, threads, regs, shared_static_bytes=shared, carveout_kb=228)
    assert driver.blocks_per_sm == largest.blocks_per_sm
    assert driver.limiting == largest.limiting
    assert driver.shared_bytes_per_sm_configured <= largest.shared_bytes_per_sm_configured


def test_driver_carveout_on_a_gpu_with_one_step_is_that_step():
    assert driver_carveout_bytes(DEVICE_D, 256, 10, 2048) == 16 * 1024
    assert driver_carveout_bytes(DEVICE_D, 256, 10, 0) == 16 * 1024


def _micro_carveout_launches() -> list[dict]:
    """Every default-preference launch of the carve-out microbenchmarks, as ncu reported it."""
    out = []
    for name in ("carveout", "carveout2", "carveout3", "clocks"):
        doc = json.loads((MICRO / f"{name}.json").read_text())
        for block in ([doc["ncu"]] if "ncu" in doc else [doc["ncu_base"], doc["ncu_none"]]):
            for row in block["rows"]:
                x = row.get("ncu")
                if x and "launch__registers_per_thread" in x and "carveout_pref" not in row.get("case", {}):
                    out.append(x)
    return out


def test_driver_carveout_reproduces_every_h100_microbenchmark_launch():
    launches = _micro_carveout_launches()
    assert len(launches) >= 279
    for x in launches:
        shared = x["launch__shared_mem_per_block_static"] + x["launch__shared_mem_per_block_dynamic"]
        occ = occupancy(H100, int(x["launch__block_size"]), int(x["launch__registers_per_thread"]),
                        shared_static_bytes=int(x["launch__shared_mem_per_block_static"]),
                        shared_dynamic_bytes=int(x["launch__shared_mem_per_block_dynamic"]),
                        optin=shared > 48 * 1024)
        want = {k: x[k] for k in occ.as_counters() if k.startswith("launch__") and k in x}
        got = {k: v for k, v in occ.as_counters().items() if k in want}
        assert got == want, (x["kernel"], x["launch__block_size"], x["launch__registers_per_thread"], shared)


def _suite_records() -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted((GOLDEN / "suites").glob("*__*.json"))]


def test_occupancy_counters_equal_every_suite_record():
    """Every launch__* attribute ncu reported for the 159 suite launches, from the launch file's registers
    (ptxas's count: ncu reports at least 16, which allocates the same 512 registers per warp)."""
    import programs
    recs = _suite_records()
    assert len(recs) >= 159
    for rec in recs:
        c = rec["counters"]
        regs = programs.get(rec["program"]).registers(rec["kernel"])
        assert -(-regs * 32 // 256) == -(-c["launch__registers_per_thread"] * 32 // 256), rec["program"]
        occ = occupancy(H100, tuple(rec["block"]), regs, shared_static_bytes=c["launch__shared_mem_per_block_static"],
                        shared_dynamic_bytes=c["launch__shared_mem_per_block_dynamic"],
                        n_blocks=math.prod(rec["grid"]))
        got = occ.as_counters()
        for k, v in c.items():
            if k.startswith("launch__occupancy_limit_") or k == "launch__shared_mem_config_size":
                assert got[k] == v, (rec["program"], rec["size"], k, got[k], v)
        assert got["launch__waves_per_multiprocessor"] == pytest.approx(c["launch__waves_per_multiprocessor"],
                                                                         abs=0.006), (rec["program"], rec["size"])
