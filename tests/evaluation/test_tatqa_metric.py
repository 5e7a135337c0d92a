"""TAT-QA's exact match and F1 (rag_app/evaluation/tatqa_metric.py) on the cases its definition
turns on: numbers read with their scale, percent written either way, negative amounts in
brackets, spans in any order, partial text spans, arithmetic scored by exact match only."""

from __future__ import annotations

import pytest

from rag_app.evaluation.tatqa_metric import answer_string, score, to_number


@pytest.mark.parametrize(
    ("predicted", "scale", "gold", "kind", "gold_scale", "em"),
    [
        ("1,496.5", "million", ["$1,496.5"], "span", "million", 1.0),
        ("$1,496.5", "", ["$1,496.5"], "span", "million", 0.0),  # the scale counts
        ("1,496.5", "thousand", ["$1,496.5"], "span", "million", 0.0),
        ("23.42%", "", "23.42", "arithmetic", "percent", 1.0),
        ("0.2342", "", "23.42", "arithmetic", "percent", 1.0),  # a lone number as the value
        ("-12.60", "million", "-12.6", "arithmetic", "million", 1.0),
        ("-12.7", "million", "-12.6", "arithmetic", "million", 0.0),
        ("(134)", "", "-134", "arithmetic", "", 1.0),
        (
            ["cost-plus type", "fixed-price type"],
            "",
            ["fixed-price type", "cost-plus type"],
            "multi-span",
            "",
            1.0,
        ),
        ("4", "", ["4"], "count", "", 1.0),
        ("", "", ["4"], "count", "", 0.0),
    ],
)
def test_exact_match(predicted, scale, gold, kind, gold_scale, em) -> None:  # type: ignore[no-untyped-def]
    assert score(predicted, scale, gold, kind, gold_scale).exact_match == em


def test_f1_of_a_partial_text_span_and_of_arithmetic() -> None:
    gold = ["our allowable incurred costs plus a profit"]
    partial = score("we are paid our allowable incurred costs", "", gold, "span", "")
    assert partial.exact_match == 0.0 and 0.5 < partial.f1 < 1.0
    assert score("-12.7", "million", "-12.6", "arithmetic", "million").f1 == 0.0


def test_numbers_and_answer_strings() -> None:
    # brackets make a number negative only around digits alone, as the authors' evaluation
    # reads them: "(134)" is -134, "(9,819)" is 9819
    assert (to_number("(134)"), to_number("(9,819)")) == (-134, 9819)
    assert to_number("12.5%") == 0.125
    assert to_number("$3.8 million") == 3800000.0
    assert answer_string(["$1,496.5"], "million") == "1496500000.0000"
    assert answer_string(["b", "a"], "") == "a b"
