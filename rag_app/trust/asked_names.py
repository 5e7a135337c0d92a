"""The names a question asks about, read against the library's documents.

The name it leads with and the proper nouns and Latin names it writes (``text.names``), then
read as the library writes them: a name that runs on past a report's company cut to it, two names
joined by one character that no document writes together read apart, and a word the tables label
a quantity with (公允价值, which jieba tags a person's name), alone or run on, dropped.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rag_app.text.names import proper_names
from rag_app.trust.document_reading import Document
from rag_app.trust.mentions import known_start

# The fewest characters of each of two names a question joins with one (柏湾证券对华棱动力).
_PART = 3


def asked_names(question: str, leading: str, documents: Sequence[Document]) -> tuple[str, ...]:
    """The names ``question`` gives (``leading``: the one it leads with), read against
    ``documents`` (see the module)."""
    given = given_names(question, leading)
    known = [n for d in documents for n in d.names]
    texts = [d.text for d in documents]
    entities = [e for d in documents for e in (*d.names, *d.entities)]
    # a name heading a row or column of its tables, run on into the metric (鹏屿财险核心资本):
    # four characters or more, so not a region (中国 of 中国平安)
    heads = {part for d in documents for h in d.headers for part in _HEADER_PARTS.split(h)}
    starts = [*known, *(h for h in heads if len(h) >= 4)]
    asked = known_end(joined(known_start(given, starts), texts), entities, texts)
    # a report's name the question writes whole, which segmenting did not give (嵘城银行 of
    # "嵘城银行行长是谁": 嵘城 / 银行行长)
    lowered = question.lower()
    asked += tuple(
        n for n in known if n.lower() in lowered and not any(n.lower() in a.lower() for a in asked)
    )
    quantities = {x for d in documents for x in d.quantities}
    # 公允价值 and 公允价值合计 (jieba's name run on into what is asked of it): no names
    lead = tuple(q for q in quantities if len(q) >= _PART)
    return tuple(n for n in asked if n.lower() not in quantities and not n.lower().startswith(lead))


# A header's parts: "鹏屿财险 2024年12月31日", "营业收入 / 2024年".
_HEADER_PARTS = re.compile(r"\s*/\s*|\s+")


def given_names(question: str, leading: str = "") -> tuple[str, ...]:
    """The names the question gives: the one it leads with, then the proper nouns and Latin
    names it writes (``text.names``); an acronym (CATL, ROE) is not held against the library:
    it may be a Chinese report's company or a metric, unless the question leads with it as a
    name ("TSMC's revenue", "SMIC的董事长"): a metric takes no possessive."""
    names = [leading, *proper_names(question)]
    return tuple(dict.fromkeys(n for n in names if n and (n == leading or not n.isupper())))


def known_end(asked: tuple[str, ...], entities: list[str], texts: list[str]) -> tuple[str, ...]:
    """The asked names, each that no document writes but that ends in a name the library holds
    cut to it ("中衡沙电气" of "前十大重仓股中衡沙电气": 中, among; "第三大重仓股衡沙电气")."""
    held = {e.lower() for e in entities}
    out = []
    for name in asked:
        lowered = name.lower()
        if not any(lowered in t for t in texts):
            ends = range(1, len(name) - _PART + 1)
            name = next((name[k:] for k in ends if lowered[k:] in held), name)
        out.append(name)
    return tuple(dict.fromkeys(out))


def joined(asked: tuple[str, ...], texts: list[str]) -> tuple[str, ...]:
    """The asked names, one that two names joined by one character make ("柏湾证券对华棱动力":
    no document writes it, they write 柏湾证券 and 华棱动力) read as the second, what the first
    says something of, then the first."""
    out: list[str] = []
    for name in asked:
        lowered = name.lower()
        if not any(lowered in t for t in texts):
            for k in range(_PART, len(lowered) - _PART):
                head, tail = lowered[:k], lowered[k + 1 :]
                if all(any(part in t for t in texts) for part in (head, tail)):
                    out += [name[k + 1 :], name[:k]]
                    break
        out.append(name)
    return tuple(dict.fromkeys(out))
