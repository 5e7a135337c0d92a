"""The Compare page's diff of smart against hybrid (ui/compare_diff.py): pure, no Streamlit."""

from __future__ import annotations

import pytest

from rag_app.models import Chunk, Hit
from ui.compare_diff import Place, diff_hits


def hits(*ids: str) -> list[Hit]:
    """Hits in rank order; an id starting with "t" is a table, else text."""
    return [
        Hit(Chunk(cid, "d", "table" if cid.startswith("t") else "text", cid, cid, (0,)), 1.0, n)
        for n, cid in enumerate(ids, start=1)
    ]


def test_the_same_lists_are_identical_with_nothing_moved() -> None:
    diff = diff_hits(hits("a", "t1", "b"), hits("a", "t1", "b"), top=3)
    assert diff.identical
    assert (diff.moved, diff.smart_only, diff.hybrid_only) == ((), (), ())
    assert [p.change for p in diff.smart] == ["same"] * 3


def test_a_preferred_table_moves_up_and_what_it_pushed_down_moves_down() -> None:
    diff = diff_hits(hits("t1", "a", "b"), hits("a", "b", "t1"), top=3)
    assert not diff.identical
    assert diff.smart[0] == Place("t1", "table", smart=1, hybrid=3)
    assert [p.change for p in diff.smart] == ["up", "down", "down"]
    assert {p.chunk_id for p in diff.moved} == {"t1", "a", "b"}
    assert [p.change for p in diff.hybrid] == ["down", "down", "up"]  # same chunks, hybrid's order


def test_found_by_one_mode_only_is_marked_and_places_beyond_the_top_are_kept() -> None:
    # t9 is only in smart's list; c is in hybrid's top only; b is below smart's top (place 4)
    diff = diff_hits(hits("t9", "a", "t1", "b"), hits("a", "b", "c", "t1"), top=3)
    assert [p.chunk_id for p in diff.smart_only] == ["t9"]
    assert diff.smart[0].change == "smart_only" and diff.smart[0].hybrid is None
    assert [p.chunk_id for p in diff.hybrid_only] == ["c"]
    assert diff.hybrid[2] == Place("c", "text", smart=None, hybrid=3)
    assert diff.hybrid[1] == Place("b", "text", smart=4, hybrid=2)  # fell out of smart's top
    assert diff.hybrid[1].change == "down"
    # each chunk counted once, from either top (hybrid -> smart): a 1 -> 2, t1 4 -> 3, b 2 -> 4
    assert {p.chunk_id: p.change for p in diff.moved} == {"a": "down", "t1": "up", "b": "down"}


def test_only_the_top_is_compared() -> None:
    diff = diff_hits(hits("a", "b", "x"), hits("a", "b", "y"), top=2)
    assert diff.identical and len(diff.smart) == 2


def test_a_chunk_listed_twice_keeps_its_better_place() -> None:
    diff = diff_hits(hits("a", "b", "a"), hits("b", "a"), top=2)
    assert diff.smart[0] == Place("a", "text", smart=1, hybrid=2)


def test_empty_lists_and_a_bad_top() -> None:
    diff = diff_hits([], [], top=8)
    assert diff.identical and diff.smart == () and diff.moved == ()
    assert [p.change for p in diff_hits(hits("a"), [], top=8).smart] == ["smart_only"]
    with pytest.raises(ValueError):
        diff_hits(hits("a"), hits("a"), top=0)
