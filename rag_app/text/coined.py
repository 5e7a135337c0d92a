"""Names a question writes in capitals: a model, a data set, a product or a company's short
name ("KEHGCN", "MIMIC-III", "CATL"). A Chinese report's subject is read off its title
(``text.subjects``); an English paper or datasheet often has no such title, so these names are
told from words by their shape (three or more capital letters, digits and hyphens) and from
metrics by the metric vocabulary (EPS, ROE are metrics, not names). Such a name points at the
documents whose sources mention it, when some of the sources' documents do and others do not:
"Which datasets are used to evaluate KEHGCN?" is answered from the KEHGCN paper, not from a
hydrology paper's sentence that shares "used" and "evaluate" with it."""

from __future__ import annotations

import re
from collections.abc import Iterable

from rag_app.models import Chunk
from rag_app.text.periods import PERIOD_SPAN
from rag_app.text.spans import METRICS

_CAPITALS = re.compile(r"(?<![A-Za-z0-9])[A-Z][A-Z0-9]+(?:-[A-Z0-9]+)*(?![A-Za-z0-9])")
_METRIC_TERMS = frozenset(METRICS)


def coined_names(text: str) -> tuple[str, ...]:
    """The names ``text`` writes in capitals ("KEHGCN", "MIMIC-III"), in order: three letters
    or more, not a metric term (EPS) and not a period (FY2024)."""
    out = []
    for match in _CAPITALS.finditer(text):
        name = match.group()
        if sum(ch.isalpha() for ch in name) < 3 or name.lower() in _METRIC_TERMS:
            continue
        if PERIOD_SPAN.fullmatch(name):
            continue
        out.append(name)
    return tuple(dict.fromkeys(out))


def mentions_name(text: str, name: str) -> bool:
    """Whether ``text`` mentions ``name`` as a word of its own (any case)."""
    pattern = rf"(?<![A-Za-z0-9]){re.escape(name)}(?![A-Za-z0-9])"
    return re.search(pattern, text, re.I) is not None


def naming_documents(names: Iterable[str], texts: dict[str, str]) -> set[str] | None:
    """The documents (id -> their sources' text) that mention one of ``names``, when some do
    and others do not; None when none of the names tells the documents apart."""
    names = tuple(names)
    if not names or len(texts) < 2:
        return None
    found = {doc for doc, text in texts.items() if any(mentions_name(text, n) for n in names)}
    return found if found and len(found) < len(texts) else None


def document_texts(chunks: Iterable[Chunk]) -> dict[str, str]:
    """Per document, the text of its chunks among ``chunks`` (searched text, text, caption,
    description), in the order documents first appear."""
    parts: dict[str, list[str]] = {}
    for chunk in chunks:
        fields = (chunk.search_text, chunk.text, chunk.caption, chunk.description)
        parts.setdefault(chunk.doc_id, []).extend(f for f in fields if f)
    return {doc: "\n".join(texts) for doc, texts in parts.items()}
