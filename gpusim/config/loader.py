"""Reading GPU configurations from TOML: presets shipped in ``gpusim/config/presets/`` or any user file.

A preset file has top-level keys for :class:`~gpusim.config.gpu.GpuConfig`'s scalar fields, then the tables
``[scheduler]``, ``[sm]``, ``[issue_interval_cycles]``, ``[latency_cycles]`` and, last, ``[memory]``
(validated by ``MemorySpec.from_dict``).  Every key must be a known field: a typo is an error that
names it, rather than a silently ignored setting.
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
