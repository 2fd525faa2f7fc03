"""Turn the CSVs of `ncu_device.sh` into one JSON record of per-launch GPU durations.

Usage: python examples/apps/ncu_to_json.py DIR OUT.json

DIR holds `APP_SIZE.csv` (ncu --csv output, the app's own prints mixed in), `nvidia_smi.txt`, `date.txt`
and `ncu_version.txt` as the script writes them.  Each launch keeps its kernel name, grid, block and the
metrics; the apps' CuPy helper kernels (copies, fills) are kept too and marked `app_kernel = false`.
"""

from __future__ import annotations

import csv
import json
import re
import sys
from pathlib import Path

APP_KERNELS = {
    "jacobi2d": {"jacobi_sweep", "max_change"},
    "fdtd2d": {"update_ey", "update_ex", "update_hz"},
    "bfs": {"bfs_level", "level_histogram"},
}


def _number(text: str) -> float:
    return float(text.replace(",", ""))


def read_launches(path: Path, app: str) -> list[dict]:
    """Every profiled launch of one app run, in launch order."""
    rows = [line for line in path.read_text().splitlines() if line.startswith('"')]
    launches: dict[int, dict] = {}
    for row in csv.DictReader(rows):
        name = row["Kernel Name"]
        launch = launches.setdefault(int(row["ID"]), {
            "kernel": name,
            "app_kernel": name in APP_KERNELS[app],
            "grid": [int(v) for v in re.findall(r"\d+", row["Grid Size"])],
            "block": [int(v) for v in re.findall(r"\d+", row["Block Size"])],
            "metrics": {},
        })
        launch["metrics"][row["Metric Name"]] = _number(row["Metric Value"])
    return [launches[n] for n in sorted(launches)]


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    src, out = Path(argv[0]), Path(argv[1])
    record = {
        "format": "gpusim-apps-ncu/1",
        "provenance": {
            "date": (src / "date.txt").read_text().strip(),
            "nvidia_smi": (src / "nvidia_smi.txt").read_text().strip(),
            "ncu": (src / "ncu_version.txt").read_text().strip().splitlines()[-1],
            "command": "bash examples/apps/ncu_device.sh (ncu --cache-control none --clock-control base)",
        },
        "runs": {},
    }
    for csv_path in sorted(src.glob("*.csv")):
        app, size = csv_path.stem.rsplit("_", 1)
        record["runs"][f"{app}/{size}"] = read_launches(csv_path, app)
    out.write_text(json.dumps(record, indent=1) + "\n")
    n = sum(len(v) for v in record["runs"].values())
    print(f"{out}: {len(record['runs'])} runs, {n} launches")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
