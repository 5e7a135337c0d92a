"""Word lists as data: the files under ``rag_app/text/data``, each opening with a ``#`` line on
where its words come from. Read once per process and cached; nothing here knows what a list is
for (the analyzer, the sentence splitter and routing do)."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType

DATA_DIR = Path(__file__).resolve().parent / "data"


def _lines(name: str) -> list[str]:
    text = (DATA_DIR / name).read_text(encoding="utf-8")
    return [line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")]


@functools.cache
def word_set(name: str) -> frozenset[str]:
    """The whitespace-separated words of a list file."""
    return frozenset(word for line in _lines(name) for word in line.split())


@functools.cache
def entries(name: str) -> tuple[str, ...]:
    """One entry per line, in file order (entries may hold spaces: "net profit")."""
    return tuple(_lines(name))


@functools.cache
def char_set(name: str) -> frozenset[str]:
    """The characters of a list file's lines."""
    return frozenset("".join(_lines(name)))


@functools.cache
def groups(name: str) -> tuple[tuple[str, ...], ...]:
    """Groups of terms, one group per line, terms separated by ``|``."""
    return tuple(tuple(t.strip() for t in line.split("|") if t.strip()) for line in _lines(name))


@functools.cache
def keyed_groups(name: str) -> Mapping[str, tuple[str, ...]]:
    """``key: a | b`` lines as {key: (a, b)}, in file order (read-only: shared by every user)."""
    out: dict[str, tuple[str, ...]] = {}
    for line in _lines(name):
        key, _, rest = line.partition(":")
        out[key.strip()] = tuple(t.strip() for t in rest.split("|") if t.strip())
    return MappingProxyType(out)
