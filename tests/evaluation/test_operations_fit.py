"""The operation labels read from TAT-QA's gold derivations (rag_app/evaluation/operations_fit.py)."""

from __future__ import annotations

import pytest

from rag_app.evaluation.operations_fit import label


@pytest.mark.parametrize(
    ("derivation", "scale", "expected"),
    [
        ("17-8", "million", "diff"),
        ("-2,235-(-6,986)", "thousand", "diff"),  # a negative operand in brackets
        ("(4.3-19.6)/19.6", "percent", "change_ratio"),
        ("(-3,144-(-1,102))/-1,102", "percent", "change_ratio"),
        ("(16550 + 14595) / 2", "", "average"),
        ("948/358", "", "divide"),
        ("2,303/2,496", "percent", "share"),  # a part as a percentage of its whole
        ("(1-6%)*(273/6%)", "million", "other"),
    ],
)
def test_the_shape_of_a_gold_derivation(derivation: str, scale: str, expected: str) -> None:
    row = {"answer_type": "arithmetic", "answer": 1, "derivation": derivation, "scale": scale}
    assert label(row) == expected


def test_answer_types_and_values() -> None:
    assert label({"answer_type": "span", "answer": ["$3.8 million"]}) == "value"
    assert label({"answer_type": "span", "answer": ["the pension plan's assets"]}) == "span"
    assert label({"answer_type": "multi-span", "answer": ["2019", "2018"]}) == "years"
    assert label({"answer_type": "count", "answer": 2}) == "count"
