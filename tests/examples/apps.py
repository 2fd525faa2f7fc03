"""Loading the example apps (examples/apps) with ``import gpusim.cupy as cupy`` chosen by their switch."""
import importlib
import os
import sys
from pathlib import Path

APPS_DIR = Path(__file__).resolve().parents[2] / "examples" / "apps"
APPS = ("jacobi2d", "fdtd2d", "bfs")
DEVICE_RECORD = Path(__file__).resolve().parents[1] / "golden" / "h100" / "apps" / "apps_device.json"
NCU_RECORD = DEVICE_RECORD.with_name("apps_ncu.json")


def load_app(name: str, sim: bool = True):
    """The app's module, imported fresh with its import switch set (``GPUSIM_CUPY``)."""
    old = os.environ.get("GPUSIM_CUPY")
    os.environ["GPUSIM_CUPY"] = "1" if sim else "0"
    try:
        if str(APPS_DIR) not in sys.path:
            sys.path.insert(0, str(APPS_DIR))
        sys.modules.pop(name, None)
        return importlib.import_module(name)
    finally:
        if old is None:
            os.environ.pop("GPUSIM_CUPY", None)
        else:
            os.environ["GPUSIM_CUPY"] = old
