"""The layer's data files (``skills/data/language/``), read once per process."""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from importlib.resources import files
from typing import Any

import yaml

try:
    from yaml import CSafeLoader as Loader
except ImportError:  # pragma: no cover - PyYAML without libyaml
    from yaml import SafeLoader as Loader  # type: ignore[assignment]


def _text(name: str) -> str:
    return files("magisterium_a2a.skills").joinpath(f"data/language/{name}").read_text("utf-8")


@cache
def authored(name: str) -> dict[str, Any]:
    """One of the team's YAML tables (``calendar-words``, ``celebrations``, ...)."""
    loaded = yaml.load(_text(f"{name}.yaml"), Loader=Loader)
    if not isinstance(loaded, dict):
        raise ValueError(f"data/language/{name}.yaml is not a mapping")
    return loaded


def romcal_rows(kind: str) -> Iterator[tuple[str, str, str]]:
    """(language, key, name) rows of one kind of the generated romcal table."""
    for language, row_kind, key, name in _romcal():
        if row_kind == kind:
            yield language, key, name


@cache
def _romcal() -> tuple[tuple[str, str, str, str], ...]:
    rows = []
    for line in _text("romcal-names.tsv").splitlines():
        if line and not line.startswith("#"):
            language, kind, key, name = line.split("\t")
            rows.append((language, kind, key, name))
    return tuple(rows)
