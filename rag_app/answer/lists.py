"""Offline answers to list questions ("中芯国际的产线有哪些？"): the names the table listing them
gives, in one line, narrowed to the rows whose cells the question names."""

from __future__ import annotations

import re
from collections.abc import Sequence

from rag_app.answer.quotes import Candidate, ScoredSentence, clip
from rag_app.models import Chunk
from rag_app.stage_settings import OfflineSettings
from rag_app.text.analyzer import match_terms
from rag_app.text.language import CJK_BASIC
from rag_app.text.lexicon import word_set
from rag_app.text.tables import column_labels, parse_table

_VALUE = re.compile(rf"^[\s$¥￥€£(（-]*[\d.,]+[%％)）]*\s*[A-Za-z{CJK_BASIC}]{{0,3}}$")
_NUMBER = re.compile(r"^[\s$¥￥€£(（+-]*[\d.,]+[%％)）]*$")  # a bare number, not "12英寸"
_TOTAL = re.compile(r"^(?:合计|总计|小计|total|subtotal)\b", re.I)
# Words that name no kind of thing a table could list.
_GENERIC_WORDS = word_set("generic_list_words.txt")


def list_of_table(
    question: str,
    q_words: set[str],
    q_bigrams: set[str],
    sources: Sequence[tuple[int, Chunk]],
    named: set[int] | None,
    best: float,
    min_rows: int = 3,
    max_chars: int = OfflineSettings.max_sentence_chars,
) -> ScoredSentence | None:
    """For a question asking for a list, the names in the table that lists them, quoted as one
    line ("表6：中芯国际产线一览 · 厂区: 中芯上海（S1）; 中芯北京（B1）; ...") scored above
    ``best``; None when no source table fits.

    The table is the source table whose caption or heading shares the most words with the
    question (the earlier on ties), not counting words like 公司 or the company most sources
    name; its naming column is the first whose values are all there, all different and not
    numbers (not 序号, not the 8英寸 / 12英寸 that repeat); total rows are left out, and a table
    needs ``min_rows`` other rows to be a list."""
    # A word most sources share (the company a report is about) says nothing of what a table
    # lists: "中芯国际有哪些风险？" is not answered by 表6：中芯国际产线一览.
    texts = [
        f"{c.search_text} {c.text} {c.caption} {c.description} {c.table_html}".lower()
        for _, c in sources
    ]
    wanted = {
        w
        for w in q_words | q_bigrams
        if w not in _GENERIC_WORDS and 2 * sum(w in t for t in texts) <= len(texts)
    }
    found: list[tuple[int, int, tuple[str, ...], int, Chunk]] = []
    for rank, (number, chunk) in enumerate(sources):
        if chunk.type != "table" or not chunk.table_html or (named and number not in named):
            continue
        words, bigrams = match_terms(" ".join([chunk.caption, *chunk.heading_path[-1:]]))
        shared = tuple(sorted(wanted & (words | bigrams)))
        if shared:
            found.append((-len(shared), rank, shared, number, chunk))
    for _, _, shared, number, chunk in sorted(found, key=lambda f: f[:2]):
        grid = parse_table(chunk.table_html, chunk.header_rows)
        rows = [r for r in grid.rows[grid.header_rows :] if not _TOTAL.match(r[0].strip())]
        if len(rows) < min_rows:
            continue
        labels = column_labels(grid)
        for c in range(grid.n_cols):
            values = [r[c].strip() for r in rows]
            if not all(values) or len(set(values)) < len(values):
                continue
            if any(_VALUE.match(v) for v in values):
                continue
            title = chunk.caption.strip() or (chunk.heading_path or ("",))[-1]
            label = labels[c] if c < len(labels) else ""
            kept, named_values = _rows_named(question, rows, c)
            if named_values:
                values = [r[c].strip() for r in kept]
                title = f"{title} · {' / '.join(named_values)}"
            names = "; ".join(values)
            joined = f"{title} · {label}: {names}" if label else f"{title}: {names}"
            text = clip(joined, max_chars)
            words, bigrams = match_terms(text)
            line = Candidate(number, -1, text.strip(" ·:"), frozenset(words), frozenset(bigrams))
            return ScoredSentence(line, best + 1.0, shared)
    return None


def _rows_named(
    question: str, rows: Sequence[tuple[str, ...]], naming: int
) -> tuple[list[tuple[str, ...]], list[str]]:
    """The rows a list question narrows to by naming cells of theirs ("哪几座12英寸晶圆厂":
    the rows whose 晶圆尺寸 is 12英寸), with the named values; all rows and no values when it
    names none. A value counts when the question holds it whole, it is not a bare number (a
    question's "12" is no 序号 12) and only some rows have it;
    values named in one column are alternatives, named in several columns all must hold."""
    lowered = question.lower()
    wanted: dict[int, set[str]] = {}
    for c in range(len(rows[0])):
        if c == naming:
            continue
        column = {r[c].strip() for r in rows}
        for value in column:
            if (
                len(value) >= 2
                and not _NUMBER.match(value)
                and value.lower() in lowered
                and len(column) > 1
            ):
                wanted.setdefault(c, set()).add(value)
    if not wanted:
        return list(rows), []
    kept = [r for r in rows if all(r[c].strip() in values for c, values in wanted.items())]
    if not kept:
        return list(rows), []
    return kept, sorted({v for values in wanted.values() for v in values})
