"""Smart mode's query-type decision: a calibrated choice between text, table and image.

Evidence per type, each a named feature (``FEATURES``):
- ``explicit``: the question names the type ("表格", "图3", "chart", "table 2");
- ``implicit``: words that only lean ("多少", "同比", "why", "风险"), 0 / 0.5 / 1 for 0 / 1 / 2+;
- ``caption``: a table or figure caption of the library covers the question's words;
- ``look``: the type's share of a first look, the hybrid top hits (weighted 1/rank), which smart
  mode computes anyway: what the library actually holds near the question;
- ``top``: the type of the first look's best hit.
A per-type logit ``bias[t] + weights . features[t]`` goes through a softmax over the types the
library holds; the winner's probability is the confidence, and the constants were fitted on
hand-labelled questions (``fit_routing``; docs/ROUTING.md) so that it estimates the chance that
the type is where the answer is. Smart mode routes when it reaches the threshold.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Protocol

from rag_app.models import Reason, Routing
from rag_app.stage_settings import RoutingCues, StrategyOptions
from rag_app.understand.analysis import QueryAnalysis

DEFAULT_CUES = RoutingCues()


class LearnedInput(Protocol):
    """The learned router with what it reads beside the evidence (the question's embedding)."""

    @property
    def reads_question(self) -> bool:
        """Whether it reads the question itself (its embedding), not only the evidence."""
        ...

    def probabilities(
        self, features: Mapping[str, Sequence[float]], available: Sequence[str]
    ) -> dict[str, float]: ...


TYPES = ("text", "table", "image")
FEATURES = ("explicit", "implicit", "caption", "look", "top")


def _has(text: str, cue: str) -> bool:
    """Chinese cues as substrings; Latin ones as whole words ("ratio" is not in "operations")."""
    if cue.isascii():
        return re.search(rf"(?<![a-z]){re.escape(cue)}(?![a-z])", text) is not None
    return cue in text


def cue_evidence(
    query: QueryAnalysis, cues: RoutingCues = DEFAULT_CUES
) -> tuple[dict[str, float], dict[str, float], list[str]]:
    """Explicit (0/1) and implicit (0, 0.5, 1) cue strength per type, and the matched cues: the
    numbered table or figure the question points at, then the cue words it holds."""
    lowered = query.text.lower()
    explicit = dict.fromkeys(TYPES, 0.0)
    implicit = dict.fromkeys(TYPES, 0.0)
    evidence: list[str] = []
    for kind, reference in query.references:
        explicit[kind] = 1.0
        evidence.append(f"{kind}:{reference}")
    for kind, words in cues.explicit.items():
        hits = [w for w in words if _has(lowered, w)]
        # "图表" also contains "图"; one explicit cue per type is enough.
        if hits and not explicit[kind]:
            explicit[kind] = 1.0
            evidence.append(f"{kind}:{hits[0]}")
    for kind, words in cues.implicit.items():
        hits = [w for w in words if _has(lowered, w)]
        if hits:
            implicit[kind] = min(2, len(hits)) / 2
            evidence.extend(f"{kind}~{w}" for w in hits[:3])
    return explicit, implicit, evidence


def look_shares(look: Sequence[str]) -> dict[str, float]:
    """Each type's share of the first look's hits (types in rank order), weighted 1/rank."""
    weights = dict.fromkeys(TYPES, 0.0)
    for rank, kind in enumerate(look, start=1):
        if kind in weights:
            weights[kind] += 1 / rank
    total = sum(weights.values())
    return {k: v / total for k, v in weights.items()} if total else weights


def routing_features(
    query: QueryAnalysis,
    cues: RoutingCues = DEFAULT_CUES,
    caption_matches: Mapping[str, list[str]] | None = None,
    look: Sequence[str] = (),
) -> tuple[dict[str, tuple[float, ...]], list[str]]:
    """Per type, the feature vector in ``FEATURES`` order, and the evidence in words."""
    explicit, implicit, evidence = cue_evidence(query, cues)
    captions = caption_matches or {}
    for kind, found in captions.items():
        if found and kind in TYPES:
            evidence.append(f"{kind}:caption「{found[0]}」")
    shares = look_shares(look)
    top = look[0] if look else ""
    features: dict[str, tuple[float, ...]] = {
        t: (
            explicit[t],
            implicit[t],
            1.0 if captions.get(t) else 0.0,
            shares[t],
            1.0 if top == t else 0.0,
        )
        for t in TYPES
    }
    return features, evidence


def type_probabilities(
    features: Mapping[str, Sequence[float]],
    options: StrategyOptions,
    available: Sequence[str] = TYPES,
) -> dict[str, float]:
    """Softmax over the available types of ``bias + weights . features``."""
    bias = dict(options.routing_bias)
    logits = {
        t: bias.get(t, 0.0) + sum(w * f for w, f in zip(options.routing_weights, features[t]))
        for t in TYPES
        if t in available
    }
    if not logits:
        return {}
    top = max(logits.values())
    exps = {t: math.exp(z - top) for t, z in logits.items()}
    total = sum(exps.values())
    return {t: e / total for t, e in exps.items()}


def detect_query_type(
    query: QueryAnalysis,
    threshold: float | None = None,
    cues: RoutingCues = DEFAULT_CUES,
    caption_matches: dict[str, list[str]] | None = None,
    available: tuple[str, ...] = TYPES,
    look: Sequence[str] = (),
    options: StrategyOptions | None = None,
    learned: LearnedInput | None = None,
) -> Routing:
    """Detect the query's content type with a calibrated confidence and the evidence behind it.

    ``caption_matches`` maps a type to library captions the query matched and ``look`` lists the
    types of the first look's hits, best first (both found by the caller, which has the index).
    Types not in ``available`` (none in the library) cannot win. ``threshold`` defaults to
    ``options.smart_threshold`` (the learned router's) or ``options.constants_threshold``. With ``learned`` (the router model and the question's
    embedding) the learned router gives the probabilities and the question itself counts as a
    cue; without it, the fitted constants of ``options`` over the evidence alone.
    """
    options = options or StrategyOptions()
    if threshold is None:
        threshold = options.smart_threshold if learned else options.constants_threshold
    features, evidence = routing_features(query, cues, caption_matches, look)
    # A cue: the type named, a leaning word, a caption covering the question; or the question's
    # own embedding, when the router reads it.
    cued = any(f[0] or f[1] or f[2] for t, f in features.items() if t in available)
    if learned is not None:
        probs = learned.probabilities(features, available)
        cued = cued or learned.reads_question
    else:
        probs = type_probabilities(features, options, available)
    if not probs:
        probs = {"text": 0.0}
    best = max(probs, key=lambda k: (probs[k], k == "text"))
    confidence = probs[best]
    # Without a cue in the question the look alone says what is near, not what is asked; and a
    # type the question names is never overruled, only confirmed or doubted.
    named = [t for t, f in features.items() if f[0] and t in available]
    overruled = bool(named) and best not in named
    single = cued and not overruled and confidence >= threshold
    ranked = sorted(probs.items(), key=lambda p: -p[1])
    competing = ", ".join(f"{t} {p:.2f}" for t, p in ranked)
    values = (
        ("type", best),
        ("confidence", f"{confidence:.2f}"),
        ("threshold", f"{threshold:.2f}"),
        ("types", competing),
    )
    if not cued:
        seen = f" (first look: {competing})" if look else ""
        reason = f"no type cues{seen}: all types searched (hybrid)"
        why = Reason("no_cues", values)
    elif overruled:
        reason = (
            f"the question names {'/'.join(named)} but the evidence points to {best} "
            f"({competing}): all types (hybrid)"
        )
        why = Reason("hybrid", values)
    elif single:
        reason = (
            f"{best} preferred at confidence {confidence:.2f} >= {threshold:.2f}: its hits "
            "first, every type still searched"
        )
        why = Reason("single", values)
    else:
        reason = (
            f"{best} at confidence {confidence:.2f} < {threshold:.2f}, types compete "
            f"({competing}): all types (hybrid)"
        )
        why = Reason("hybrid", values)
    return Routing(
        detected_type=best,
        confidence=round(confidence, 3),
        evidence=tuple(evidence),
        scores=tuple((t, round(probs.get(t, 0.0), 3)) for t in TYPES),
        single_type=single,
        reason=reason,
        threshold=threshold,
        why=why,
    )
