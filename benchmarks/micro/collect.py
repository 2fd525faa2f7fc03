"""Slim the device records of a campaign into tests/golden/h100/micro/ (run here, after a device call).

    python3 benchmarks/micro/collect.py /tmp/r1/mb 1 /tmp/r2/mb 2 [/tmp/r3/mb 3]

Each argument pair is a folder unpacked from a device call's micro.tgz and its campaign number.  ncu rows keep
only the metrics the section asked for (ncu's raw page also prints every device attribute), plus launch__*
for the carve-out sections; records are written compact, one JSON per section, with the campaign number.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "tests" / "golden" / "h100" / "micro"
LAUNCH_KEEP = {f"launch__{k}" for k in (
    "block_size", "grid_size", "registers_per_thread", "registers_per_thread_allocated", "shared_mem_config_size",
    "shared_mem_per_block", "shared_mem_per_block_static", "shared_mem_per_block_dynamic",
    "shared_mem_per_block_driver", "shared_mem_per_block_allocated", "occupancy_limit_blocks",
    "occupancy_limit_registers", "occupancy_limit_shared_mem", "occupancy_limit_warps", "occupancy_limit_barriers",
    "waves_per_multiprocessor", "func_cache_config", "barrier_count", "thread_count")} | {
    "sm__warps_active.avg.pct_of_peak_sustained_active", "sm__maximum_warps_per_active_cycle_pct"}
SWEEP_DROP = ("cfg", "window_ns_all", "static_smem", "local_bytes")
DROP_PREFIX = ("device__attribute", "nvlink__", "numa__", "c2clink__", "profiler__", "pmsampling__")


def slim_ncu(block: dict, keep_launch: bool, keep_all_suffixes: bool) -> dict:
    kept = set(block.get("metrics_kept") or block.get("metrics_requested") or [])
    bases = {m.split(".", 1)[0] for m in kept}
    rows = []
    for r in block.get("rows", []):
        x = r.get("ncu")
        if x:
            y = {}
            for k, v in x.items():
                if k in ("id", "kernel", "grid", "block"):
                    y[k] = v
                elif k.startswith(DROP_PREFIX):
                    continue
                elif k in kept or (keep_launch and k in LAUNCH_KEEP):
                    y[k] = v
                elif keep_all_suffixes and k.split(".", 1)[0] in bases:
                    y[k] = v
            x = y
        rows.append({**r, "ncu": x})
    out = dict(block)
    out["rows"] = rows
    return out


def _round(v):
    return float(f"{v:.5g}") if isinstance(v, float) else v


def main(argv: list[str]) -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    pairs = list(zip(argv[0::2], argv[1::2]))
    for folder, campaign in pairs:
        for p in sorted(Path(folder).glob("*.json")):
            if ".spec" in p.name:
                continue
            doc = json.loads(p.read_text())
            name = p.stem
            if isinstance(doc.get("ncu"), dict):
                doc["ncu"] = slim_ncu(doc["ncu"], keep_launch=name.startswith("carveout"),
                                      keep_all_suffixes=False)
            for key in ("ncu_base", "ncu_none"):
                if isinstance(doc.get(key), dict):
                    doc[key] = slim_ncu(doc[key], keep_launch=True, keep_all_suffixes=True)
            if name.startswith("sweep"):
                doc["rows"] = [{k: _round(v) for k, v in r.items() if k not in SWEEP_DROP} for r in doc["rows"]]
            if name == "info":
                doc.pop("nvidia_smi_q_clock", None)
                name = f"info_campaign{campaign}"
            doc["campaign"] = int(campaign)
            (OUT / f"{name}.json").write_text(json.dumps(doc, separators=(",", ":"), default=str))
            print(f"{name}.json {(OUT / f'{name}.json').stat().st_size // 1024} KB")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
