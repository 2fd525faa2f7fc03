"""Analysis above the timing model: what a simulated kernel did, when, and why it is slow.

It only observes: :mod:`~gpusim.analysis.timeline` collects the timing model's observer events
(:mod:`gpusim.timing.hooks`) into warp-state intervals, event streams and binned series;
:mod:`~gpusim.analysis.chrome_trace` writes them for Perfetto / chrome://tracing;
:mod:`~gpusim.analysis.roofline` places the kernel under its GPU's roofs; :mod:`~gpusim.analysis.source`
charges stall cycles to PTX and CUDA lines (Nsight's Source page).  The warp-state vocabulary and the
Nsight metric names are the timing model's own (:mod:`gpusim.timing.warp_states`,
:mod:`gpusim.timing.metrics`).
"""
