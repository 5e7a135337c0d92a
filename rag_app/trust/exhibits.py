"""The numbered tables and figures a question points at ("表6", "图5", "Figure 3"): shown by a
document in scope, whatever noun they are asked by, or held by none of them (a figure the
report does not have, among those it has)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from rag_app.trust.document_reading import Document
from rag_app.trust.findings import Gap
from rag_app.understand.analysis import QueryAnalysis


def exhibit_gap(
    question: QueryAnalysis, scope: Sequence[str], profile: Mapping[str, Document]
) -> Gap | None:
    """A numbered table or figure the question points at ("图5") that no document in scope
    has, among the numbered ones of that kind they do have (图1 … 图4), nor writes."""
    for kind, label in question.references:
        held = [lab for d in scope for k, lab in profile[d].exhibits if k == kind]
        number = re.findall(r"\d+", label)
        if not held or not number or shown(question, scope, profile):
            continue
        if not any(re.findall(r"\d+", lab)[:1] == number[:1] for lab in held):
            return Gap("exhibit", label, tuple(dict.fromkeys(held)))
    return None


def shown(question: QueryAnalysis, scope: Sequence[str], profile: Mapping[str, Document]) -> bool:
    """Whether the question points at a numbered table or figure ("表6", "Figure 3") that a
    document in scope has: showing it answers the question, whatever noun it is asked by
    ("表6 产线一览表" of a table captioned "表6：中芯国际产线一览")."""
    for _, label in question.references:
        written = re.compile(re.escape(label.lower()) + r"(?!\d)")
        if any(written.search(profile[d].text) for d in scope):
            return True
    return False
