"""The operation a question asks for (rag_app/understand/operations.py): the shipped model,
fitted on half of TAT-QA dev's documents, on questions written here in other words."""

from __future__ import annotations

import json

import pytest

from rag_app.understand.operations import OperationModel, asked_operation, features, load_model


@pytest.mark.parametrize(
    ("question", "operation"),
    [
        ("What was the percentage change in freight revenue from 2018 to 2019?", "change_ratio"),
        ("What is the average warehousing revenue for 2018 and 2019?", "average"),
        ("What was the change in total revenue between 2018 and 2019?", "diff"),
        ("What was freight revenue in 2019?", "value"),  # an amount read, not words
        # Chinese, in words of neither the authored rows nor the frozen zh set
        ("2022年到2024年的平均营业收入是多少？", "average"),
        ("2024年营收的同比增速是多少？", "change_ratio"),
        ("有几年的毛利率超过20%？", "count"),
    ],
)
def test_the_shipped_model_reads_the_operation(question: str, operation: str) -> None:
    assert load_model() is not None
    assert asked_operation(question).name == operation


def test_no_model_reads_every_question_as_a_span(tmp_path) -> None:  # type: ignore[no-untyped-def]
    missing = load_model.__wrapped__(tmp_path / "none.json")  # type: ignore[attr-defined]
    assert missing is None
    model = OperationModel(("span", "diff"), {"change": 0}, ((0.0, 5.0),), (1.0, 0.0))
    assert asked_operation("What was the change?", model).name == "diff"
    assert asked_operation("What was it?", model).name == "span"
    again = OperationModel.from_json(json.loads(json.dumps(model.to_json())))
    assert again == model


def test_features_leave_numbers_out() -> None:
    assert not any(any(ch.isdigit() for ch in f) for f in features("change from 2018 to 2019"))


@pytest.mark.parametrize(
    ("term", "operation"),
    [("CAGR", "cagr"), ("复合增长率", "cagr"), ("均值", "average"), ("存货", ""), ("毛利率", "")],
)
def test_a_term_names_the_operation_its_words_lean_to(term: str, operation: str) -> None:
    """What a worked question works out (its CAGR) is told from a metric it is worked out of
    by the words model's own weights (``OperationModel.leans``), not by a list of words."""
    from rag_app.stage_settings import OfflineSettings

    model = load_model()
    assert model is not None
    leaning, lean = model.leans(term)
    named = leaning if lean >= OfflineSettings.operation_term_lean else ""
    assert named == operation
