"""One question of a run scored from its Answer, and a run's metrics from its questions.

Per question: the rank of the first hit on the gold (a chunk of the row's document built from
one of its items or lying on one of its pages), whether the answer holds every expected part,
TAT-QA's exact match and F1 of the short answer against the expected one, whether it declined,
and smart mode's routing against the types of the gold's chunks. A question ``passed`` when it
did what its row asks: declined an unanswerable question; held the expected answer; found the
gold when only that is given; answered when nothing else is.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from rag_app.evals.question_sets import EvalQuestion
from rag_app.evaluation.evaluate import percentile
from rag_app.evaluation.tatqa_metric import is_number, score
from rag_app.models import Answer, Chunk


@dataclass(frozen=True)
class QuestionResult:
    """What one question of a run got. ``rank`` is 1-based, None when no hit of the top k is on
    the gold (or the row gives none); ``holds``, ``em`` and ``f1`` are None without an expected
    answer; ``routing`` is the type smart mode preferred ("" when it searched every type)."""

    id: str
    question: str
    expected: tuple[str, ...] = ()
    answerable: bool = True
    answer: str = ""
    short: str = ""
    declined: bool = False
    has_gold: bool = False
    rank: int | None = None
    holds: bool | None = None
    em: float | None = None
    f1: float | None = None
    routing: str = ""
    gold_types: tuple[str, ...] = ()
    routing_right: bool | None = None
    unsupported: int = 0  # sentences the citation check did not find in their sources
    latency_ms: float = 0.0
    error: str = ""

    @property
    def passed(self) -> bool:
        if self.error and not self.answer:
            return False
        if not self.answerable:
            return self.declined
        if self.declined:
            return False
        if self.expected:
            return bool(self.holds) or self.em == 1.0
        if self.has_gold:
            return self.rank is not None
        return bool(self.answer.strip())


def gold_chunk(chunk: Chunk, question: EvalQuestion, doc_ids: Sequence[str]) -> bool:
    """Whether ``chunk`` holds the row's answer: in one of ``doc_ids`` (any document when
    empty) and built from one of its items, or, when it names none, on one of its (1-based)
    pages."""
    if doc_ids and chunk.doc_id not in doc_ids:
        return False
    if question.items:  # the items name the place; their pages would widen it
        return bool(set(question.items) & set(chunk.item_indices))
    return any(p + 1 in question.pages for p in chunk.pages)


def score_answer(
    question: EvalQuestion,
    answer: Answer,
    doc_ids: Sequence[str],
    gold_types: tuple[str, ...] = (),
    k: int = 0,
) -> QuestionResult:
    """``answer`` to ``question`` scored; ``doc_ids`` are the row's document's ids (empty: any
    document), ``gold_types`` the content types of its gold chunks, ``k`` how deep a gold hit
    counts (0: every hit the answer retrieved)."""
    hits = answer.retrieval.hits if answer.retrieval is not None else ()
    hits = hits[:k] if k else hits
    rank = None
    if question.has_gold:
        rank = next(
            (n for n, h in enumerate(hits, start=1) if gold_chunk(h.chunk, question, doc_ids)),
            None,
        )
    short = answer.short.value if answer.short is not None else ""
    short_text = " | ".join(short) if isinstance(short, tuple) else str(short)
    holds = em = f1 = None
    if question.expected and question.answerable:
        holds = not answer.declined and holds_expected(answer.text, question.expected)
        em, f1 = value_scores(short_text, question.expected)
        if question.answer_type:  # a TAT-QA row: its own metric, with its scales, may agree
            scale = answer.short.scale if answer.short is not None else ""
            got = score(short, scale, list(question.expected), question.answer_type, question.scale)
            em, f1 = max(em, got.exact_match), max(f1, got.f1)
    routing = answer.retrieval.routing if answer.retrieval is not None else None
    preferred = routing.detected_type if routing is not None and routing.single_type else ""
    right = None
    if routing is not None and gold_types:
        right = not preferred or preferred in gold_types
    report = answer.citations
    unsupported = sum(
        1 for s in getattr(report, "sentences", ()) or () if s.factual and not s.supported
    )
    return QuestionResult(
        id=question.id,
        question=question.question,
        expected=question.expected,
        answerable=question.answerable,
        answer=answer.text,
        short=short_text,
        declined=answer.declined,
        has_gold=question.has_gold,
        rank=rank,
        holds=holds,
        em=em,
        f1=f1,
        routing=preferred,
        gold_types=gold_types,
        routing_right=right,
        unsupported=unsupported,
        latency_ms=round(dict(answer.timings).get("total_ms", 0.0), 1),
        error=answer.error,
    )


_SPACE = re.compile(r"\s+")
_DIGIT_COMMA = re.compile(r"(?<=\d)[,，](?=\d{3})")


def _folded(text: str) -> str:
    return _DIGIT_COMMA.sub("", _SPACE.sub("", text.casefold()))


def holds_expected(answer: str, expected: Sequence[str]) -> bool:
    """Every expected part in the answer, compared without case, spaces or thousands commas."""
    folded = _folded(answer)
    return all(_folded(part) in folded for part in expected)


_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def value_scores(short: str, expected: Sequence[str]) -> tuple[float, float]:
    """Exact match and F1 of the short answer against the expected one. A number is matched by
    value: the short answer's first number equal to it at the expected precision ("57,796" is
    "57796.0 百万元"; a row of cells whose first number is its year is not its value). Text is
    compared folded, F1 over characters (Chinese has no spaces to split words at)."""
    if not short.strip():
        return 0.0, 0.0
    if all(is_number(e) for e in expected):
        numbers = [float(n) for n in _NUMBER.findall(_folded(short))]
        wanted = [_NUMBER.findall(_folded(e)) for e in expected]
        hit = all(
            w and len(numbers) > i and _same_number(numbers[i], w[0]) for i, w in enumerate(wanted)
        )
        return (1.0, 1.0) if hit else (0.0, 0.0)
    got, want = _folded(short), _folded("".join(expected))
    if got == want:
        return 1.0, 1.0
    common = sum((Counter(got) & Counter(want)).values())
    if not common:
        return 0.0, 0.0
    precision, recall = common / len(got), common / len(want)
    return 0.0, round(2 * precision * recall / (precision + recall), 4)


def _same_number(value: float, written: str) -> bool:
    decimals = len(written.split(".", 1)[1]) if "." in written else 0
    return round(value, decimals) == round(float(written), decimals)


@dataclass(frozen=True)
class RunMetrics:
    """A run's scores, each over the questions it applies to (None when none does); shares
    are 0-1, EM / F1 in percent."""

    n: int = 0
    n_errors: int = 0
    passed: float | None = None
    n_gold: int = 0
    recall_at_1: float | None = None
    recall_at_3: float | None = None
    recall_at_k: float | None = None
    mrr: float | None = None
    n_expected: int = 0
    answer_holds: float | None = None
    em: float | None = None
    f1: float | None = None
    n_unanswerable: int = 0
    declined_unanswerable: float | None = None
    answered_answerable: float | None = None
    n_routing: int = 0
    routing_right: float | None = None
    latency_ms_p50: float | None = None
    latency_ms_p95: float | None = None


# The metrics where lower is better (a comparison's direction); every other one is higher-better.
LOWER_IS_BETTER = frozenset({"n_errors", "latency_ms_p50", "latency_ms_p95"})


def run_metrics(results: Sequence[QuestionResult], k: int) -> RunMetrics:
    """The metrics of a run's ``results`` (``k``: the depth recall_at_k counts to)."""
    if not results:
        return RunMetrics()
    answerable = [r for r in results if r.answerable]
    gold = [r for r in answerable if r.has_gold]
    expected = [r for r in answerable if r.expected]
    unanswerable = [r for r in results if not r.answerable]
    routed = [r for r in results if r.routing_right is not None]
    latencies = [r.latency_ms for r in results if not r.error]

    def recall(at: int) -> float | None:
        return _share([r.rank is not None and r.rank <= at for r in gold])

    return RunMetrics(
        n=len(results),
        n_errors=sum(1 for r in results if r.error),
        passed=_share([r.passed for r in results]),
        n_gold=len(gold),
        recall_at_1=recall(1),
        recall_at_3=recall(3),
        recall_at_k=recall(k),
        mrr=round(sum(1 / r.rank for r in gold if r.rank) / len(gold), 4) if gold else None,
        n_expected=len(expected),
        answer_holds=_share([bool(r.holds) for r in expected]),
        em=_mean([100 * (r.em or 0.0) for r in expected]),
        f1=_mean([100 * (r.f1 or 0.0) for r in expected]),
        n_unanswerable=len(unanswerable),
        declined_unanswerable=_share([r.declined for r in unanswerable]),
        answered_answerable=_share([not r.declined for r in answerable]),
        n_routing=len(routed),
        routing_right=_share([bool(r.routing_right) for r in routed]),
        latency_ms_p50=round(percentile(latencies, 0.5), 1) if latencies else None,
        latency_ms_p95=round(percentile(latencies, 0.95), 1) if latencies else None,
    )


def _share(flags: Sequence[bool]) -> float | None:
    return round(sum(flags) / len(flags), 4) if flags else None


def _mean(values: Sequence[float]) -> float | None:
    return round(sum(values) / len(values), 2) if values else None
