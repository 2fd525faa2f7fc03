"""The roofline point of a kernel: floating-point work from the trace, DRAM bytes from the counters, peaks
from the GPU config.

FLOPs: for every executed floating-point instruction, its active threads x FLOPs per thread (``fma``/``mad``
count 2, ``add``/``sub``/``mul``/``min``/``max``/``neg``/``abs`` 1, as Nsight's
``smsp__sass_thread_inst_executed_op_{fadd,fmul,ffma}_pred_on.sum`` x {1, 1, 2}); divisions, square roots
and transcendentals are not counted (Nsight does not count MUFU either). Bytes: ``dram__bytes_read.sum +
dram__bytes_write.sum``. Peaks: FP32 lanes = SMs x sub-partitions x 32 / FP32 issue interval, x 2 (FMA)
x the SM clock; FP64 likewise; DRAM: the memory spec's ``peak_bytes_per_s``.

What bounds the kernel (:attr:`RooflinePoint.bound`) is said honestly: a roof bounds a kernel only if it
comes near it.  The side of the ridge point only says which roof *would* bound it; a kernel at less than
:data:`NEAR_ROOF` (60%, Nsight Compute's threshold in its Speed-of-Light rule) of both its FP32 peak and
its DRAM bandwidth is bound by neither: it is latency-bound (too little parallelism in flight to cover the
latencies: occupancy, dependences, on-chip contention).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from gpusim.functional.trace import popcount32

#: A kernel this close to a roof (fraction of the peak) is bound by it (Nsight Compute's Speed-of-Light
#: rule: "below 60% of peak typically indicates latency issues").
NEAR_ROOF = 0.6

_FLOPS_PER_OP = {"fma": 2, "mad": 2, "add": 1, "sub": 1, "mul": 1, "min": 1, "max": 1, "neg": 1, "abs": 1}


def flops_per_thread(opcode: str) -> tuple[int, str | None]:
    """(FLOPs per thread, "f32"|"f64"|"f16") of a PTX mnemonic, (0, None) if it is no counted FP op."""
    parts = opcode.split(".")
    n = _FLOPS_PER_OP.get(parts[0], 0)
    if not n:
        return 0, None
    for t in ("f32", "f64", "f16"):
        if t in parts[1:]:
            return n, t
    return 0, None


@dataclass
class RooflinePoint:
    kernel: str
    gpu: str
    flops: float                      # FP32 + FP64 + FP16 operations
    flops_f64: float
    dram_bytes: float
    seconds: float
    peak_flops_per_s: float           # FP32
    peak_flops_f64_per_s: float
    peak_dram_bytes_per_s: float

    @property
    def arithmetic_intensity(self) -> float:
        """FLOPs per DRAM byte (inf when the kernel touched no DRAM)."""
        return self.flops / self.dram_bytes if self.dram_bytes else float("inf")

    @property
    def flops_per_s(self) -> float:
        return self.flops / self.seconds if self.seconds else 0.0

    @property
    def dram_bytes_per_s(self) -> float:
        return self.dram_bytes / self.seconds if self.seconds else 0.0

    @property
    def ridge_point(self) -> float:
        """The intensity at which the kernel would stop being memory-bound (FLOP/byte)."""
        return self.peak_flops_per_s / self.peak_dram_bytes_per_s

    @property
    def attainable_flops_per_s(self) -> float:
        ai = self.arithmetic_intensity
        return self.peak_flops_per_s if ai == float("inf") else min(self.peak_flops_per_s,
                                                                    ai * self.peak_dram_bytes_per_s)

    @property
    def ridge_side(self) -> str:
        """The roof the kernel's intensity puts it under: "compute" right of the ridge point, else "memory"."""
        return "compute" if self.arithmetic_intensity >= self.ridge_point else "memory"

    @property
    def compute_fraction(self) -> float:
        """Achieved FLOP/s over the FP32 peak."""
        return self.flops_per_s / self.peak_flops_per_s if self.peak_flops_per_s else 0.0

    @property
    def bandwidth_fraction(self) -> float:
        """Achieved DRAM bytes/s over the peak bandwidth."""
        return self.dram_bytes_per_s / self.peak_dram_bytes_per_s if self.peak_dram_bytes_per_s else 0.0

    @property
    def bound(self) -> str:
        """"compute" or "memory" when the kernel reaches :data:`NEAR_ROOF` of that roof, else "latency"."""
        c, b = self.compute_fraction, self.bandwidth_fraction
        if max(c, b) < NEAR_ROOF:
            return "latency"
        return "compute" if c >= b else "memory"

    def bound_text(self) -> str:
        """The bound in words, with the fractions of both roofs."""
        c, b = 100 * self.compute_fraction, 100 * self.bandwidth_fraction
        both = f"{c:.2g}% of the FP32 peak, {b:.2g}% of the DRAM bandwidth"
        if self.bound == "latency":
            return (f"latency-bound: below both roofs ({both}; {NEAR_ROOF:.0%} of one would make it bound by "
                    f"it); its intensity puts it on the {self.ridge_side} side of the ridge point")
        return f"{self.bound}-bound ({both})"

    def as_dict(self) -> dict:
        d = asdict(self)
        d.update(arithmetic_intensity=self.arithmetic_intensity, flops_per_s=self.flops_per_s,
                 dram_bytes_per_s=self.dram_bytes_per_s, ridge_point=self.ridge_point,
                 attainable_flops_per_s=self.attainable_flops_per_s, bound=self.bound, ridge_side=self.ridge_side,
                 compute_fraction=self.compute_fraction, bandwidth_fraction=self.bandwidth_fraction)
        return d


def peak_flops_per_s(gpu, precision: str = "fp32") -> float:
    lanes = gpu.sm.count * gpu.sm.subpartitions * 32 / gpu.issue_interval(precision)
    return 2.0 * lanes * gpu.clock_mhz * 1e6


def kernel_flops(trace) -> tuple[float, float]:
    """(all FP operations, FP64 operations) executed by ``trace`` (guard-predicated lanes only)."""
    n = len(trace.instructions)
    per = np.zeros(n, dtype=np.float64)
    f64 = np.zeros(n, dtype=bool)
    for ins in trace.instructions:
        k, t = flops_per_thread(ins.opcode)
        per[ins.pc] = k
        f64[ins.pc] = t == "f64"
    pcs = np.asarray(trace.pc, dtype=np.int64)
    lanes = popcount32(trace.exec_mask).astype(np.float64)
    work = per[pcs] * lanes
    return float(work.sum()), float(work[f64[pcs]].sum())


def roofline_point(trace, timing, gpu) -> RooflinePoint:
    if isinstance(gpu, str):
        from gpusim.config import load_gpu
        gpu = load_gpu(gpu)
    flops, f64 = kernel_flops(trace)
    c = timing.counters
    dram = float(c.get("dram__bytes_read.sum", 0.0)) + float(c.get("dram__bytes_write.sum", 0.0))
    mem = getattr(gpu, "memory", None)
    peak_bw = float(mem.dram.peak_bytes_per_s) if mem is not None else float("nan")
    return RooflinePoint(kernel=trace.kernel, gpu=gpu.name, flops=flops, flops_f64=f64, dram_bytes=dram,
                         seconds=timing.cycles / (gpu.clock_mhz * 1e6), peak_flops_per_s=peak_flops_per_s(gpu),
                         peak_flops_f64_per_s=peak_flops_per_s(gpu, "fp64"), peak_dram_bytes_per_s=peak_bw)
