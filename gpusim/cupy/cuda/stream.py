"""Streams and events, as ``cupy.cuda.stream``: in order, on the program's simulated clock.

The simulator runs every launch when it is made and in program order, so all streams are one in-order
queue: work on two streams never overlaps (on a GPU it may).  An :class:`Event` records the program clock
(:attr:`gpusim.cupy._session.Session.clock_cycles`) at ``record()``; :func:`get_elapsed_time` is the
difference in milliseconds at the GPU preset's clock, that is, the simulated time of the kernels launched
between the two records (host work in between takes no simulated time).  In emulate mode kernels take no
time and elapsed times are 0 (with one warning).
"""
from __future__ import annotations

from gpusim.cupy import _session
from gpusim.errors import GpusimError


class Stream:
    """A CUDA stream (``cupy.cuda.Stream``); ``with stream:`` makes it current."""

    _ids = 0

    def __init__(self, null: bool = False, non_blocking: bool = False, ptds: bool = False):
        if null:
            self.ptr = 0
        else:
            Stream._ids += 1
            self.ptr = Stream._ids
        self.non_blocking = non_blocking
        self._prev: list = []

    def __enter__(self):
        global _current
        self._prev.append(_current)
        _current = self
        return self

    def __exit__(self, *exc):
        global _current
        _current = self._prev.pop()

    def use(self) -> "Stream":
        global _current
        _current = self
        return self

    def synchronize(self) -> None:
        """Nothing to wait for: launches have run when they return."""

    @property
    def done(self) -> bool:
        return True

    def record(self, event: "Event | None" = None) -> "Event":
        event = event or Event()
        event.record(self)
        return event

    def wait_event(self, event: "Event") -> None:
        """In order already (see the module docstring)."""

    def __repr__(self) -> str:
        return f"<gpusim.cupy.cuda.Stream {self.ptr}>"


Stream.null = Stream(null=True)
_current = Stream.null


def get_current_stream(device_id: int = -1) -> Stream:
    return _current


class Event:
    """A CUDA event (``cupy.cuda.Event``): a point on the simulated clock."""

    def __init__(self, block: bool = False, disable_timing: bool = False, interprocess: bool = False):
        self.disable_timing = disable_timing
        self.cycle: int | None = None
        self._session = None

    def record(self, stream: Stream | None = None) -> None:
        s = _session.session()
        s.note_no_time()
        self._session = s
        self.cycle = s.clock_cycles

    def synchronize(self) -> None:
        """Launches have run when they return: nothing to wait for."""

    @property
    def done(self) -> bool:
        return True


def get_elapsed_time(start_event: Event, end_event: Event) -> float:
    """Simulated milliseconds between two recorded events (``cupy.cuda.get_elapsed_time``)."""
    for e in (start_event, end_event):
        if e.cycle is None:
            raise GpusimError("get_elapsed_time: an event was never recorded (call event.record() first)")
        if e.disable_timing:
            raise GpusimError("get_elapsed_time: the event was made with disable_timing=True")
    if start_event._session is not end_event._session:
        raise GpusimError("get_elapsed_time: the events were recorded in different gpusim.cupy sessions")
    return start_event._session.cycles_to_ms(end_event.cycle - start_event.cycle)
