"""Reading GPU configurations from TOML: presets shipped in ``gpusim/config/presets/`` or any user file.

A preset file has top-level keys for :class:`~gpusim.config.gpu.GpuConfig`'s scalar fields, then the tables
``[scheduler]``, ``[sm]``, ``[issue_interval_cycles]``, ``[latency_cycles]`` and, last, ``[memory]``
(validated by ``MemorySpec.from_dict``).  Every key must be a known field: a typo is an error that
names it, rather than a silently ignored setting.

A file may start from another preset: ``inherits = "h100"`` takes that preset's table and lays this file's
keys over it, table by table (``h100-boost.toml`` is ``h100`` with another SM clock).
"""
from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

from gpusim.config.fields import apply_overrides
from gpusim.config.gpu import GpuConfig, config_from_dict
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
    table = read_preset_table(path)
    if overrides:
        table = apply_overrides(table, overrides, source=str(path))
    return config_from_dict(table, source=str(path))


def read_preset_table(path: Path, _seen: tuple[str, ...] = ()) -> dict[str, Any]:
    """A preset file's table with its ``inherits`` chain resolved (the parent's tables, overlaid key by key)."""
    table = read_toml(path)
    parent = table.pop("inherits", None)
    if parent is None:
        return table
    if not isinstance(parent, str):
        raise ConfigError(f"{path}: inherits: expected a preset name or a .toml path, got {parent!r}")
    if parent in _seen:
        raise ConfigError(f"{path}: inherits: a cycle through {' -> '.join(_seen + (parent,))}")
    is_path = parent.endswith(".toml") or "/" in parent
    parent_path = (path.parent / parent) if is_path else preset_path(parent)
    return _overlay(read_preset_table(parent_path, _seen + (parent,)), table)


def _overlay(base: dict[str, Any], top: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in top.items():
        out[key] = _overlay(out[key], value) if isinstance(value, Mapping) and isinstance(out.get(key), dict) \
            else value
    return out


def read_toml(path: Path) -> dict[str, Any]:
    """Parse a TOML file; errors become :class:`ConfigError` with the file name."""
    try:
        with open(path, "rb") as fh:
            return tomllib.load(fh)
    except FileNotFoundError:
        raise ConfigError(f"{path}: GPU config file not found; presets: {', '.join(preset_names())}") from None
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"{path}: not valid TOML: {err}") from None
