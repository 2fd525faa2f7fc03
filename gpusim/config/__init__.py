"""GPU configurations: frozen, documented spec dataclasses and the TOML presets they are read from.

Presets shipped with gpusim (``preset_names()``): ``h100`` (H100 SXM5, 132 SMs), ``a100`` (A100 SXM4,
108 SMs) and ``pmpp-device-d`` (the teaching "device D" of the seeds: 1536 threads, 16,384 registers,
16 KB shared memory and 8 blocks per SM).  Each value in a preset file cites its source (keys of
``shared/HARDWARE.md``) in a comment.

Make your own GPU
-----------------
Copy a preset and edit any field::

    cp "$(python -c 'import gpusim.config as c; print(c.preset_path("h100"))')" my_gpu.toml
    # edit my_gpu.toml, e.g. under [sm]:  count = 66
    gpusim run programs/matmul_tiled.cu --gpu my_gpu.toml

or change fields from Python without a file::

    from gpusim.config import load_gpu
    gpu = load_gpu("h100", overrides={"sm.count": 66, "latency_cycles.fma": 5})
    smaller = gpu.replace(**{"sm.registers": 32768, "sm.max_registers_per_block": 32768})

A path (anything ending in ``.toml`` or containing ``/``) and a preset name are accepted alike.  Unknown
fields, wrong types and inconsistent values (``sm.max_threads`` != ``sm.max_warps * sm.warp_size``,
shared memory per block above the SM's, carve-out steps not increasing, ...) raise
:class:`gpusim.errors.ConfigError` naming the dotted field and the file.  ``GpuConfig.describe()`` lists
every field with its type, default and unit.
"""
from gpusim.config.fields import FrozenMap, apply_overrides
from gpusim.config.gpu import GpuConfig, SchedulerSpec, SmSpec, config_from_dict
from gpusim.config.loader import load_gpu, preset_names, preset_path

__all__ = ["FrozenMap", "GpuConfig", "SchedulerSpec", "SmSpec", "apply_overrides", "config_from_dict", "load_gpu",
           "preset_names", "preset_path"]
