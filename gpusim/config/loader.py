"""Reading GPU configurations from TOML: presets shipped in ``gpusim/config/presets/`` or any user file.

A preset file has top-level keys for :class:`~gpusim.config.gpu.GpuConfig`'s scalar fields, then the tables
``[sm]``, ``[issue_interval_cycles]``, ``[latency_cycles]`` and, last, ``[memory]`` (owned by the memory
system, validated by ``MemorySpec.from_dict``).  Every key must be a known field: a typo is an error that
names it, rather than a silently ignored setting.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import Path
from typing import Any

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

from gpusim.config.gpu import FrozenMap, GpuConfig, SmSpec, _memory_spec_class, plain_copy
from gpusim.errors import ConfigError

PRESET_DIR = Path(__file__).parent / "presets"


def preset_names() -> list[str]:
    """Names of the presets shipped with gpusim (file stems in ``gpusim/config/presets``)."""
    return sorted(p.stem for p in PRESET_DIR.glob("*.toml"))


def preset_path(name: str) -> Path:
    """The TOML file of a shipped preset; :class:`ConfigError` listing the presets if there is none."""
    path = PRESET_DIR / f"{name}.toml"
    if not path.is_file():
        raise ConfigError(f"unknown GPU preset {name!r}; available presets: {', '.join(preset_names())} "
                          f"(or give the path of a .toml file)")
    return path


def load_gpu(name_or_path: str | Path, overrides: Mapping[str, Any] | None = None) -> GpuConfig:
    """Load a GPU config by preset name (``"h100"``) or TOML path, then apply ``overrides`` (a
    :class:`GpuConfig` is returned as it is, or changed by ``overrides``).

    ``overrides`` maps dotted field names to values (``{"sm.count": 4}``) or nests tables
    (``{"sm": {"count": 4}}``).  Raises :class:`ConfigError` for an unknown preset, an unreadable or
    malformed file, or any unknown, mistyped or inconsistent field (the message names field and file).
    """
    if isinstance(name_or_path, GpuConfig):
        return name_or_path.replace(**overrides) if overrides else name_or_path
    text = str(name_or_path)
    is_path = isinstance(name_or_path, Path) or text.endswith(".toml") or "/" in text or "\\" in text
    path = Path(text) if is_path else preset_path(text)
    table = read_toml(path)
    if overrides:
        table = apply_overrides(table, overrides, source=str(path))
    return config_from_dict(table, source=str(path))


def read_toml(path: Path) -> dict[str, Any]:
    """Parse a TOML file; errors become :class:`ConfigError` with the file name."""
    try:
        with open(path, "rb") as fh:
            return tomllib.load(fh)
    except FileNotFoundError:
        raise ConfigError(f"{path}: GPU config file not found; presets: {', '.join(preset_names())}") from None
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"{path}: not valid TOML: {err}") from None


def _flatten(overrides: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for key, value in overrides.items():
        if isinstance(value, Mapping) and not isinstance(value, FrozenMap):
            flat.update(_flatten(value, f"{prefix}{key}."))
        else:
            flat[f"{prefix}{key}"] = value
    return flat


def apply_overrides(table: Mapping[str, Any], overrides: Mapping[str, Any], source: str) -> dict[str, Any]:
    """A deep copy of ``table`` with dotted overrides applied.  A dotted name must lead through existing
    tables to an existing key (except inside ``latency_cycles``/``issue_interval_cycles`` and ``memory``,
    whose own validation names bad keys), so a misspelt override is reported, not ignored."""
    out = plain_copy(table)
    for dotted, value in _flatten(overrides).items():
        parts = dotted.split(".")
        node = out
        for depth, part in enumerate(parts[:-1]):
            child = node.get(part)
            if not isinstance(child, dict):
                where = ".".join(parts[:depth + 1])
                raise ConfigError(f"{source}: override {dotted!r}: {where!r} is not a table of the config")
            node = child
        last = parts[-1]
        open_table = parts[0] in ("latency_cycles", "issue_interval_cycles", "memory") and len(parts) > 1
        if last not in node and not open_table:
            raise ConfigError(f"{source}: override {dotted!r}: unknown field; known here: "
                              f"{', '.join(sorted(node))}")
        node[last] = list(value) if isinstance(value, tuple) else value
    return out


def _check_table_keys(table: Any, cls: type, prefix: str) -> None:
    if not isinstance(table, Mapping):
        raise ConfigError(f"{prefix.rstrip('.') or 'config'}: expected a table, got {table!r}")
    known = {f.name: f for f in dataclasses.fields(cls)}
    for key in table:
        if key not in known:
            raise ConfigError(f"{prefix}{key}: unknown field; known fields: {', '.join(known)}")
    for name, f in known.items():
        if f.default is dataclasses.MISSING and name not in table:
            raise ConfigError(f"{prefix}{name}: missing ({f.metadata.get('doc', '')})")


def _int_table(table: Any, name: str) -> FrozenMap:
    if not isinstance(table, Mapping):
        raise ConfigError(f"{name}: expected a table of integers, got {table!r}")
    return FrozenMap(table)


def config_from_dict(table: Mapping[str, Any], source: str = "<dict>") -> GpuConfig:
    """Build and validate a :class:`GpuConfig` from a preset-shaped dict; errors are prefixed by
    ``source`` (the file name)."""
    try:
        _check_table_keys(table, GpuConfig, "")
        sm_table = table["sm"]
        _check_table_keys(sm_table, SmSpec, "sm.")
        sm_values = {k: tuple(v) if isinstance(v, list) else v for k, v in sm_table.items()}
        values = dict(table)
        values["sm"] = SmSpec(**sm_values)
        values["issue_interval_cycles"] = _int_table(table["issue_interval_cycles"], "issue_interval_cycles")
        values["latency_cycles"] = _int_table(table["latency_cycles"], "latency_cycles")
        values["memory"] = _build_memory(table["memory"])
        return GpuConfig(**values)
    except ConfigError as err:
        raise ConfigError(f"{source}: {err}") from None


def _build_memory(table: Any) -> Any:
    """The ``[memory]`` table as a ``MemorySpec`` once the memory system defines it; until then the raw
    table (read-only), so the rest of the config can already be loaded and tested."""
    spec_class = _memory_spec_class()
    if spec_class is not None:
        return spec_class.from_dict(table, path="memory")
    if not isinstance(table, Mapping):
        raise ConfigError(f"memory: expected a table, got {table!r}")
    return FrozenMap(table)
