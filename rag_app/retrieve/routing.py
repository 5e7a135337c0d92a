"""Smart mode's query-type detection: keyword evidence (seed 000's lists, English ones added)
plus what the library itself says (a table caption or figure caption the query names).

Cues are graded. Explicit ones name the content type ("表格", "图3", "chart", "table 2") and
count 3; implicit ones only lean ("多少", "同比", "why", "风险") and count 1, at most 2 per type;
a caption in the library that the query matches counts 2. Confidence is the winning type's share
of all evidence plus one (the "plus one" is the prior that any query may need any type), so an
implicit lean alone never reaches the 0.7 threshold, and one explicit cue alone does (3/4).
"""

from __future__ import annotations

import re

from rag_app.models import Reason, Routing
from rag_app.stage_settings import RoutingCues
from rag_app.text.phrasing import content_references

DEFAULT_CUES = RoutingCues()


def _has(text: str, cue: str) -> bool:
    """Chinese cues as substrings; Latin ones as whole words ("ratio" is not in "operations")."""
    if cue.isascii():
        return re.search(rf"(?<![a-z]){re.escape(cue)}(?![a-z])", text) is not None
    return cue in text


def detect_query_type(
    query: str,
    threshold: float = 0.7,
    cues: RoutingCues = DEFAULT_CUES,
    caption_matches: dict[str, list[str]] | None = None,
    available: tuple[str, ...] = ("text", "table", "image"),
) -> Routing:
    """Detect the query's content type with a confidence and the evidence behind it.

    ``caption_matches`` maps a type to library captions the query matched (found by the caller,
    which has the index). Types not in ``available`` (none in the library) get no evidence.
    """
    lowered = query.lower()
    points: dict[str, float] = {t: 0.0 for t in ("text", "table", "image")}
    evidence: list[str] = []
    for kind, reference in content_references(query).items():
        points[kind] += 3
        evidence.append(f"{kind}:{reference}")
    for kind, words in cues.explicit.items():
        hits = [w for w in words if _has(lowered, w)]
        # "图表" also contains "图"; one explicit cue per type is enough.
        if hits and not any(e.startswith(f"{kind}:") for e in evidence):
            points[kind] += 3
            evidence.append(f"{kind}:{hits[0]}")
    for kind, words in cues.implicit.items():
        hits = [w for w in words if _has(lowered, w)]
        if hits:
            # At most 2: leanings alone stay below the threshold (2 / (2 + 1) < 0.7).
            points[kind] += min(2, len(hits))
            evidence.extend(f"{kind}~{w}" for w in hits[:3])
    for kind, captions in (caption_matches or {}).items():
        if captions:
            points[kind] += 2
            evidence.append(f"{kind}:caption「{captions[0]}」")
    for kind in points:
        if kind not in available:
            points[kind] = 0.0
    best = max(points, key=lambda k: (points[k], k == "text"))
    total = sum(points.values())
    confidence = points[best] / (total + 1.0) if total else 0.0
    single = confidence >= threshold
    values = (
        ("type", best),
        ("confidence", f"{confidence:.2f}"),
        ("threshold", f"{threshold:.2f}"),
    )
    if not total:
        reason = "no type cues: all types searched (hybrid)"
        best = "text"
        why = Reason("no_cues")
    elif single:
        reason = f"{best} at confidence {confidence:.2f} >= {threshold:.2f}: {best} only"
        why = Reason("single", values)
    else:
        reason = f"{best} at confidence {confidence:.2f} < {threshold:.2f}: all types (hybrid)"
        why = Reason("hybrid", values)
    return Routing(
        detected_type=best,
        confidence=round(confidence, 3),
        evidence=tuple(evidence),
        scores=tuple((k, v) for k, v in points.items()),
        single_type=single,
        reason=reason,
        threshold=threshold,
        why=why,
    )
