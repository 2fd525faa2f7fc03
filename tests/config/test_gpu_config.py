"""GPU configuration: the shipped presets load with their sourced values, and bad input is rejected with a
message that names the field and the file."""
from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from gpusim.config import GpuConfig, SchedulerSpec, SmSpec, load_gpu, preset_names, preset_path
from gpusim.errors import ConfigError
from isa.units import LatencyClass, Unit


def test_presets_shipped():
    assert {"h100", "a100", "pmpp-device-d"} <= set(preset_names())


@pytest.mark.parametrize("name", ["h100", "a100", "pmpp-device-d"])
def test_every_preset_loads_and_covers_every_unit_and_latency_class(name):
    gpu = load_gpu(name)
    assert gpu.name == name
    for unit in Unit:
        assert gpu.issue_interval(unit) >= 1
    for latency_class in LatencyClass:
        assert gpu.latency(latency_class) >= 0
    assert gpu.latency(LatencyClass.NONE) == 0


def test_h100_sxm5_datasheet_values():
    """HARDWARE.md section 1: 132 SMs, 64 warps / 2048 threads / 32 blocks, 64K registers,
    228 KB shared per SM, 227 KB per block with opt-in, FP64 issues every 2 cycles."""
    gpu = load_gpu("h100")
    sm = gpu.sm
    assert (sm.count, sm.subpartitions, sm.max_warps, sm.max_threads, sm.max_blocks) == (132, 4, 64, 2048, 32)
    assert (sm.registers, sm.register_alloc_unit, sm.max_registers_per_thread) == (65536, 256, 255)
    assert (sm.shared_bytes_per_sm, sm.shared_bytes_per_block_optin) == (233472, 227 * 1024)
    assert sm.shared_carveout_kb == (0, 8, 16, 32, 64, 100, 132, 164, 196, 228)
    assert sm.l1_shared_bytes == 256 * 1024
    assert gpu.issue_interval("fp64") == 2 and gpu.issue_interval(Unit.FP32) == 1
    assert gpu.latency("fma") == 4 and gpu.latency(LatencyClass.SHARED) == 23   # measured on the H100 (calibration.json)
    assert gpu.clock_mhz == 1590.0          # the base clock ncu locks to; the boost clock is h100-boost's
    boost = load_gpu("h100-boost")
    assert boost.clock_mhz == 1980.0 and boost.memory == gpu.memory and boost.sm == gpu.sm



def test_h100_launch_latency_is_mostly_a_fixed_time():
    """micro/launch_clock.json: an empty 1-block kernel takes 3591 SM cycles at 1584 MHz and 4224 at
    1968 MHz under ncu = 883.5 cycles + 1697.9 ns; the presets give the first block dispatch at
    755 cycles + 1698 ns, so the boost preset starts its blocks later in SM cycles."""
    import json
    from pathlib import Path
    base, boost = load_gpu("h100"), load_gpu("h100-boost")
    assert (base.kernel_launch_cycles, base.kernel_launch_ns) == (755, 1698.0)
    assert base.kernel_launch_latency_cycles == 755 + round(1698.0 * 1.590)     # 3455
    assert boost.kernel_launch_latency_cycles == 755 + round(1698.0 * 1.980)    # 4117
    rec = json.loads((Path(__file__).parents[1] / "golden/h100/micro/launch_clock.json").read_text())
    for clock, gpu in (("base", base), ("none", boost)):
        runs = [r["1"]["gpc__cycles_elapsed.max"] for r in rec["runs"][clock]]
        empty_kernel = gpu.kernel_launch_latency_cycles + gpu.block_launch_cycles + 1
        median = sorted(runs)[len(runs) // 2]
        assert abs(empty_kernel - median) / median < 0.05, (clock, empty_kernel, median)

def test_loop_unroll_factor_below_one_is_refused():
    with pytest.raises(ConfigError, match=r"loop_unroll_factor: must be >= 1 \(1: no unrolling\), got 0"):
        load_gpu("h100").replace(loop_unroll_factor=0)


def test_an_l2_dirty_limit_below_a_sector_per_slice_is_refused_not_taken_as_no_limit():
    # the limit is split over the slices in whole sectors: 80 x 32 B is the least that is a limit at all
    assert load_gpu("h100", {"memory.l2.dirty_limit_bytes": 80 * 32}).memory.l2.dirty_limit_bytes == 2560
    with pytest.raises(ConfigError, match=r"memory\.l2\.dirty_limit_bytes: 2559 B is less than a 32 B sector for "
                                          r"each of the 80 slices \(0: no limit\)"):
        load_gpu("h100", {"memory.l2.dirty_limit_bytes": 2559})


def test_a100_differs_from_h100_where_the_datasheets_do():
    """HARDWARE.md section 1: 108 SMs, 164 KB shared per SM, 192 KB L1+shared, FP64 every 4 cycles."""
    gpu = load_gpu("a100")
    assert gpu.sm.count == 108
    assert gpu.sm.shared_bytes_per_sm == 167936
    assert gpu.sm.shared_carveout_kb[-1] == 164
    assert gpu.sm.l1_shared_bytes == 192 * 1024
    assert gpu.issue_interval(Unit.FP64) == 4


def test_pmpp_device_d_is_the_seeds_teaching_device():
    """seeds/000: "each SM can accommodate up to 1536 threads and 16384 registers", "16,384 (16K) bytes of
    shared memory per SM", "each SM in D can accommodate up to 8 blocks"."""
    sm = load_gpu("pmpp-device-d").sm
    assert (sm.max_threads, sm.registers, sm.shared_bytes_per_sm, sm.max_blocks) == (1536, 16384, 16384, 8)


def test_overrides_change_fields_by_dotted_name_and_by_nested_table():
    gpu = load_gpu("h100", overrides={"sm.count": 4, "latency_cycles.fma": 5})
    assert gpu.sm.count == 4 and gpu.latency("fma") == 5
    nested = load_gpu("h100", overrides={"sm": {"count": 4}, "latency_cycles": {"fma": 5}})
    assert nested == gpu


def test_replace_returns_a_validated_copy_and_leaves_the_original():
    h100 = load_gpu("h100")
    small = h100.replace(**{"sm.count": 8, "issue_interval_cycles.fp64": 4, "scheduler.policy": "lrr"})
    assert (small.sm.count, small.issue_interval("fp64"), small.scheduler.policy) == (8, 4, "lrr")
    assert h100.sm.count == 132
    with pytest.raises(ConfigError, match=r"sm\.max_threads"):
        h100.replace(**{"sm.max_warps": 48})


@pytest.mark.parametrize("name", ["h100", "a100", "pmpp-device-d"])
def test_to_dict_round_trips_the_whole_config_including_memory(name):
    gpu = load_gpu(name)
    assert gpu.replace() == gpu
    assert hash(gpu.replace()) == hash(gpu)


def test_config_is_frozen_hashable_and_picklable():
    gpu = load_gpu("a100")
    with pytest.raises(AttributeError):
        gpu.clock_mhz = 1.0  # type: ignore[misc]
    with pytest.raises(TypeError):
        gpu.latency_cycles["fma"] = 1  # type: ignore[index]
    assert pickle.loads(pickle.dumps(gpu)) == gpu
    assert hash(gpu.sm) == hash(load_gpu("a100").sm)


def test_unknown_preset_lists_the_presets():
    with pytest.raises(ConfigError, match=r"unknown GPU preset 'h200'.*a100.*h100.*pmpp-device-d"):
        load_gpu("h200")


def _copy_preset(tmp_path: Path, name: str, edit) -> Path:
    text = preset_path(name).read_text()
    new_text = edit(text)
    assert new_text != text, "the edit did not apply"
    path = tmp_path / "my_gpu.toml"
    path.write_text(new_text)
    return path


def test_a_user_copy_of_a_preset_loads_by_path(tmp_path):
    path = _copy_preset(tmp_path, "h100", lambda t: t.replace("count = 132", "count = 66"))
    assert load_gpu(path).sm.count == 66
    assert load_gpu(str(path)).sm.count == 66


def test_unknown_field_error_names_field_and_file(tmp_path):
    path = _copy_preset(tmp_path, "h100", lambda t: t.replace("count = 132", "count = 132\nwarps_per_sm = 64"))
    with pytest.raises(ConfigError, match=r"my_gpu\.toml: sm\.warps_per_sm: unknown field"):
        load_gpu(path)


def test_wrong_type_error_names_field_and_file(tmp_path):
    path = _copy_preset(tmp_path, "a100", lambda t: t.replace("registers = 65536", 'registers = "64K"'))
    with pytest.raises(ConfigError, match=r"my_gpu\.toml: sm\.registers: expected an integer"):
        load_gpu(path)


def test_missing_field_is_an_error(tmp_path):
    path = _copy_preset(tmp_path, "a100", lambda t: t.replace("fma = 4 ", "# fma = 4 "))
    with pytest.raises(ConfigError, match=r"latency_cycles\.fma: missing"):
        load_gpu(path)


def test_malformed_toml_names_the_file(tmp_path):
    path = tmp_path / "broken.toml"
    path.write_text("name = \n")
    with pytest.raises(ConfigError, match=r"broken\.toml: not valid TOML"):
        load_gpu(path)


@pytest.mark.parametrize("overrides, field", [
    ({"sm.max_threads": 2000}, r"sm\.max_threads: must equal max_warps \* warp_size"),
    ({"sm.shared_bytes_per_block_optin": 300000}, r"sm\.shared_bytes_per_block_optin: 300000 exceeds"),
    ({"sm.shared_carveout_kb": [0, 16, 8, 228]}, r"sm\.shared_carveout_kb: steps must be strictly increasing"),
    ({"sm.shared_carveout_kb": [0, 8, 164]}, r"sm\.shared_carveout_kb: the largest step"),
    ({"sm.count": 0}, r"sm\.count: must be > 0"),
    ({"sm.count": True}, r"sm\.count: expected an integer"),
    ({"latency_cycles.fma": -1}, r"latency_cycles\.fma: must be >= 0"),
    ({"latency_cycles.fmaa": 4}, r"latency_cycles\.fmaa: unknown key"),
    ({"issue_interval_cycles.fp32": 0}, r"issue_interval_cycles\.fp32: must be >= 1"),
    ({"scheduler.active_pool_warps": 0}, r"scheduler\.active_pool_warps: must be > 0"),
    ({"scheduler.pool": 4}, r"override 'scheduler\.pool': unknown field"),
])
def test_inconsistent_fields_are_errors_naming_the_field(overrides, field):
    with pytest.raises(ConfigError, match=r"h100\.toml: " + field):
        load_gpu("h100", overrides=overrides)


def test_misspelt_override_is_reported_not_ignored():
    with pytest.raises(ConfigError, match=r"override 'sm\.cout': unknown field"):
        load_gpu("h100", overrides={"sm.cout": 4})
    with pytest.raises(ConfigError, match=r"override 'smx\.count'"):
        load_gpu("h100", overrides={"smx.count": 4})


def test_spec_built_in_python_is_validated_too():
    with pytest.raises(ConfigError, match=r"sm\.max_threads"):
        SmSpec(count=1, max_threads=1000, max_warps=32, max_blocks=8, registers=65536,
               shared_bytes_per_sm=65536, shared_bytes_per_block_optin=65536, shared_carveout_kb=(0, 64),
               l1_shared_bytes=131072)


def test_describe_documents_every_field_with_its_unit():
    text = GpuConfig.describe()
    assert "sm.shared_alloc_unit_bytes: int = 128  # bytes: shared-memory allocation granularity" in text
    assert "clock_mhz: float  # MHz" in text


def test_scheduler_table_holds_the_policy_and_its_parameters():
    gpu = load_gpu("h100")
    assert (gpu.scheduler.policy, gpu.scheduler.active_pool_warps) == ("gto", 8)
    assert gpu.to_dict()["scheduler"] == {"policy": "gto", "active_pool_warps": 8}
    short = load_gpu("h100", overrides={"scheduler": "lrr"})          # scheduler = "lrr" stands for the table
    assert short.scheduler == SchedulerSpec(policy="lrr")
    assert "scheduler.active_pool_warps: int = 8" in GpuConfig.describe()


def test_registry_names_are_checked_where_the_registry_lives():
    """The config is plain data: policy and DRAM-mapping names load, and fail when a simulation is built."""
    from gpusim.memory.system import MemorySystem
    from gpusim.timing.schedulers import make_scheduler
    gpu = load_gpu("h100", overrides={"scheduler.policy": "fifo", "memory.dram.address_mapping": "zigzag"})
    with pytest.raises(ConfigError, match=r"scheduler: unknown warp-scheduling policy 'fifo'; known: .*gto"):
        make_scheduler(gpu.scheduler.policy, gpu)
    with pytest.raises(ConfigError, match=r"address_mapping: unknown mapping 'zigzag'"):
        MemorySystem(gpu)


def test_config_modules_import_no_circle():
    """fields <- memory <- gpu <- loader: each config module imports only those before it, and nothing of
    the simulator above the config."""
    import ast
    from pathlib import Path
    import gpusim.config as c
    order = ["fields", "memory", "gpu", "loader"]
    for i, name in enumerate(order):
        tree = ast.parse((Path(c.__file__).parent / f"{name}.py").read_text())
        imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
        imported |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        gpusim_deps = {m for m in imported if m.startswith("gpusim.")}
        allowed = {f"gpusim.config.{o}" for o in order[:i]} | {"gpusim.errors"}
        assert gpusim_deps <= allowed, (name, gpusim_deps - allowed)
        assert "importlib" not in imported
