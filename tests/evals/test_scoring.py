"""A question's score: where its gold is, whether the answer holds the expected one, values
compared by value, and a run's metrics over the questions each applies to."""

from __future__ import annotations

import pytest

from rag_app.evals.compare import compare_results, metric_deltas
from rag_app.evals.question_sets import EvalQuestion
from rag_app.evals.scoring import (
    QuestionResult,
    gold_chunk,
    holds_expected,
    run_metrics,
    value_scores,
)
from rag_app.models import Chunk


def chunk(doc: str, items: tuple[int, ...], pages: tuple[int, ...]) -> Chunk:
    return Chunk(
        chunk_id=f"{doc}#{items}",
        doc_id=doc,
        type="text",
        text="t",
        search_text="t",
        item_indices=items,
        pages=pages,
    )


def test_the_gold_is_the_rows_items_else_its_pages_in_its_document() -> None:
    by_item = EvalQuestion("1", "q", items=(9,), pages=(1,))
    assert gold_chunk(chunk("a", (9, 10), (0,)), by_item, ("a",))
    assert not gold_chunk(chunk("a", (11,), (0,)), by_item, ("a",))  # same page, other item
    assert not gold_chunk(chunk("b", (9,), (0,)), by_item, ("a",))  # another document
    assert gold_chunk(chunk("b", (9,), (0,)), by_item, ())  # no document named: any
    by_page = EvalQuestion("2", "q", pages=(4,))
    assert gold_chunk(chunk("a", (1,), (3,)), by_page, ())  # pages are 1-based, chunks' 0-based
    assert not gold_chunk(chunk("a", (1,), (4,)), by_page, ())


@pytest.mark.parametrize(
    "answer, expected, holds",
    [
        ("营业收入 57796 百万元 [Source 1]", ("57,796",), True),
        ("The method is PB.", ("pb",), True),
        ("14nm FinFET 工艺", ("14nmFinFET",), True),
        ("85.5% 与 94.8 万片", ("85.5", "万片"), True),
        ("85.5%", ("85.5", "万片"), False),
    ],
)
def test_holds_every_expected_part_folded(
    answer: str, expected: tuple[str, ...], holds: bool
) -> None:
    assert holds_expected(answer, expected) is holds


@pytest.mark.parametrize(
    "short, expected, em",
    [
        ("106.2 倍", ("106.2",), 1.0),
        ("57,796 百万元", ("57,796",), 1.0),
        ("73.0 亿美元", ("73",), 1.0),
        ("18.6%", ("18.6",), 1.0),
        ("季度: 2024Q2; 产能利用率: 85.2", ("85.2",), 0.0),  # a row is not the value
        ("买入", ("买入",), 1.0),
        ("", ("买入",), 0.0),
    ],
)
def test_values_are_compared_by_value(short: str, expected: tuple[str, ...], em: float) -> None:
    assert value_scores(short, expected)[0] == em


def test_text_f1_counts_characters() -> None:
    em, f1 = value_scores("投资评级：买入（维持）", ("买入",))
    assert em == 0.0 and 0.0 < f1 < 1.0


def result(id: str, **fields: object) -> QuestionResult:
    return QuestionResult(id=id, question=id, **fields)  # type: ignore[arg-type]


def test_a_question_passes_by_what_its_row_asks() -> None:
    assert result("u", answerable=False, declined=True).passed
    assert not result("u", answerable=False, declined=False, answer="x").passed
    assert not result("d", declined=True, expected=("x",), holds=False).passed
    assert result("e", expected=("x",), holds=True, answer="x").passed
    assert result("e", expected=("x",), holds=False, em=1.0, answer="x").passed
    assert result("g", has_gold=True, rank=3, answer="x").passed
    assert not result("g", has_gold=True, rank=None, answer="x").passed
    assert result("a", answer="something").passed
    assert not result("f", error="timeout").passed


def test_run_metrics_count_each_over_the_questions_it_applies_to() -> None:
    results = [
        result(
            "1", has_gold=True, rank=1, expected=("a",), holds=True, em=1.0, f1=1.0, latency_ms=10
        ),
        result(
            "2", has_gold=True, rank=4, expected=("b",), holds=False, em=0.0, f1=0.5, latency_ms=30
        ),
        result(
            "3",
            has_gold=True,
            rank=None,
            latency_ms=20,
            routing="table",
            gold_types=("text",),
            routing_right=False,
        ),
        result("4", answerable=False, declined=True, latency_ms=5),
        result("5", error="boom"),
    ]
    m = run_metrics(results, k=5)
    assert (m.n, m.n_errors, m.n_gold, m.n_expected, m.n_unanswerable) == (5, 1, 3, 2, 1)
    assert (m.recall_at_1, m.recall_at_3, m.recall_at_k) == (0.3333, 0.3333, 0.6667)
    assert m.mrr == round((1 + 1 / 4) / 3, 4)
    assert (m.answer_holds, m.em, m.f1) == (0.5, 50.0, 75.0)
    assert m.declined_unanswerable == 1.0 and m.routing_right == 0.0
    assert m.latency_ms_p50 == 15.0  # the errored question has no latency
    assert run_metrics([], 5).n == 0


def test_a_comparison_puts_regressions_first_and_knows_which_way_is_better() -> None:
    before = [
        (0, result("a", answer="x")),
        (1, result("b", error="e")),
        (2, result("c", answer="y")),
    ]
    after = [
        (0, result("a", error="e")),
        (1, result("b", answer="x")),
        (2, result("c", answer="z")),
    ]
    compared = compare_results(before, after, run_metrics([r for _, r in before], 5), None)
    assert [(c.id, c.change) for c in compared.changes] == [
        ("a", "regressed"),
        ("b", "improved"),
        ("c", "changed"),
    ]
    slow = run_metrics([result("a", latency_ms=10, answer="x")], 5)
    fast = run_metrics([result("a", latency_ms=5, answer="x")], 5)
    deltas = {d.name: d for d in metric_deltas(slow, fast)}
    assert deltas["latency_ms_p50"].better is True and deltas["passed"].better is None
