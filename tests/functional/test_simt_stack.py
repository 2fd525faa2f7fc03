"""The SIMT stack, as a datasheet: what each event does to a warp's PC, active mask and stack, and when a
block barrier releases.  The stack is driven directly (no kernel): ``branch``/``exit``/``wait_at_barrier``/
``advance`` are what the control-flow handlers call, for every warp standing at one PC at once."""
import numpy as np

from gpusim.functional.simt import NEVER, SimtStack

ALL = 0xFFFFFFFF
LOW16 = 0x0000FFFF
HIGH16 = 0xFFFF0000


def warps(*ids):
    return np.array(ids, dtype=np.int64)


def lanes(*masks):
    return np.array(masks, dtype=np.uint32)


def top(s: SimtStack, w: int = 0):
    """(pc, active mask, reconvergence pc, entries below the top) of warp w."""
    return int(s.pc[w]), int(s.mask[w]), int(s.rpc[w]), int(s.sp[w])


def run_to(s: SimtStack, w: int, pc: int):
    """Advance warp w (alone) one instruction at a time until it stands at pc."""
    while int(s.pc[w]) < pc:
        s.advance(warps(w))


def run_path(s: SimtStack, w: int):
    """Advance warp w (alone) until its top entry ends (the stack pops)."""
    depth = int(s.sp[w])
    while int(s.sp[w]) == depth:
        s.advance(warps(w))


# ---- launch state -----------------------------------------------------------------------------------------
def test_every_warp_starts_at_pc_0_with_its_threads_active_and_an_empty_stack():
    s = SimtStack(n_warps=4, warps_per_block=2, threads_per_block=40)   # 2 blocks of 40 threads
    assert [int(m) for m in s.mask] == [ALL, 0xFF, ALL, 0xFF]          # the last warp of a block is partial
    assert list(s.pc) == [0] * 4 and list(s.sp) == [0] * 4 and list(s.rpc) == [-1] * 4
    assert s.next_pc() == 0 and list(s.warps_at(0)) == [0, 1, 2, 3]
    assert list(s.live) == [40, 40]                                     # threads that count at a barrier


def test_advance_moves_the_warps_to_the_next_pc():
    s = SimtStack(3, 3, 96)
    s.advance(warps(0, 2))
    assert list(s.pc) == [1, 0, 1] and list(s.ready_pc) == [1, 0, 1]
    assert s.next_pc() == 0 and list(s.warps_at(1)) == [0, 2]


# ---- branches ---------------------------------------------------------------------------------------------
def test_a_branch_every_active_lane_takes_jumps_without_a_stack_entry():
    s = SimtStack(1, 1, 32)
    s.branch(warps(0), lanes(ALL), target=7, reconverge=9)
    assert top(s) == (7, ALL, -1, 0)
    assert (s.branches, s.divergent_branches) == (1, 0)


def test_a_branch_no_lane_takes_falls_through():
    s = SimtStack(1, 1, 32)
    s.branch(warps(0), lanes(0), target=7, reconverge=9)
    assert top(s) == (1, ALL, -1, 0)


def test_a_divergent_branch_runs_the_taken_lanes_first_then_the_others_then_reconverges():
    s = SimtStack(1, 1, 32)
    run_to(s, 0, 3)
    s.branch(warps(0), lanes(LOW16), target=10, reconverge=20)          # lanes 0-15 jump to 10
    assert top(s) == (10, LOW16, 20, 2)                                 # taken path on top
    assert (int(s.stack_pc[0, 1]), int(s.stack_mask[0, 1]), int(s.stack_rpc[0, 1])) == (4, HIGH16, 20)
    assert (int(s.stack_pc[0, 0]), int(s.stack_mask[0, 0]), int(s.stack_rpc[0, 0])) == (20, ALL, -1)
    run_path(s, 0)                                                      # taken path reaches reconvergence:
    assert top(s) == (4, HIGH16, 20, 1)                                 # the fall-through path resumes
    run_path(s, 0)
    assert top(s) == (20, ALL, -1, 0)                                   # both done: the whole warp again
    assert s.divergent_branches == 1


def test_nested_divergence_stacks_two_entries_per_level_and_unwinds_in_order():
    s = SimtStack(1, 1, 32, depth=2)                                    # starts small: the stack grows
    s.branch(warps(0), lanes(LOW16), target=10, reconverge=40)
    s.branch(warps(0), lanes(0x00FF), target=15, reconverge=30)         # inside the taken path
    assert top(s) == (15, 0x00FF, 30, 4) and s.stack_pc.shape[1] >= 4
    run_path(s, 0)
    assert top(s) == (11, 0xFF00, 30, 3)                                # inner fall-through
    run_path(s, 0)
    assert top(s) == (30, LOW16, 40, 2)                                 # inner reconverged, outer taken path
    run_path(s, 0)
    assert top(s) == (1, HIGH16, 40, 1)                                 # outer fall-through
    run_path(s, 0)
    assert top(s) == (40, ALL, -1, 0)


def test_a_branch_to_its_own_reconvergence_point_pops_at_once():
    s = SimtStack(1, 1, 32)
    s.branch(warps(0), lanes(LOW16), target=5, reconverge=5)            # if (...) { } with an empty body
    assert top(s) == (1, HIGH16, 5, 1)
    run_path(s, 0)
    assert top(s) == (5, ALL, -1, 0)


def test_warps_at_one_pc_branch_independently_in_one_call():
    s = SimtStack(3, 3, 96)
    s.branch(warps(0, 1, 2), lanes(ALL, 0, LOW16), target=8, reconverge=12)
    assert [int(p) for p in s.pc] == [8, 1, 8]
    assert [int(m) for m in s.mask] == [ALL, ALL, LOW16] and list(s.sp) == [0, 0, 2]
    assert (s.branches, s.divergent_branches) == (3, 1)


# ---- exits ------------------------------------------------------------------------------------------------
def test_exited_lanes_leave_every_entry_of_their_warp():
    s = SimtStack(1, 1, 32)
    s.branch(warps(0), lanes(LOW16), target=10, reconverge=20)
    s.exit(warps(0), lanes(0x0003))                                     # lanes 0-1 return on the taken path
    assert top(s) == (11, LOW16 & ~0x3, 20, 2)
    assert int(s.stack_mask[0, 0]) == ALL & ~0x3 and list(s.live) == [30]


def test_a_warp_whose_lanes_all_exit_is_done_and_never_ready():
    s = SimtStack(2, 2, 64)
    s.exit(warps(0), lanes(ALL))
    assert bool(s.done[0]) and int(s.ready_pc[0]) == NEVER and not s.finished
    s.exit(warps(1), lanes(ALL))
    assert s.finished and s.next_pc() == NEVER


def test_when_a_path_exits_entirely_the_other_path_resumes():
    s = SimtStack(1, 1, 32)
    s.branch(warps(0), lanes(LOW16), target=10, reconverge=20)
    s.exit(warps(0), lanes(LOW16))                                      # the whole taken path returns
    assert top(s) == (1, HIGH16, 20, 1) and not s.done[0]


# ---- barriers ---------------------------------------------------------------------------------------------
def test_a_barrier_holds_each_warp_until_every_thread_of_its_block_arrived():
    s = SimtStack(4, 2, 64)                                             # 2 blocks of 2 warps
    s.wait_at_barrier(warps(0))
    assert bool(s.waiting[0]) and int(s.ready_pc[0]) == NEVER and int(s.pc[0]) == 1
    assert list(s.warps_at(0)) == [1, 2, 3]
    s.wait_at_barrier(warps(2, 3))                                      # block 1 complete: released
    assert not s.waiting[2:].any() and list(s.ready_pc[2:]) == [1, 1] and s.barriers == 1
    assert bool(s.waiting[0])                                           # block 0 still waits for warp 1
    s.wait_at_barrier(warps(1))
    assert not s.waiting.any() and s.barriers == 2


def test_threads_that_exited_do_not_hold_a_barrier():
    s = SimtStack(2, 2, 64)
    s.wait_at_barrier(warps(0))
    s.exit(warps(1), lanes(ALL))                                        # the other warp returns early
    assert not s.waiting[0] and int(s.ready_pc[0]) == 1 and s.barriers == 1


def test_a_barrier_reached_by_part_of_a_warp_never_releases_and_leaves_a_held_path():
    s = SimtStack(1, 1, 32)
    s.branch(warps(0), lanes(LOW16), target=10, reconverge=20)          # __syncthreads() inside an if
    run_to(s, 0, 12)
    s.wait_at_barrier(warps(0))
    assert s.next_pc() == NEVER and not s.finished                      # the emulator reports a deadlock
    assert s.held_paths(0) == [(20, ALL), (1, HIGH16)]                  # lanes 16-31 wait at pc 1


def test_every_release_of_a_blocks_barrier_advances_its_epoch():
    s = SimtStack(4, 2, 64)                                             # 2 blocks of 2 warps
    s.wait_at_barrier(warps(0, 1))
    s.wait_at_barrier(warps(0, 1))
    s.wait_at_barrier(warps(2, 3))
    assert list(s.epoch) == [2, 1]                                      # what racecheck orders accesses by


# ---- independent-thread barriers (the checker's mode) -------------------------------------------------------
def its(n_warps=1, wpb=1, tpb=32):
    return SimtStack(n_warps, wpb, tpb, independent_threads=True)


def test_its_a_barrier_in_one_branch_holds_its_lanes_and_runs_the_others():
    s = its()
    s.branch(warps(0), lanes(LOW16), target=10, reconverge=20)          # if (lane < 16) { __syncthreads(); }
    run_to(s, 0, 12)
    s.wait_at_barrier(warps(0))
    assert top(s) == (1, HIGH16, 20, 2) and int(s.bar_lanes[0]) == LOW16   # lanes 16-31 run their path
    assert not s.waiting[0] and s.next_pc() == 1
    run_path(s, 0)                                  # ... to the reconvergence point, and on past it,
    assert top(s) == (20, HIGH16, -1, 1) and int(s.bar_lanes[0]) == LOW16  # as lanes 0-15 still wait there
    assert s.barriers == 0                                              # lanes 16-31 are alive: it holds


def test_its_lanes_held_at_the_reconvergence_point_run_on_and_their_exit_releases_the_barrier():
    s = its(2, 2, 64)
    # if (t < 16) __syncthreads(); ... return: lanes 16-31 branch straight to the reconvergence point
    s.branch(warps(0), lanes(HIGH16), target=20, reconverge=20)
    assert top(s) == (1, LOW16, 20, 1)
    s.wait_at_barrier(warps(0))                                         # lanes 0-15 wait at pc 1
    assert top(s) == (20, HIGH16, -1, 1) and int(s.bar_lanes[0]) == LOW16  # lanes 16-31 go on past the if
    s.exit(warps(0), lanes(HIGH16))                                     # ... and return
    s.exit(warps(1), lanes(ALL))                                        # so does the other warp
    assert s.barriers == 1 and not s.waiting.any() and list(s.epoch) == [1]
    assert top(s) == (2, LOW16, -1, 0) and s.next_pc() == 2             # lanes 0-15 continue to the end


def test_its_two_barriers_in_the_branches_of_an_if_else_release_together():
    s = its()
    s.branch(warps(0), lanes(0x55555555), target=10, reconverge=20)     # even lanes: then-branch
    run_to(s, 0, 11)
    s.wait_at_barrier(warps(0))                                         # even lanes wait at pc 11
    assert top(s) == (1, 0xAAAAAAAA, 20, 2)                             # odd lanes run the else-branch
    run_to(s, 0, 3)
    s.wait_at_barrier(warps(0))                                         # odd lanes wait at pc 3: all here
    assert s.barriers == 1 and s.next_pc() == 4                         # released: odd lanes go on first
    run_path(s, 0)
    assert top(s) == (12, 0x55555555, 20, 1)                            # then the even ones
    run_path(s, 0)
    assert top(s) == (20, ALL, -1, 0)                                   # and they reconverge
