"""Planning: which sources each factual sentence is compared with, and what to embed for it.

Semantic evidence can only raise support, so texts are embedded only where words and numbers
fall short, in at most two batched calls per answer."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rag_app.cite.claims import AnswerSentence
from rag_app.cite.evidence import Features, SourceEvidence, clip
from rag_app.cite.support import SupportScorer

# (claim, sources checked together, compare): a ``compare`` request ranks one other source.
EmbedRequest = tuple[Features, list[SourceEvidence], bool]


@dataclass(frozen=True)
class Plan:
    """A factual sentence, its cited sources that exist, and the other sources worth checking
    (best first; none when the cited ones already support it)."""

    sentence: AnswerSentence
    cited: list[SourceEvidence]
    others: list[SourceEvidence]


def plan_sources(
    sentence: AnswerSentence, evidence: dict[int, SourceEvidence], scorer: SupportScorer
) -> Plan:
    """The sources to check ``sentence`` (a factual one, with features) against, ranked by
    words and numbers alone."""
    claim = sentence.claim
    assert claim is not None
    cited = [evidence[n] for n in sentence.cited if n in evidence]
    if cited and scorer.support(claim, cited, semantic=False)[0] >= scorer.threshold:
        return Plan(sentence, cited, [])
    numbers = {e.number for e in cited}
    others = [e for n, e in evidence.items() if n not in numbers]
    ranked = sorted(others, key=lambda e: (-scorer.support(claim, [e], False)[0], e.number))
    return Plan(sentence, cited, ranked[: scorer.settings.alternative_sources])


def embed_plans(plans: Sequence[Plan], scorer: SupportScorer) -> None:
    """Embed what the plans' verdicts need into ``scorer.matcher``. Raises what the embedder
    raises."""
    # First call: each sentence against its cited sources (the other sources when it cites
    # none that exist). Second call, only if needed: other sources for the sentences their
    # cited sources still do not support, to name the source that does.
    first: list[EmbedRequest] = []
    for plan in plans:
        claim = plan.sentence.claim
        assert claim is not None
        if plan.cited:
            first.append((claim, plan.cited, False))
        else:
            first.extend((claim, [e], True) for e in plan.others)
    _embed(first, scorer)
    second: list[EmbedRequest] = [
        (plan.sentence.claim, [e], True)
        for plan in plans
        if plan.cited
        and plan.sentence.claim is not None
        and scorer.support(plan.sentence.claim, plan.cited)[0] < scorer.threshold
        for e in plan.others
    ]
    _embed(second, scorer)


def _needs_semantic(
    claim: Features, sources: Sequence[SourceEvidence], scorer: SupportScorer
) -> bool:
    """Semantic evidence can only raise support, so it is asked for only where words and
    numbers fall short and no number is missing (a missing number caps support anyway)."""
    if scorer.matcher.embedder is None or not sources:
        return False
    score, missing = scorer.support(claim, sources, semantic=False)
    return not missing and score < scorer.threshold


def _embed(requests: list[EmbedRequest], scorer: SupportScorer) -> None:
    """Embed, in one batched call, each requested sentence and the best units of its
    sources, where words and numbers fall short (or, for a ``compare`` request, wherever no
    number is missing, so that other sources are ranked on equal terms); at most
    ``max_embedded_texts`` new texts, in request order."""
    matcher = scorer.matcher
    if matcher.embedder is None:
        return
    texts: dict[str, None] = {}
    limit = scorer.settings.max_embedded_texts
    for claim, group, compare in requests:
        if compare:
            if not group or scorer.missing_numbers(claim, group)[0]:
                continue
        elif not _needs_semantic(claim, group, scorer):
            continue
        units = scorer.units(claim, group)
        wanted = [claim.text] + [clip(u.text, scorer.settings.max_unit_chars) for u in units]
        new = [t for t in dict.fromkeys(wanted) if not matcher.has(t) and t not in texts]
        if len(texts) + len(new) > limit:
            break
        texts.update(dict.fromkeys(new))
    if not texts:
        return
    matcher.embed(list(texts))
