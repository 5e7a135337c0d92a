"""English period pointers read by their grammar (a direction and a unit, or a count of units
and a direction), not phrase by phrase: what each moves by."""

from __future__ import annotations

import pytest

from rag_app.text.period_pointers import POINTER_EN, english_step, years_away


@pytest.mark.parametrize(
    ("pointer", "step"),
    [
        ("the prior year", ("year", -1)),
        ("the preceding year", ("year", -1)),
        ("last year", ("year", -1)),
        ("a year ago", ("year", -1)),
        ("the year before that", ("year", -1)),
        ("the year-earlier period", ("year", -1)),
        ("the same quarter last year", ("year", -1)),
        ("the same month a year ago", ("year", -1)),
        ("three years ago", ("year", -3)),
        ("two quarters earlier", ("quarter", -2)),
        ("the previous month", ("month", -1)),
        ("the next quarter", ("quarter", 1)),
        ("a year later", ("year", 1)),
        ("that year", ("year", 0)),
        ("the same period", ("year", 0)),
    ],
)
def test_what_an_english_pointer_moves_by(pointer: str, step: tuple[str, int]) -> None:
    assert english_step(pointer) == step


def test_words_that_point_nowhere_are_no_pointer() -> None:
    for words in ("the past year", "earlier", "last", "year", "the annual report"):
        assert english_step(words) is None
    # found inside a question, as a whole phrase
    found = [m.group() for m in POINTER_EN.finditer("And what was it in the prior year?")]
    assert found == ["the prior year"]
    assert not list(POINTER_EN.finditer("What was the yearly revenue?"))


def test_years_away_in_both_languages() -> None:
    assert years_away("两年前") == -2 and years_away("前年") == -2
    assert years_away("two years earlier") == -2 and years_away("3年后") == 3
