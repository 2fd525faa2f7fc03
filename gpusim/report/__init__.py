"""Nsight-Compute-like reports of a timing run: ``gpusim report <program>`` and ``gpusim compare-configs``.

    >>> from gpusim.report import build_report, print_report
    >>> rep = build_report(gpusim.run("reduce_interleaved", size="small", mode="timing"))
    >>> print_report(rep); rep.metrics()["sm__warps_active.avg.pct_of_peak_sustained_active"]
"""
from gpusim.report.render import compare_csv, compare_json, print_compare, print_report, to_csv, to_json
from gpusim.report.sections import COMPARE_METRICS, Metric, Report, Section, Table, build_report

__all__ = ["build_report", "print_report", "to_json", "to_csv", "print_compare", "compare_json", "compare_csv",
           "Report", "Section", "Metric", "Table", "COMPARE_METRICS", "compare_configs"]


def compare_configs(source, gpus, **run_kwargs) -> list[Report]:
    """Emulate ``source`` once, time its trace on each GPU config, and return one report per GPU."""
    import gpusim
    from gpusim.timing import simulate
    base = gpusim.run(source, mode="emulate", record_trace=True, **run_kwargs)
    reports = []
    for g in gpus:
        import copy
        r = copy.copy(base)
        r.mode, r.gpu, r._timeline = "timing", g, None
        r.timing = simulate(base.trace, g)
        reports.append(build_report(r, what_if=False))
    return reports
