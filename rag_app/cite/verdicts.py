"""Verdicts: a sentence's ``SentenceCheck`` from the support of its cited and other sources, and
the reasons behind it as keys and values with their English wording."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rag_app.cite.claims import AnswerSentence
from rag_app.cite.evidence import Features, SourceEvidence, best_units
from rag_app.cite.planning import Plan
from rag_app.cite.report import SentenceCheck
from rag_app.cite.support import SupportScorer
from rag_app.models import Reason
from rag_app.text.language import is_plural


def not_factual_check(sentence: AnswerSentence) -> SentenceCheck:
    """The check of a sentence that is not a factual claim (``sentence.kind`` says why)."""
    seg = sentence.segment
    return SentenceCheck(
        seg.start,
        seg.end,
        sentence.text,
        sentence.cited,
        0.0,
        True,
        None,
        f"not a factual claim ({sentence.kind})",
        factual=False,
        reasons=(_why("not_factual", kind=sentence.kind),),
    )


def verdict(
    plan: Plan, evidence: dict[int, SourceEvidence], scorer: SupportScorer
) -> SentenceCheck:
    """The check of a factual sentence against the sources ``plan`` names (embedded evidence
    included); ``evidence`` holds every source, by number."""
    item, cited, others = plan.sentence, plan.cited, plan.others
    claim = item.claim
    assert claim is not None

    def check(support: float, supported: bool, best: int | None, *reasons: Reason) -> SentenceCheck:
        weight = scorer.settings.bigram_weight
        return _check(item, claim, evidence, support, supported, best, reasons, weight)

    ranked = sorted(((scorer.support(claim, [e])[0], e.number) for e in others), key=_best_first)
    other_score, other = ranked[0] if ranked else (0.0, None)
    other_supports = other is not None and other_score >= scorer.threshold

    if not item.cited:
        best = other if other_score > 0 else None
        if other_supports:
            return check(other_score, True, best, _why("uncited_supported", other=other))
        return check(other_score, False, best, _why("uncited_unsupported"))

    missing_sources = [n for n in item.cited if n not in evidence]
    absent: tuple[Reason, ...] = ()
    if missing_sources:
        absent = (
            _why(
                "cites_missing",
                sources=_sources_value(missing_sources),
                count=len(missing_sources),
            ),
        )
    if not cited:
        if other_supports:
            return check(0.0, False, other, *absent, _why("other_supports", other=other))
        return check(0.0, False, None, *absent)

    support, missing = scorer.support(claim, cited)
    individual = sorted(((scorer.support(claim, [e])[0], e.number) for e in cited), key=_best_first)
    best = individual[0][1]
    if support >= scorer.threshold:
        return check(support, True, best, _why("supported_by", best=best), *absent)
    numbers = [e.number for e in cited]
    if other_supports:
        why = _why("cited_unsupported_other_does", other=other)
        best = other
    elif missing:
        why = _why(
            "numbers_not_found",
            numbers=_raws(missing),
            n_numbers=len(missing),
            sources=_sources_value(numbers),
            count=len(numbers),
        )
    else:
        why = _why("not_supported", sources=_sources_value(numbers), count=len(numbers))
    return check(support, False, best, why, *absent)


def _check(
    item: AnswerSentence,
    claim: Features,
    evidence: dict[int, SourceEvidence],
    support: float,
    supported: bool,
    best: int | None,
    reasons: tuple[Reason, ...],
    bigram_weight: float,
) -> SentenceCheck:
    seg = item.segment
    # The unit of the best source that shares most with the claim: what the UI highlights.
    text = ""
    source = evidence.get(best) if best is not None else None
    if source is not None:
        units = best_units(claim, source, 1, bigram_weight)
        text = units[0].text if units else ""
    return SentenceCheck(
        seg.start,
        seg.end,
        item.text,
        item.cited,
        support,
        supported,
        best,
        "; ".join(english(r) for r in reasons),
        evidence=text,
        reasons=reasons,
    )


def _best_first(pair: tuple[float, int]) -> tuple[float, int]:
    return -pair[0], pair[1]  # highest support first; ties go to the lower source number


def _why(key: str, **values: object) -> Reason:
    return Reason(key, tuple((name, str(value)) for name, value in values.items()))


def _sources_value(numbers: Sequence[int]) -> str:
    return ", ".join(str(n) for n in numbers)


def _raws(numbers: Sequence[Any]) -> str:
    return ", ".join(dict.fromkeys(n.raw for n in numbers))


def english(reason: Reason) -> str:
    """The English wording of one reason of a sentence check."""
    v = reason.value
    many = is_plural(v("count"))
    names = f"Source{'s' if many else ''} {v('sources')}"
    if reason.key == "not_factual":
        return f"not a factual claim ({v('kind')})"
    if reason.key == "uncited_supported":
        return f"uncited; Source {v('other')} supports it"
    if reason.key == "uncited_unsupported":
        return "uncited; no source supports it"
    if reason.key == "cites_missing":
        return f"cites {names}, which {'do' if many else 'does'} not exist"
    if reason.key == "other_supports":
        return f"Source {v('other')} supports it"
    if reason.key == "supported_by":
        return f"supported by Source {v('best')}"
    if reason.key == "cited_unsupported_other_does":
        return f"cited source does not support; Source {v('other')} does"
    if reason.key == "numbers_not_found":
        plural = "s" if is_plural(v("n_numbers")) else ""
        return f"number{plural} {v('numbers')} not found in {names}"
    if reason.key == "not_supported":
        return f"{names} {'do' if many else 'does'} not support this sentence"
    return reason.key
