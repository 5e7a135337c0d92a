"""Periods named from another: how many years a pointer moves by, and a period shifted by it."""

from __future__ import annotations

import pytest

from rag_app.text.periods import shift_year, years_away


@pytest.mark.parametrize(
    ("pointer", "step"),
    [
        ("两年前", -2),
        ("3年后", 3),
        ("一年以前", -1),
        ("前年", -2),
        ("two years earlier", -2),
        ("Three years ago", -3),
        ("one year later", 1),
        ("去年", None),  # one year back: the first character says so (referents.shifted)
        ("两年", None),
    ],
)
def test_the_years_a_pointer_moves_by(pointer: str, step: int | None) -> None:
    assert years_away(pointer) == step


def test_a_period_shifted_keeps_what_narrows_it() -> None:
    assert shift_year("2024年末", -2) == "2022年末"
    assert shift_year("2025年前三季度", -1) == "2024年前三季度"
    assert shift_year("上年末", -1) == "上年末"  # no year to move
