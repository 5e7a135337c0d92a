"""The knowledge base's features are cached per library object, not per object id: a library
made after another was freed may get the freed one's id, and with the same knowledge base name
and generation it found the other library's features (an evaluation run over several sets read
one set's questions against another set's documents)."""

from __future__ import annotations

import gc
from dataclasses import dataclass

import pytest

from rag_app.retrieve import signals


@dataclass(frozen=True)
class _Snapshot:
    generation: int = 1


class _Library:
    """Only what the cache keys on: the object itself."""


def test_a_library_never_finds_another_librarys_features(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(signals, "id", lambda _: 7, raising=False)  # every object one id
    first, second = _Library(), _Library()
    snap = _Snapshot()
    got = signals.per_generation("names", first, "eval", lambda _: "first's", snap)  # type: ignore[arg-type]
    assert got == "first's"
    got = signals.per_generation("names", second, "eval", lambda _: "second's", snap)  # type: ignore[arg-type]
    assert got == "second's"
    assert signals.per_generation("names", first, "eval", lambda _: "again", snap) == "first's"  # type: ignore[arg-type]


def test_a_freed_librarys_features_go_with_it() -> None:
    library = _Library()
    signals.per_generation("names", library, "eval", lambda _: [1, 2, 3], _Snapshot())  # type: ignore[arg-type]
    assert library in signals._feature_cache
    del library
    gc.collect()
    assert not any(isinstance(k, _Library) for k in list(signals._feature_cache.keys()))
