"""Where the library mentions a name no report is about, and what it says there.

A company can be written in a report without being covered by one: a row of an industry
report's ranking (北辰智控's 销量 and 市场份额), a customer in a prospectus's top-five table. A
question about it is answerable only where that mention gives what is asked: the ranking answers
"北辰智控的市场份额是多少？" but not its revenue or its chairman. ``mention_context`` reads, in
each chunk that writes the name, only what belongs to it: for a table, its caption, header rows
and the rows that hold the name; for text, the sentences that write it. ``gives`` says whether
the question's content words are there: in a table, all of them, its last word (the head of a
Chinese noun phrase: 营业收入, 董事长) naming a label, so that "占营业收入比例" does not give
营业收入; in a sentence or a caption, one of them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rag_app.index.library import Snapshot
from rag_app.text.sentences import split_sentences
from rag_app.text.synonyms import FINANCE_SYNONYMS
from rag_app.text.tables import TableTooLarge, column_labels, parse_table


@dataclass(frozen=True)
class Mention:
    """One place a name is written: its document, what belongs to it there (``labels``: the
    table's column labels and caption, or nothing for a sentence; ``text``: the rows or
    sentences that write it) and the exhibit's caption (for saying where)."""

    doc_id: str
    labels: tuple[str, ...]
    text: str
    caption: str = ""


def mention_context(snap: Snapshot, doc_ids: Sequence[str], name: str) -> list[Mention]:
    """Every place ``doc_ids`` write ``name`` (lower-case match), table rows and sentences."""
    lowered = name.lower()
    out: list[Mention] = []
    for doc_id in doc_ids:
        ids = snap.chunks.doc_chunk_ids(doc_id)
        chunks = snap.chunks.get_many(ids)
        for chunk_id in ids:
            chunk = chunks.get(chunk_id)
            if chunk is None or lowered not in chunk.text.lower():
                continue
            if chunk.type == "table" and chunk.table_html:
                try:
                    grid = parse_table(chunk.table_html, chunk.header_rows)
                except (TableTooLarge, ValueError):
                    continue
                rows = [" ".join(r) for r in grid.data_rows if lowered in " ".join(r).lower()]
                labels = (*column_labels(grid), chunk.caption)
                if not rows and any(lowered in x.lower() for x in column_labels(grid)):
                    # a column of its own (鹏屿人寿 2024年12月31日): every row is of it
                    rows = [" ".join(r) for r in grid.data_rows]
                    labels = (*labels, *(r[0] for r in grid.data_rows if r))
                out.append(Mention(doc_id, tuple(x for x in labels if x), "\n".join(rows),
                                   chunk.caption))  # fmt: skip
            else:
                sentences = [s for s in split_sentences(chunk.text) if lowered in s.lower()]
                out.append(Mention(doc_id, (), "\n".join(sentences), chunk.caption))
    return out


def gives(mention: Mention, words: Sequence[str], alone: bool = False) -> bool:
    """Whether ``mention`` gives what a question asks for, read as its content ``words``: each
    written there, and the last one, the phrase's head, a label's ending in a table; ``alone``,
    the question asking nothing else, the head's finance synonym too (营业收入 of "2024年营收")."""
    if not words:
        return True
    where = (mention.text + "\n" + "\n".join(mention.labels)).lower()
    if not mention.labels:
        # a sentence or a figure's caption: it speaks of what is asked if it writes one word of it
        return any(w.lower() in where for w in words)
    if not all(w.lower() in where for w in words[:-1]):
        return False
    head = words[-1].lower()  # or, ``alone`` (nothing else asked), its finance synonym
    synonyms = FINANCE_SYNONYMS.expand(head) if alone else []
    heads = [head, *(t for t in synonyms if not t.isascii())]
    return any(ends_with(bare_label(label), h) for label in mention.labels for h in heads)


def ends_with(label: str, head: str) -> bool:
    """Whether a label is named by a phrase's head: it ends as the head ends and holds the
    head's characters in order ("销售金额" by 销售额; not "占营业收入比例" by 营业收入)."""
    if not label or not head or label[-1] != head[-1]:
        return False
    rest = iter(label)
    return all(ch in rest for ch in head)


def bare_label(label: str) -> str:
    """A label without its bracketed unit ("市场份额（%）" -> "市场份额"), lower-case."""
    text = label.strip().lower()
    for opening in ("（", "("):
        if opening in text:
            text = text[: text.index(opening)]
    return text.strip()


def own_row(mention: Mention, entities: Sequence[str], name: str) -> bool:
    """Whether a table writes ``name`` in a row of its own, not in the row of another of the
    document's ``entities``: 美国 in 格芯's row of a ranking (its headquarters) is no US figure
    of the report's company."""
    name = name.lower()
    others = [e.lower() for e in entities if len(e) >= 2]
    others = [e for e in others if e != name and name not in e]
    rows = [row.lower() for row in mention.text.split("\n")]
    return any(not any(e in row for e in others) for row in rows if name in row)


def known_start(asked: Sequence[str], names: Sequence[str]) -> tuple[str, ...]:
    """The asked names, each that starts with one of the library's ``names`` of a report's
    company and runs on without a delimiter cut to it ("澄远智能投资活动产生" of
    "澄远智能投资活动产生的现金流量净额")."""
    known = sorted({n for n in names if len(n) >= 2}, key=len, reverse=True)
    out = []
    for name in asked:
        start = next((n for n in known if name.startswith(n) and len(name) > len(n)), "")
        out.append(start or name)
    return tuple(dict.fromkeys(out))
