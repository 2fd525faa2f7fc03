"""The facade the timing model calls: latencies per level, caches, MSHRs, atomics, counters."""
import numpy as np
import pytest

from gpusim.config import load_gpu
from gpusim.memory.dram import Command, RowOutcome
from gpusim.memory.system import MemorySystem
from gpusim.timing.hooks import TimingObserver
from gpusim.timing.lsu import LsuFrontEnd

from memtrace import StandInGpu, make_trace, prepare

LANES = np.arange(32, dtype=np.int64)
H100 = load_gpu("h100")
A100 = load_gpu("a100")


def system(gpu=H100, sm_count=4):
    return MemorySystem(StandInGpu(gpu.memory, sm_count=sm_count, clock_mhz=gpu.clock_mhz))


def one_lane(addr):
    return [addr]


def pointer_chase(ms, addresses, sm=0, start=0, space="global", fields=None):
    """Dependent single-lane loads: each issues when the previous one's data is back."""
    trace = make_trace([(space, one_lane(a), fields or {}) for a in addresses])
    reqs = prepare(ms, trace)
    now, lat = start, []
    for slot in range(len(addresses)):
        ready, _ = ms.access(now, sm, reqs[slot])
        lat.append(ready - now)
        now = ready
    return lat


@pytest.mark.parametrize("gpu", [H100, A100], ids=["h100", "a100"])
def test_pointer_chase_reproduces_each_levels_latency_within_10_percent(gpu):
    m = gpu.memory
    ms = system(gpu)
    # lines in slices of SM 0's partition (near), 1 MB apart so every first touch misses L2 and opens a row
    near = [a for a in range(0, 1 << 34, 1 << 20) if ms.sm_partition[0] == ms.slice_partition[ms.slice_of(a // 32)]]
    far = [a + 128 for a in range(0, 1 << 34, 1 << 20)
           if ms.sm_partition[0] != ms.slice_partition[ms.slice_of((a + 128) // 32)]]
    chain = near[:64]
    dram = pointer_chase(ms, chain)                     # cold: DRAM
    ms_l2 = system(gpu)
    pointer_chase(ms_l2, chain, fields={"cache_op": ".cg"})
    l2_near = pointer_chase(ms_l2, chain, start=10**6, fields={"cache_op": ".cg"})
    # the far lines are brought in by an SM of their own partition (SM 3), so SM 0's chase finds them at home
    pointer_chase(ms_l2, far[:64], sm=3, start=2 * 10**6, fields={"cache_op": ".cg"})
    l2_far = pointer_chase(ms_l2, far[:64], start=3 * 10**6, fields={"cache_op": ".cg"})
    small = chain[:16]                                   # fits in L1
    l1 = pointer_chase(ms_l2, small, start=4 * 10**6) and pointer_chase(ms_l2, small, start=5 * 10**6)
    assert np.median(l1) == pytest.approx(m.l1.hit_latency_cycles, rel=0.10)
    assert np.median(l2_near) == pytest.approx(m.l2.hit_latency_near_cycles, rel=0.10)
    assert np.median(l2_far) == pytest.approx(m.l2.hit_latency_far_cycles, rel=0.10)
    # DRAM: the L2 hit path (SM cycles) plus the controller and core (ns)
    dram_cycles = m.l2.hit_latency_near_cycles + m.dram.latency_ns * gpu.clock_mhz / 1000
    assert np.median(dram) == pytest.approx(dram_cycles, rel=0.10)


def test_shared_load_latency_and_conflicts_cost_pipe_cycles():
    ms = system()
    trace = make_trace([("shared", LANES * 4, {}), ("shared", LANES * 128, {})])
    lsu = LsuFrontEnd(ms.gpu)
    reqs = prepare(ms, trace, lsu)
    r0, busy0 = ms.access(0, 0, reqs[0])
    r1, busy1 = ms.access(1000, 0, reqs[1])
    assert (r0, busy0) == (H100.memory.shared.latency_cycles, 1)
    assert busy1 == 32 and r1 - 1000 == H100.memory.shared.latency_cycles + 31
    assert lsu.counters()["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"] == 31


@pytest.mark.parametrize("stride_words, lines, busy_cycles", [
    (1, 1, 1),       # one line, 32 banks
    (9, 9, 3),       # 9 lines, no two lanes in one bank: the tag stage, 4 lines a cycle
    (33, 32, 8),     # 32 lines in 32 banks: 8.36 cycles per request on the H100
    (8, 8, 8),       # 8 lines, 8 lanes in each of 4 banks: the data stage, 8 wavefronts (7.96-8.00)
    (32, 32, 32),    # 32 lines, every lane in bank 0: 32 wavefronts (31.7-32.0)
])
def test_an_l1_hit_holds_the_l1_for_its_lines_over_four_or_its_bank_wavefronts(stride_words, lines, busy_cycles):
    # tests/golden/h100/micro/l1gather.json: one SM's loop of L1-resident gathers, cycles per request
    ms = system()
    trace = make_trace([("global", 4096 + LANES * 4 * stride_words, {})] * 2)
    reqs = prepare(ms, trace)
    assert reqs[1].lines == lines
    ms.access(0, 0, reqs[0])                              # brings the lines into L1
    ready, busy = ms.access(10**5, 0, reqs[1])
    assert busy == busy_cycles
    assert ready - 10**5 == H100.memory.l1.hit_latency_cycles + busy_cycles - 1


@pytest.mark.parametrize("stride_words, size, port_cycles", [
    (1, 4, 4),       # one line, 4 whole sectors: 4 beats (H100: 4.0 cycles per store at 32 warps)
    (16, 16, 16),    # float4s, 4 whole lines: 16 beats (16.0)
    (8, 4, 40),      # 8 lines of four 4 B sectors: 4 beats + a byte mask each (39.7-40.0)
    (33, 4, 64),     # 32 lines of one 4 B sector: 2 beats each (63.5-64.0)
])
def test_a_store_holds_the_sms_write_port_a_cycle_per_beat(stride_words, size, port_cycles):
    # tests/golden/h100/micro/stscatter.json: one SM's loop of stores, L2-resident, cycles per request
    ms = system()
    lanes = LANES * 4 * stride_words if size == 4 else LANES * 16
    trace = make_trace([("global", 1 << 20 | lanes, {"is_store": True, "is_load": False, "access_bytes": size})] * 2)
    reqs = prepare(ms, trace)
    ms.access(0, 0, reqs[0])
    ms.access(10**5, 0, reqs[1])
    first = ms.miss_free[0]
    ms.access(10**5, 0, reqs[1])                          # the same store again, queued behind the first
    assert ms.miss_free[0] - first == pytest.approx(port_cycles, abs=0.01)


@pytest.mark.parametrize("gpu, pushes_back", [(H100, True), (A100, False)], ids=["h100", "a100"])
def test_a_busy_slice_keeps_a_stores_l1_line_until_it_takes_the_beats(gpu, pushes_back):
    # tests/golden/h100/micro/stscatter.json: 132 SMs storing to L2 go at the slices' pace (5.67 slice cycles
    # per line of five beats), not at the SMs' one beat a cycle; the a100 preset has no write-beat figure
    ms = system(gpu)
    trace = make_trace([("global", 1 << 20 | LANES * 4, {"is_store": True, "is_load": False})])
    reqs = prepare(ms, trace)
    sl = ms.slice_of_line((1 << 20) // 128)
    ms.slice_free[sl] = 5000.0                            # the line's slice has 5000 cycles of writes queued
    ready, _ = ms.access(0, 0, reqs[0])
    assert ready < 100                                    # the store itself is done when its line has left
    held_until = ms.inflight[0].pop()
    assert (held_until > 5000) == pushes_back


@pytest.mark.parametrize("lanes, pipe_cycles", [
    (LANES * 4, 5),                  # 1 line, 4 sectors of 8 words: 4 packets + 1 wavefront (H100: 4.99-5.00)
    (LANES * 8, 10),                 # 2 lines, 8 sectors, 2-way in a bank: 8 + 2 (9.82-9.98)
    (LANES * 32, 40),                # 8 lines of 4 sectors, one word each, 8-way in a bank: 32 + 8 (39.4-39.9)
    (LANES * 132, 33),               # 32 lines, 32 banks: 32 + 1 (31.6-31.9)
    (np.zeros(32, np.int64), 33),    # all 32 lanes on one word: a packet each + 1 (ncu: 32 sectors a request)
])
def test_a_red_holds_the_l1_pipe_a_cycle_per_packet_plus_its_bank_wavefronts(lanes, pipe_cycles):
    # tests/golden/h100/micro/redscatter.json: one SM's loop of float REDs, cycles per request
    ms = system()
    fields = {"is_atomic": True, "is_load": False, "opcode": "red.global.add.f32"}
    trace = make_trace([("global", 1 << 20 | lanes, fields), ("global", [1 << 22], {})])
    reqs = prepare(ms, trace)
    ms.access(0, 0, reqs[0])
    before = ms.l1_free[0]
    ms.access(0, 0, reqs[0])                              # the same RED again, behind the first
    assert ms.l1_free[0] - before == pipe_cycles
    behind = ms.l1_free[0]
    ready, _ = ms.access(0, 0, reqs[1])                   # a load behind them starts after both
    assert ms.l1_free[0] == behind + 1 and ready >= behind + ms.l1_hit


def test_cache_hit_after_miss():
    ms = system()
    lat = pointer_chase(ms, [4096, 4096])
    assert lat[0] > 300 and lat[1] == H100.memory.l1.hit_latency_cycles
    c = ms.counters()
    assert c["l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum"] == 1
    assert c["l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_miss.sum"] == 1
    assert c["lts__t_sectors_op_read.sum"] == 1 and c["dram__sectors_read.sum"] == 2     # the aligned 64 B


def test_cg_bypasses_l1_but_hits_l2():
    ms = system()
    lat = pointer_chase(ms, [4096, 4096], fields={"cache_op": ".cg"})
    assert lat[1] == pytest.approx(H100.memory.l2.hit_latency_near_cycles, rel=0.7)
    assert lat[1] > H100.memory.l1.hit_latency_cycles * 3
    assert ms.counters()["lts__t_sectors_op_read.sum"] == 2


def far_lines(ms, sm, n):
    """``n`` line addresses homed in the other partition than SM ``sm``'s, 1 MB apart."""
    return [a for a in range(0, 1 << 34, 1 << 20)
            if ms.sm_partition[sm] != ms.slice_partition[ms.slice_of(a // 32)]][:n]


@pytest.mark.parametrize("gpu, copies", [(H100, True), (A100, False)], ids=["h100", "a100"])
def test_a_far_read_leaves_a_copy_in_the_readers_partition_where_the_l2_keeps_copies(gpu, copies):
    ms = system(gpu)
    lines = far_lines(ms, 0, 16)
    cg = {"cache_op": ".cg"}
    pointer_chase(ms, lines, fields=cg)                            # from DRAM, over the fabric
    fabric = ms.counters()["lts__t_sectors_srcunit_ltcfabric.sum"]
    again = pointer_chase(ms, lines, start=10**6, fields=cg)
    c = ms.counters()
    m = gpu.memory.l2
    if copies:
        # the copy in SM 0's partition serves the second chase at the near latency, with no fabric trip
        assert fabric == 16
        assert np.median(again) == pytest.approx(m.hit_latency_near_cycles, rel=0.05)
        assert c["lts__t_sectors_srcunit_ltcfabric.sum"] == 16
        assert c["lts__t_sectors_op_read.sum"] == 16 * 2 + 16     # looked up near and at home, then near only
    else:
        assert np.median(again) == pytest.approx(m.hit_latency_far_cycles, rel=0.05)
        assert c["lts__t_sectors_srcunit_ltcfabric.sum"] == fabric
    assert c["dram__sectors_read.sum"] == 16 * gpu.memory.l2.dram_fetch_bytes // 32


def test_a_write_drops_the_copies_of_its_line_in_the_other_partition():
    ms = system()
    line = far_lines(ms, 0, 1)
    cg = {"cache_op": ".cg"}
    pointer_chase(ms, line, fields=cg)                             # SM 0 makes a copy near it
    near_hit = pointer_chase(ms, line, start=10**5, fields=cg)
    trace = make_trace([("global", line, {"is_store": True, "is_load": False})])
    ms.access(2 * 10**5, 3, prepare(ms, trace)[0])                 # SM 3 writes the line at its home
    after = pointer_chase(ms, line, start=3 * 10**5, fields=cg)    # the stale copy is gone: home, over the fabric
    assert after[0] - near_hit[0] == H100.memory.l2.hit_latency_far_cycles - H100.memory.l2.hit_latency_near_cycles
    assert ms.counters()["lts__t_sectors_srcunit_ltcfabric.sum"] == 2
    assert ms.counters()["dram__sectors_read.sum"] == 2                 # once, the 64 B around it


@pytest.mark.parametrize("gpu, pair", [(H100, True), (A100, False)], ids=["h100", "a100"])
def test_a_one_sector_miss_reads_its_aligned_64_bytes_from_dram_where_the_l2_fetches_pairs(gpu, pair):
    ms = system(gpu)
    cg = {"cache_op": ".cg"}
    pointer_chase(ms, [4096], fields=cg)                      # sector 128: DRAM
    assert ms.counters()["dram__sectors_read.sum"] == (2 if pair else 1)
    lat = pointer_chase(ms, [4096 + 32], start=10**5, fields=cg)   # its pair, sector 129
    assert ms.counters()["dram__sectors_read.sum"] == 2
    assert (lat[0] < gpu.memory.l2.hit_latency_far_cycles * 1.1) == pair
    # a whole line asks for both sectors of each pair itself: 4 sectors, not 8
    trace = make_trace([("global", LANES * 4 + 8192, cg)])
    ms.access(2 * 10**5, 0, prepare(ms, trace)[0])
    assert ms.counters()["dram__sectors_read.sum"] == 6


def test_a_clean_line_can_be_discarded_and_a_dirty_one_cannot():
    from gpusim.memory.cache import SectoredCache
    cache = SectoredCache(4 * 128, 4, 0)
    cache.fill(0, 10)
    cache.write(4, allocate=True)                                   # line 1: dirty
    assert cache.discard_line(0) and cache.probe(20, 0) == -1
    assert not cache.discard_line(0)
    with pytest.raises(ValueError, match="dirty"):
        cache.discard_line(1)
    for line in range(2, 5):                                        # the freed way is reused: nothing evicted
        cache.fill(line * 4, 30)
    assert cache.probe(40, 4) == 40


def test_mshr_merges_a_second_miss_to_the_same_sector():
    ms = system()
    trace = make_trace([("global", LANES * 4, {}), ("global", LANES * 4, {})])
    reqs = prepare(ms, trace)
    r0, _ = ms.access(0, 0, reqs[0])
    r1, _ = ms.access(5, 0, reqs[1])          # the fill is still in flight
    assert r1 == r0
    c = ms.counters()
    assert c["lts__t_sectors_op_read.sum"] == 4            # only the first request went to L2
    assert c["gpusim__l1_mshr_merges.sum"] == 4


def test_atomics_on_one_address_serialise():
    ms = system()
    op = H100.memory.l2.atomic_same_address_cycles * H100.clock_mhz / H100.memory.l2.clock_mhz
    trace = make_trace([("global", np.full(32, 256), {"is_atomic": True, "is_load": False}),
                        ("global", 4096 + LANES * 4, {"is_atomic": True, "is_load": False})])
    reqs = prepare(ms, trace)
    ms.access(0, 0, reqs[0])                      # warm both lines into L2
    ms.access(0, 0, reqs[1])
    same, _ = ms.access(10**5, 0, reqs[0])
    spread, _ = ms.access(2 * 10**5, 0, reqs[1])
    # one address: 32 lanes one after another; spread: 32 distinct words, the slice's atomic unit takes
    # atomic_return_words_per_cycle of them per L2 cycle (the 4 sectors of one line share the slice)
    word = H100.clock_mhz / H100.memory.l2.clock_mhz / H100.memory.l2.atomic_return_words_per_cycle
    assert (same - 10**5) - (spread - 2 * 10**5) >= 32 * op - 32 * word - 6
    # Nsight's sectors: one per packet (a lane on the shared word each: 32; the spread line's 4 sectors: 4)
    assert ms.counters()["lts__t_sectors_op_atom.sum"] == 2 * (32 + 4)
    assert ms.counters()["gpusim__l2_atomic_lanes.sum"] == 4 * 32
    assert ms.counters()["gpusim__l2_atomic_serialised.sum"] == 2 * 31


def test_pruning_the_words_with_atomics_in_flight_changes_no_answer():
    # 600 warps of random atomics over 4 MB, issued faster than they complete: thousands of words busy
    # at once.  Pruning the done ones (here whenever more than 64 are held, as a long run does past 65,536)
    # must give every access the answer of never pruning.
    rng = np.random.default_rng(1)
    rows = [("global", 4 * rng.integers(0, 1 << 20, 32), {"is_atomic": True}) for _ in range(600)]
    trace = make_trace(rows)
    answers = []
    for limit in (64, 1 << 40):
        ms = system()
        reqs = prepare(ms, trace)
        ms.atom_free_limit = limit
        answers.append([ms.access(4 * i, i % 4, reqs[i]) for i in range(len(rows))])
        if limit == 64:
            assert ms.atom_free_limit > 64                 # pruned, and the limit followed the table
    assert answers[0] == answers[1]


def test_shared_atomics_on_one_word_serialise_in_the_bank():
    ms = system()
    trace = make_trace([("shared", np.full(32, 0), {"is_atomic": True}), ("shared", LANES * 4, {"is_atomic": True})])
    reqs = prepare(ms, trace)
    _, busy_same = ms.access(0, 0, reqs[0])
    _, busy_spread = ms.access(1000, 0, reqs[1])
    assert busy_same == 32 * busy_spread


def test_constant_uniform_address_broadcasts_divergent_serialises():
    ms = system()
    trace = make_trace([("const", np.full(32, 64), {}), ("const", np.full(32, 64), {}),
                        ("const", LANES * 4, {})])
    reqs = prepare(ms, trace)
    ms.access(0, 0, reqs[0])                             # cold miss to L2
    r, busy = ms.access(10**5, 0, reqs[1])
    assert (r - 10**5, busy) == (H100.memory.const.hit_latency_cycles, 1)
    _, busy = ms.access(2 * 10**5, 0, reqs[2])
    assert busy == 32


@pytest.mark.parametrize("gpu, fill", [(H100, 256), (A100, 32)], ids=["h100", "a100"])
def test_a_constant_miss_brings_the_aligned_fill_block(gpu, fill):
    """micro/cwalk.json: on the H100 one miss brings the 256 B around it (a walk at a 16 B stride goes to L2
    once per 16 loads); a sector of the block is then a hit, the next block's first sector a miss; a preset
    without the measurement keeps the old single-sector fill."""
    assert gpu.memory.const.fill_bytes == fill
    ms = system(gpu)
    addrs = [4096, 4096 + 32, 4096 + 224, 4096 + 256]
    trace = make_trace([("const", np.full(32, a), {}) for a in addrs])
    reqs = prepare(ms, trace)
    hit = gpu.memory.const.hit_latency_cycles
    first, _ = ms.access(0, 0, reqs[0])
    assert first > 4 * hit                                 # the cold miss: an L2 (or DRAM) trip
    lat = [ms.access(10**5 * k, 0, reqs[k])[0] - 10**5 * k for k in (1, 2, 3)]
    if fill > 32:
        assert lat[:2] == [hit, hit] and lat[2] > 4 * hit
    else:
        assert all(x > 4 * hit for x in lat)


def test_stores_write_back_to_dram_only_on_flush():
    ms = system()
    trace = make_trace([("global", LANES * 4, {"is_store": True, "is_load": False})])
    reqs = prepare(ms, trace)
    ready, busy = ms.access(0, 0, reqs[0])
    assert ready <= 2 and busy == 1
    c = ms.counters()
    assert c["lts__t_sectors_op_write.sum"] == 4 and c["dram__bytes_write.sum"] == 0
    ms.flush()
    assert ms.counters()["dram__bytes_write.sum"] == 128


def test_coalescing_counters_of_the_lsu_front_end():
    lsu = LsuFrontEnd(H100)
    lsu.requests(make_trace([("global", LANES * 4, {}), ("global", LANES * 32, {}),
                             ("global", LANES * 4, {"is_store": True, "is_load": False})]))
    c = lsu.counters()
    assert c["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"] == 2
    assert c["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"] == 36
    assert c["l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"] == 4


def test_the_observer_sees_each_dram_command_with_the_channels_own_row_outcome():
    class Log(TimingObserver):
        def __init__(self):
            self.commands = []

        def on_dram_command(self, e):
            self.commands.append(e)

    log = Log()
    ms = MemorySystem(StandInGpu(H100.memory, sm_count=4, clock_mhz=H100.clock_mhz), observer=log)
    where = ms.dram.mapping.map
    ch, _, bank, row = where(0)
    other = next(a for a in range(128, 1 << 40, 128) if where(a // 32)[0::2] == (ch, bank) and where(a // 32)[3] != row)
    # a line (a row miss, then hits for its other sectors), then a line in another row of that bank (a conflict)
    trace = make_trace([("global", LANES * 4, {}), ("global", other + LANES * 4, {})])
    reqs = prepare(ms, trace)
    for k, r in enumerate(reqs):
        ms.access(1000 * k, 0, r)
    bursts = [e for e in log.commands if e.command in (Command.RD, Command.WR)]
    c = ms.counters()
    assert len(bursts) == c["dram__sectors_read.sum"] == 8
    assert [e.outcome for e in bursts] == [RowOutcome.MISS] + [RowOutcome.HIT] * 3 + [RowOutcome.CONFLICT] + \
        [RowOutcome.HIT] * 3
    for outcome, name in ((RowOutcome.HIT, "hits"), (RowOutcome.MISS, "misses"), (RowOutcome.CONFLICT, "conflicts")):
        assert sum(e.outcome == outcome for e in bursts) == c[f"gpusim__dram_row_{name}.sum"]
    assert all(e.outcome != RowOutcome.HIT for e in log.commands if e.command in (Command.ACT, Command.PRE))


def test_streaming_through_the_facade_stays_below_dram_peak():
    ms = system(sm_count=132)
    n = 16000
    trace = make_trace([("global", i * 512 + LANES * 16, {"access_bytes": 16, "cache_op": ".cg"})
                        for i in range(n)])
    reqs = prepare(ms, trace)
    end = 0
    for slot in range(n):
        r, _ = ms.access(slot // 40, slot % 132, reqs[slot])    # far more requests than DRAM can serve
        end = max(end, r)
    seconds = end / (H100.clock_mhz * 1e6)
    bw = ms.counters()["dram__bytes_read.sum"] / seconds
    assert bw <= H100.memory.dram.peak_bytes_per_s
    assert bw > 0.7 * H100.memory.dram.peak_bytes_per_s   # the tail latency is ~15% of this short run


def test_misses_that_evict_dirty_lines_overlap_like_those_that_evict_clean_ones():
    # An L2 full of dirty lines: every miss writes a victim back.  The write-back goes when the miss takes
    # the victim's line; booked when the new data arrived instead (hundreds of cycles ahead), it held each
    # DRAM channel's next reads behind it, and 8,192 scattered misses chained one after another.
    l2_bytes = 12 * 80 * 128 * 16                                   # 12 lines a set in each of 80 slices
    small = load_gpu("h100", overrides={"memory.l2.size_bytes": l2_bytes})
    rng = np.random.default_rng(3)
    lines = rng.choice(1 << 18, size=8192, replace=False) + (1 << 20)      # distinct 128 B lines, 32 MB away
    rows = [("global", [int(ln) * 128 + 4 * k for k in range(32)], {"cache_op": ".cg"}) for ln in lines]
    done = {}
    for dirty in (False, True):
        ms = system(small, sm_count=32)
        held = list(range(0, l2_bytes, 32))
        ms.warm(0, [] if dirty else [a // 32 for a in held], dirty=[a // 32 for a in held] if dirty else ())
        reqs = prepare(ms, make_trace(rows))
        done[dirty] = max(ms.access(10**6 + i // 4, i % 32, reqs[i])[0] for i in range(len(rows))) - 10**6
        writes = ms.counters()["dram__sectors_write.sum"]
        assert (writes >= 4 * len(rows)) if dirty else writes == 0      # each miss wrote a dirty victim back
    assert done[True] < 1.5 * done[False]


def test_warmed_sectors_are_in_l2_for_a_later_load_and_move_no_counter():
    # a sampled simulation puts the sectors of SMs it does not simulate in L2 (MemorySystem.warm)
    ms = system()
    addr = 1 << 24
    ms.warm(0, [addr // 32])
    assert ms.counters()["lts__t_sectors_lookup_hit.sum"] == 0
    assert ms.counters()["lts__t_sectors_lookup_miss.sum"] == 0
    lat = pointer_chase(ms, [addr], start=10**6, fields={"cache_op": ".cg"})
    assert lat[0] == pytest.approx(H100.memory.l2.hit_latency_near_cycles, rel=0.15) or \
        lat[0] == pytest.approx(H100.memory.l2.hit_latency_far_cycles, rel=0.15)
    assert ms.counters()["lts__t_sectors_lookup_hit.sum"] == 1
    # a load right after the warming waits for that fill (an MSHR merge), not for a DRAM trip of its own
    ms2 = system()
    ms2.warm(0, [addr // 32])
    early = pointer_chase(ms2, [addr], start=0, fields={"cache_op": ".cg"})
    dram_cycles = H100.memory.l2.hit_latency_near_cycles + H100.memory.dram.latency_ns * H100.clock_mhz / 1000
    assert early[0] < dram_cycles + H100.memory.l2.hit_latency_far_cycles
    assert ms2.counters()["dram__sectors_read.sum"] == 0


def test_warmed_stores_are_dirty_and_the_warming_keeps_what_it_fetched_and_evicted():
    # the sample in time (gpusim.timing.sampling.simulate_time_sampled) warms the L2 with the middle's
    # sectors, its stores dirty, so that the tail evicts and writes them back as a whole run would
    ms = system()
    base = 1 << 24
    ms.warm(0, [base // 32, base // 32 + 1], dirty=[base // 32 + 2])
    assert ms.warm_fetched == 2 and ms.warm_written_back == 0
    slice_ = ms.l2[ms.slice_of(base // 32 + 2)]
    assert base // 32 + 2 in slice_.dirty_sectors()
    ms.warm(0, [base // 32])                        # already there: nothing fetched
    assert ms.warm_fetched == 2
    assert ms.counters()["lts__t_sectors_lookup_miss.sum"] == 0
    assert ms.counters()["dram__sectors_write.sum"] == 0


def test_a_warming_that_evicts_dirty_lines_writes_them_back_unless_told_not_to():
    l2 = H100.memory.l2
    many = l2.size_bytes // 32 * 2                  # twice the L2's sectors: every dirty line is evicted
    for write_back in (True, False):
        ms = system()
        ms.warm(0, [], dirty=range(1 << 20, (1 << 20) + many, 4), write_back=write_back)
        ms.warm(0, range(1 << 26, (1 << 26) + many, 4), write_back=write_back)
        assert ms.warm_written_back > 0
        written = ms.counters()["dram__sectors_write.sum"]
        assert (written > 0) == write_back


def test_a_write_past_the_dirty_limit_writes_back_the_line_dirtied_longest_ago():
    from gpusim.memory.cache import SectoredCache
    cache = SectoredCache(4 * 128, 4, 0, dirty_limit_sectors=8)     # one set of 4 lines, at most 2 lines dirty
    out: list[int] = []
    for line in range(3):
        for k in range(4):
            cache.write(line * 4 + k, True, out)
    assert out == [0, 1, 2, 3]                          # line 0 (dirtied first) went back when line 2 began
    assert cache.dirty_count == 8 and cache.early_written_back == 4 and cache.evicted_dirty == 0
    assert cache.probe(0, 0) == 0                       # written back, still there, clean
    cache.write(1, True, out)                           # dirtying line 0 again sends line 1 back, not line 0
    assert out[4:] == [4, 5, 6, 7] and cache.dirty_count == 5


def _stream_stores(gpu, n_bytes, **kw):
    """Whole-line stores of ``n_bytes`` from 4 SMs, each issued when the previous one leaves the LSU: the
    stores' ready cycles and the counters."""
    ms = MemorySystem(StandInGpu(gpu.memory, sm_count=4, clock_mhz=gpu.clock_mhz), **kw)
    trace = make_trace([("global", LANES * 4 + base, {"is_store": True, "is_load": False})
                        for base in range(0, n_bytes, 128)])
    now, ready = 0, []
    for i, req in enumerate(prepare(ms, trace)):
        r, busy = ms.access(now, i % 4, req)
        ready.append(r)
        now += busy
    return ready, ms.counters()


@pytest.mark.parametrize("limit", [0, 327680])
def test_a_store_stream_past_the_dirty_limit_reaches_dram_during_the_kernel(limit):
    # an L2 of 640 KiB (80 slices x 4 sets x 16 ways); 2 MiB of whole-line stores
    gpu = load_gpu("h100", {"memory.l2.size_bytes": 655360, "memory.l2.dirty_limit_bytes": limit})
    stored = 2 << 20
    _, c = _stream_stores(gpu, stored)
    written = c["dram__bytes_write.sum"]
    kept = limit or 655360                              # what may stay dirty at the end
    assert stored - kept - 8192 <= written <= stored - kept * 0.9
    assert (c["gpusim__l2_early_written_back_sectors.sum"] > 0) == bool(limit)


def test_a_line_skipped_as_the_one_being_written_keeps_its_place_among_the_dirty():
    from gpusim.memory.cache import SectoredCache
    cache = SectoredCache(4 * 128, 4, 0, dirty_limit_sectors=4)     # one set of 4 lines, at most 4 sectors dirty
    out: list[int] = []
    cache.write(0, True, out)                           # line 0 dirtied first (1 sector)
    for k in range(3):
        cache.write(4 + k, True, out)                   # line 1: 3 sectors, 4 dirty in all
    cache.write(1, True, out)                           # line 0 again, the oldest: line 1 goes back instead
    assert out == [4, 5, 6] and cache.dirty_count == 2
    for k in range(3):
        cache.write(8 + k, True, out)                   # line 2: past the limit, line 0 (still the oldest) goes
    assert out[3:] == [0, 1] and cache.dirty_count == 3
    for k in range(4):
        cache.write(12 + k, True, out)                  # line 3: then line 2
        assert cache.dirty_count <= 4


def test_the_dirty_order_stays_bounded_when_the_limit_is_never_reached():
    from gpusim.memory.cache import SectoredCache
    cache = SectoredCache(4 * 128, 4, 0, dirty_limit_sectors=16)    # 4 lines, never more than 16 sectors dirty
    out: list[int] = []
    for line in range(20000):                           # each line dirtied, then evicted by the next ones
        cache.write(line * 4, True, out)
    assert cache.early_written_back == 0 and len(out) == 20000 - 4
    assert len(cache.dirty_order) - cache.dirty_head <= 8 * 4 * 2   # (line, stamp) pairs: a few per way


@pytest.mark.parametrize("dram", ["no write queue", "unlimited"])
def test_a_store_waits_for_no_write_back_where_dram_has_no_write_buffer_to_fill(dram):
    # write-backs go to DRAM (an L2 of 640 KiB keeping 1 sector a slice dirty, 1 MiB of stores), but the
    # stores wait only where a full write buffer pushes back: not without one, not with unlimited DRAM
    sets = {"memory.l2.size_bytes": 655360}
    if dram == "no write queue":
        sets["memory.dram.write_queue_entries"] = 0
    free, _ = _stream_stores(load_gpu("h100", sets), 1 << 20, unlimited_dram=dram == "unlimited")
    sets["memory.l2.dirty_limit_bytes"] = 80 * 32
    limited, c = _stream_stores(load_gpu("h100", sets), 1 << 20, unlimited_dram=dram == "unlimited")
    assert c["dram__bytes_write.sum"] > (1 << 20) - 80 * 128 * 2
    assert limited == free


def test_a_warming_past_the_dirty_limit_counts_its_write_backs_as_the_warmings_only():
    ms = system(load_gpu("h100", {"memory.l2.size_bytes": 655360, "memory.l2.dirty_limit_bytes": 80 * 32 * 4}))
    ms.warm(0, [], dirty=range(0, 1 << 15), write_back=False)    # 1 MiB written by blocks not timed
    assert ms.warm_written_back > (1 << 15) - 80 * 4 * 2
    c = ms.counters()
    assert c["gpusim__l2_early_written_back_sectors.sum"] == 0 and c["dram__sectors_write.sum"] == 0


@pytest.mark.parametrize("seed", range(4))
def test_the_caches_tag_search_finds_lines_as_a_reference_lru_does(seed):
    """SectoredCache finds a line by comparing its set's tags: hits, misses and evicted dirty sectors are those
    of a plain LRU model of the same sets."""
    import collections
    import random
    from gpusim.memory.cache import SectoredCache
    rng = random.Random(seed)
    cache = SectoredCache(8 * 4 * 128, 4, 0)                      # 8 sets of 4 ways
    sets = collections.defaultdict(collections.OrderedDict)      # set -> line -> [valid, dirty], LRU first
    for _ in range(4000):
        sector = rng.randrange(40 * 4) + (rng.randrange(3) << 20)  # lines far apart share sets too
        line, sub = sector >> 2, 1 << (sector & 3)
        lines = sets[cache.set_of(line)]
        op = rng.random()
        if op < 0.4:
            hit = line in lines and lines[line][0] & sub
            assert (cache.probe(0, sector) >= 0) == bool(hit)
            if hit:
                lines.move_to_end(line)
            continue
        if op < 0.5:
            if line in lines and not lines[line][1]:
                assert cache.discard_line(line)
                del lines[line]
            continue
        out: list[int] = []
        expected: list[int] = []
        if line not in lines and len(lines) == 4:
            victim, (_, dirty) = lines.popitem(last=False)
            expected = [victim * 4 + k for k in range(4) if dirty >> k & 1]
        entry = lines.setdefault(line, [0, 0])
        lines.move_to_end(line)
        entry[0] |= sub
        if op < 0.75:
            cache.fill(sector, 0, out)
        else:
            cache.write(sector, True, out)
            entry[1] |= sub
        assert out == expected
