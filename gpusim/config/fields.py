"""The building blocks of the config's spec dataclasses: documented fields (gem5-style :func:`param`), the
read-only table type, type and range checks, and dotted overrides of preset-shaped tables.

Plain data and functions only: every spec module of :mod:`gpusim.config` builds on this one, and it
imports nothing of gpusim but its errors.
"""
from __future__ import annotations

import dataclasses
import typing
from collections.abc import Iterator, Mapping
from dataclasses import MISSING, field
from typing import Any

from gpusim.errors import ConfigError


def param(doc: str, default: Any = MISSING) -> Any:
    """Declare a config field with its documentation (and default, if it has one)."""
    if default is MISSING:
        return field(metadata={"doc": doc})
    return field(default=default, metadata={"doc": doc})


class FrozenMap(Mapping):
    """A read-only, hashable, picklable ``str -> int`` mapping (a ``dict`` would make the frozen config
    mutable through the back door, and ``MappingProxyType`` cannot be pickled for parallel sweeps)."""

    __slots__ = ("_items",)

    def __init__(self, items: Mapping[str, Any] | None = None):
        object.__setattr__(self, "_items", dict(items or {}))

    def __getitem__(self, key: str) -> Any:
        return self._items[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __hash__(self) -> int:
        return hash(tuple(sorted(self._items.items())))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Mapping) and dict(self._items) == dict(other)

    def __repr__(self) -> str:
        return f"FrozenMap({self._items!r})"

    def __reduce__(self):
        return (FrozenMap, (self._items,))


def _type_name(value: Any) -> str:
    return f"{value!r} ({type(value).__name__})"


def check_field_types(obj: Any, prefix: str) -> None:
    """Check each field of a config dataclass against its annotation (int, float, str, tuple[int, ...],
    Mapping[str, int], or a nested spec); ``bool`` is not accepted where an int is expected."""
    hints = typing.get_type_hints(type(obj))
    for f in dataclasses.fields(obj):
        value = getattr(obj, f.name)
        name = prefix + f.name
        hint = hints[f.name]
        origin = typing.get_origin(hint)
        if hint is int:
            if not isinstance(value, int) or isinstance(value, bool):
                raise ConfigError(f"{name}: expected an integer, got {_type_name(value)}")
        elif hint is float:
            if not isinstance(value, (int, float)) or isinstance(value, bool):
                raise ConfigError(f"{name}: expected a number, got {_type_name(value)}")
        elif hint is str:
            if not isinstance(value, str):
                raise ConfigError(f"{name}: expected a string, got {_type_name(value)}")
        elif origin is tuple:
            if not isinstance(value, tuple) or not all(
                    isinstance(v, int) and not isinstance(v, bool) for v in value):
                raise ConfigError(f"{name}: expected a list of integers, got {_type_name(value)}")
        elif origin is Mapping or hint is Mapping:
            if not isinstance(value, FrozenMap):
                raise ConfigError(f"{name}: expected a table of integers, got {_type_name(value)}")
            for key, v in value.items():
                if not isinstance(v, int) or isinstance(v, bool):
                    raise ConfigError(f"{name}.{key}: expected an integer, got {_type_name(v)}")
        elif dataclasses.is_dataclass(hint):
            if not isinstance(value, hint):
                raise ConfigError(f"{name}: expected a table ({hint.__name__}), got {_type_name(value)}")


def require(condition: bool, message: str) -> None:
    if not condition:
        raise ConfigError(message)


def require_positive(obj: Any, prefix: str, names: tuple[str, ...]) -> None:
    for name in names:
        value = getattr(obj, name)
        require(value > 0, f"{prefix}{name}: must be > 0, got {value}")


def plain_copy(value: Any) -> Any:
    """A deep copy of nested specs, mappings and sequences as plain dicts and lists (TOML-shaped); a spec
    dataclass contributes only its ``init`` fields, the ones its table may contain."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain_copy(getattr(value, f.name)) for f in dataclasses.fields(value) if f.init}
    if isinstance(value, Mapping):
        return {k: plain_copy(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain_copy(v) for v in value]
    return value


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
