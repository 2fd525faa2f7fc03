"""DRAM channel model, datasheet style: each constraint probed at its boundary."""
import collections
import dataclasses

import pytest

from gpusim.config.memory import DramSpec, DramTimings, MemorySpec
from gpusim.errors import ConfigError
from gpusim.memory.dram import ADDRESS_MAPPINGS, DramChannel, DramController

T = DramTimings(nominal_data_rate_mtps=2000, tCK_ps=1000, nBL=2, nCL=14, nCWL=5, nRCD=14, nRCDW=12, nRP=14,
                nRAS=34, nRC=48, nRTP=5, nWR=16, nCCD_S=2, nCCD_L=4, nRRD_S=4, nRRD_L=6, nFAW=30, nWTR_S=6,
                nWTR_L=8, nRTW=11, nREFI=1_000_000, nRFCpb=100)


class Commands:
    """An observer that keeps every DRAM command as (command name, CK)."""

    def __init__(self):
        self.seen = []

    def on_dram_command(self, e):
        self.seen.append((e.command.name, e.ck))


def channel(timings=T, policy="open", bank_groups=4, banks_per_group=4, observer=None):
    return DramChannel(timings, bank_groups, banks_per_group, policy, refresh_offset=-200, observer=observer)


def read_issue_cycle(ch, arrival, bank, row):
    """Cycle of the RD command = data end - nBL - nCL."""
    return ch.access(arrival, bank, row, False) - ch.t.nBL - ch.t.nCL


def test_act_rd_gap_respects_nrcd():
    log = Commands()
    ch = channel(observer=log)
    end = ch.access(0, bank=0, row=7, is_write=False)
    acts = log.seen
    act_t = next(t for cmd, t in acts if cmd == "ACT")
    rd_t = next(t for cmd, t in acts if cmd == "RD")
    assert rd_t - act_t >= T.nRCD          # never at nRCD - 1
    assert rd_t - act_t == T.nRCD          # and exactly at nRCD when nothing else holds it
    assert end == rd_t + T.nCL + T.nBL


@pytest.mark.parametrize("gap, expect_wait", [(T.nRCD - 1, 1), (T.nRCD, 0)])
def test_row_hit_right_after_activate_waits_for_nrcd(gap, expect_wait):
    ch = channel()
    first = read_issue_cycle(ch, 0, 0, 7)           # ACT at 0, RD at nRCD
    ch2 = channel()
    ch2.access(0, 1, 7, False)                      # another bank: ACT at 0
    # a hit to that open row arriving `gap` cycles after its ACT may not issue before nRCD
    rd = read_issue_cycle(ch2, gap, 1, 7)
    assert rd - gap >= expect_wait and rd >= T.nRCD
    assert first == T.nRCD


def test_row_hit_is_faster_than_row_miss_and_conflict():
    ch = channel()
    ch.access(0, 0, 1, False)
    t0 = 1000
    hit = ch.access(t0, 0, 1, False) - t0
    conflict = ch.access(2 * t0, 0, 2, False) - 2 * t0
    miss = channel().access(t0, 0, 1, False) - t0
    assert hit == T.nCL + T.nBL
    assert miss == T.nRCD + T.nCL + T.nBL
    assert conflict == T.nRP + T.nRCD + T.nCL + T.nBL
    assert (ch.row_hits, ch.row_conflicts) == (2 - 1, 1)


def test_two_banks_overlap_activates_one_bank_serialises():
    two = channel()
    a = two.access(0, 0, 1, False)
    b = two.access(0, 4, 1, False)           # bank 4: another bank group, no nRRD_L
    assert b - a <= T.nRRD_S + T.nBL         # the second ACT only waits nRRD_S
    one = channel()
    one.access(0, 0, 1, False)
    c = one.access(0, 0, 2, False)           # same bank, other row: wait for nRAS, PRE, nRP
    assert c >= T.nRAS + T.nRP + T.nRCD + T.nCL + T.nBL
    assert c - a > 4 * (b - a)


def test_act_to_act_same_bank_respects_nrc():
    log = Commands()
    t = dataclasses.replace(T, nRAS=10, nRP=5)   # so that nRC (48) binds, not nRAS + nRP
    ch = channel(t, observer=log)
    ch.access(0, 0, 1, False)
    ch.access(0, 0, 2, False)
    act_times = [x for cmd, x in log.seen if cmd == "ACT"]
    assert act_times[1] - act_times[0] == t.nRC


def test_nfaw_limits_activates_to_four_per_window():
    log = Commands()
    ch = channel(observer=log)
    for bank in range(6):
        ch.access(0, bank * 4 % 16 + bank // 4, 1, False)
    act_times = sorted(x for cmd, x in log.seen if cmd == "ACT")
    assert act_times[4] - act_times[0] >= T.nFAW
    assert act_times[3] - act_times[0] < T.nFAW   # the first four are limited by nRRD only


def test_closed_page_policy_makes_every_access_a_miss():
    ch = channel(policy="closed")
    ch.access(0, 0, 1, False)
    ch.access(1000, 0, 1, False)
    assert (ch.row_hits, ch.row_misses) == (0, 2)


def test_write_then_read_turnaround_respects_nwtr():
    ch = channel()
    ch.access(0, 0, 1, False)
    wr_end = ch.access(100, 0, 1, True)
    rd = read_issue_cycle(ch, wr_end - 5, 0, 1)
    assert rd >= wr_end + T.nWTR_S


def test_per_bank_refresh_closes_the_row_and_blocks_only_that_bank():
    t = dataclasses.replace(T, nREFI=1600, nRFCpb=100)
    ch = DramChannel(t, 4, 4, "open", refresh_offset=0)    # bank b refreshes at b * 100 + k * 1600
    ch.access(200, 0, 1, False)
    end = ch.access(1610, 0, 1, False)        # inside bank 0's refresh window [1600, 1700)
    assert end - 1700 == t.nRCD + t.nCL + t.nBL  # row was closed by the refresh: a miss after it
    assert ch.row_misses == 2
    other = ch.access(1610, 8, 1, False)       # bank 8 refreshes at [800, 900): not blocked now
    assert other - 1610 == t.nRCD + t.nCL + t.nBL


def test_seed_example_20_to_1_needs_21_banks_to_keep_the_bus_busy():
    # Seed 001: a core-array access 20x longer than the burst transfer needs >= 21 banks on one bus.
    # A bank is occupied for its core-array access (20 transfer times) and then its own transfer, so a
    # closed-page bank cycle (ACT..ACT, nRC) is 21 bursts of nBL, of which the bus is used for one.
    nbl = 2
    t = DramTimings(nominal_data_rate_mtps=2000, tCK_ps=1000, nBL=nbl, nCL=1, nCWL=1, nRCD=1, nRCDW=1, nRP=1,
                    nRAS=2, nRC=21 * nbl, nRTP=1, nWR=1, nCCD_S=nbl, nCCD_L=nbl, nRRD_S=1, nRRD_L=1, nFAW=1,
                    nWTR_S=1, nWTR_L=1, nRTW=1, nREFI=10**9, nRFCpb=1)

    def utilisation(banks, requests=2000):
        ch = DramChannel(t, 1, banks, "closed", refresh_offset=-10)
        end = 0
        for i in range(requests):
            end = max(end, ch.access(0, i % banks, i, False))
        return ch.busy_ck / end

    assert utilisation(21) > 0.99
    assert utilisation(20) < 20 / 21 + 0.01
    assert utilisation(10) == pytest.approx(10 / 21, abs=0.01)


def hbm3_spec(**kw):
    d = dict(standard="hbm3", channels=80, data_rate_mtps=5238, latency_ns=190.0)
    d.update(kw)
    return DramSpec(**d)


def test_consecutive_lines_spread_over_channels():
    dram = DramController(hbm3_spec())
    chans = [dram.mapping.map(line * 4)[0] for line in range(160)]
    assert sorted(chans) == list(range(160))
    # a line's four bursts stay in one channel and one row
    assert len({dram.mapping.map(b)[0::3] for b in range(4)}) == 1


@pytest.mark.parametrize("mapping", sorted(ADDRESS_MAPPINGS))
def test_every_mapping_covers_all_channels(mapping):
    dram = DramController(hbm3_spec(address_mapping=mapping))
    chans = {dram.mapping.map(b)[0] for b in range(0, 160 * 32 * 64 * 8, 3)}
    assert chans == set(range(160))


@pytest.mark.parametrize("stride_lines", [1, 8, 32, 128, 160, 1024, 8192])
def test_the_h100_mapping_spreads_every_line_stride_over_the_channels(stride_lines):
    # the H100 (an H200, the same chip) streams 256 MiB at 1067-1128 GB/s whatever the stride between the lines
    # consecutive warps read (benchmarks/micro/dramstride): one wave's 8448 lines at that stride keep every
    # pseudo-channel busy, none with more than ~2x its share; line bits alone use 5 channels at 32-128, 1 at 160
    from gpusim.config import load_gpu
    dram = DramController(load_gpu("h100").memory.dram)
    lines = 1 << 21
    k = lines // stride_lines
    window = [(w % k) * stride_lines + w // k for w in range(8448)]
    per_channel = collections.Counter(dram.mapping.map(line * 4)[0] for line in window)
    assert len(per_channel) == 160 and max(per_channel.values()) <= 2.2 * 8448 / 160


def streaming_bandwidth(spec, n_bursts, offered_factor=2.0, steady=False):
    """Bytes/s delivered for sequential bursts offered at ``offered_factor`` x the peak; ``steady``
    measures between the 10th and 90th percentile completions (leaving out start-up and drain)."""
    dram = DramController(spec)
    peak_bytes_per_ck = spec.peak_bytes_per_s / (spec.clock_mhz * 1e6)
    gap = 32 / (peak_bytes_per_ck * offered_factor)
    ends = sorted(dram.access(int(i * gap), i * 32, False) for i in range(n_bursts))
    if steady:
        lo, hi = n_bursts // 10, 9 * n_bursts // 10
        return (hi - lo) * 32 / (ends[hi] - ends[lo]) * spec.clock_mhz * 1e6
    return n_bursts * 32 / ends[-1] * spec.clock_mhz * 1e6


def test_h100_streaming_saturates_at_3_35_tb_per_s_and_never_exceeds_it():
    spec = hbm3_spec()
    assert spec.peak_bytes_per_s == pytest.approx(3.35e12, rel=0.005)
    bw = streaming_bandwidth(spec, 200_000)
    assert 0.95 * spec.peak_bytes_per_s <= bw <= spec.peak_bytes_per_s


def test_bandwidth_at_half_load_follows_the_offered_load():
    spec = hbm3_spec()
    bw = streaming_bandwidth(spec, 100_000, offered_factor=0.5, steady=True)
    assert bw == pytest.approx(0.5 * spec.peak_bytes_per_s, rel=0.05)


def test_counters_and_tables():
    dram = DramController(hbm3_spec())
    for i in range(8):
        dram.access(0, i * 32, is_write=i % 2 == 1)
    c = dram.counters()
    assert c["dram__bytes_read.sum"] == 128 and c["dram__bytes_write.sum"] == 128
    assert c["dram__sectors_read.sum"] == 4
    t = dram.tables()
    assert sum(t["dram.per_channel.reads"]) == 4 and sum(map(sum, t["dram.per_bank.writes"])) == 4
    assert c["gpusim__dram_row_hits.sum"] + c["gpusim__dram_row_misses.sum"] == 8


def test_timings_scale_as_nanoseconds_at_a_lower_data_rate():
    spec = hbm3_spec()
    t = spec.timings
    assert t.nBL == 2 and t.nRCD == 26  # 31 CK at 0.625 ns = 19.4 ns = 26 CK at 0.764 ns


def test_unknown_standard_mapping_and_row_policy_are_config_errors():
    with pytest.raises(ConfigError, match=r"memory.dram.standard: unknown DRAM standard 'ddr9'"):
        hbm3_spec(standard="ddr9")
    # mapping and row policy are names the DRAM model registers: checked when it is built
    with pytest.raises(ConfigError, match=r"address_mapping: unknown mapping 'zigzag'; known: .*line_interleave"):
        DramController(hbm3_spec(address_mapping="zigzag"))
    with pytest.raises(ConfigError, match=r"row_policy: 'sometimes'; expected one of open, closed"):
        DramController(hbm3_spec(row_policy="sometimes"))


def test_write_queue_holds_writes_until_full_then_drains_them_as_one_batch():
    log = Commands()
    ch = DramChannel(T, 4, 4, "open", refresh_offset=-200, observer=log, write_queue_entries=4)
    for i in range(3):
        assert ch.access(10 * i, i, 5, True) == 10 * i      # accepted, nothing waits for a write
    assert ch.writes == 3 and not [c for c, _ in log.seen if c == "WR"]
    ch.access(40, 3, 5, True)                                # the fourth fills the queue: all four drain from CK 40
    wr = [t for c, t in log.seen if c == "WR"]
    assert len(wr) == 4 and min(wr) >= 40 and ch.writes == 4 and not ch.wq_bank


def test_a_write_waits_for_its_entry_while_the_previous_batch_drains():
    ch = DramChannel(T, 4, 4, "open", refresh_offset=-200, write_queue_entries=4)
    for i in range(4):
        ch.access(0, i, 5, True)                             # a batch drains from CK 0
    ends = list(ch.wq_free)
    assert ends == sorted(ends) and ends[0] > 0
    # a writer faster than the channel: the next writes take the entries as the batch's bursts end
    assert [ch.access(1, i, 6, True) for i in range(4)] == ends
    # a writer slower than the channel finds its entry free
    late = max(ch.wq_free) + 100
    assert ch.access(late, 0, 7, True) == late


def test_a_drained_batch_turns_the_bus_round_once_not_per_write():
    # read, write, read, write ... to one open row: unbuffered, every write waits nRTW after a read and every
    # read nWTR_S after a write; buffered, the writes go in one run of column commands
    def last_end(entries):
        ch = DramChannel(T, 4, 4, "open", refresh_offset=-200, write_queue_entries=entries)
        end = 0
        for i in range(32):
            end = max(end, ch.access(i, 0, 1, i % 2 == 1))
        return end
    assert last_end(16) < 0.5 * last_end(0)


def random_read_latency_with_write_backs(entries, bursts_per_ck, n=40_000, write_share=0.4, seed=1):
    """Median and 90th percentile CK from arrival to data of random 32 B reads over 1 GB on the H100's 160
    pseudo-channels, offered at ``bursts_per_ck`` with ``write_share`` of the bursts dirty write-backs."""
    import numpy as np
    spec = dataclasses.replace(hbm3_spec(), write_queue_entries=entries)
    dram = DramController(spec)
    rng = np.random.default_rng(seed)
    arrival = np.sort(rng.integers(0, int(n / bursts_per_ck), n))
    address = rng.integers(0, (1 << 30) // 32, n) * 32
    write = rng.random(n) < write_share
    lat = []
    for a, x, w in zip(arrival.tolist(), address.tolist(), write.tolist()):
        done = dram.access(a, x, w)
        if not w:
            lat.append(done - a)
    return float(np.median(lat)), float(np.percentile(lat, 90))


def test_random_reads_among_write_backs_keep_their_latency_with_a_write_queue():
    # Datasheet line: random bursts over 1 GB, 40% of them write-backs (a random-update kernel's mix), 16
    # per CK (12 per SM cycle at 1590 MHz; the H100 retires 8.64 random REDs per SM cycle, each a read and
    # a write-back: tests/golden/h100/micro/dramrand.json): with a 32-write queue per pseudo-channel a read
    # waits about as long as with no writes at all; scheduled one by one among the reads, every write turns
    # the bus round and the reads queue behind the turnarounds.
    p50_idle, _ = random_read_latency_with_write_backs(32, 16, write_share=0.0)
    p50_queue, p90_queue = random_read_latency_with_write_backs(32, 16)
    p50_none, _ = random_read_latency_with_write_backs(0, 16)
    assert p50_queue < 1.5 * p50_idle and p90_queue < 500
    assert p50_none > 10 * p50_queue


def test_negative_write_queue_is_a_config_error():
    with pytest.raises(ConfigError, match=r"memory.dram.write_queue_entries: 0 or more, got -1"):
        hbm3_spec(write_queue_entries=-1)
