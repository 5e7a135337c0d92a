"""Table notes: the marks a table's cells carry and the paragraphs that explain them.

Annual reports and broker reports put a table's notes right under it: a row "Recorded investment
(1)" and, below the table, "(1) Includes deferred initial direct costs ...", or "注：..." and
"资料来源：...". Chunking joins such paragraphs to the table (``chunking``); the prompt keeps, in a
table excerpt, the notes of the rows it shows (``prompt.format``).
"""

from __future__ import annotations

import re

# A note's start: "(1)", "（2）", "1)", "(a)", "(ii)", "*", "†", "①"; or a word that says it is one.
_MARK = r"[0-9]{1,2}|[a-z]|[ivx]{1,4}"
_NOTE_MARK = re.compile(rf"^(?:[(（]\s*({_MARK})\s*[)）]|([0-9]{{1,2}})\)|([*†‡§]+)|([①-⑳]))", re.I)
_NOTE_WORD = re.compile(
    r"^(?:注|备注|说明|附注|数据来源|资料来源|来源|notes?|sources?)\s*[0-9①-⑳]*\s*[:：]", re.I
)
# A mark in a cell follows a word ("Other (1)", "Audit Fees(1)", "营业收入*"), which tells it
# from a negative number ("(1)" alone in a cell).
_CELL_MARK = re.compile(
    rf"[^\W\d_]\s?(?:[(（]\s*({_MARK})\s*[)）]|([*†‡§]+)|([①-⑳]))|<sup>\s*([^<]{{1,3}})\s*</sup>",
    re.I,
)


def table_marks(body: str) -> frozenset[str]:
    """The note marks a table's cells carry ("Recorded investment (1)" -> "1")."""
    marks = set()
    for match in _CELL_MARK.finditer(body):
        mark = next(g for g in match.groups() if g)
        marks.add(mark.strip().lower())
    return frozenset(marks)


def note_mark(text: str) -> str:
    """The mark a note starts with ("(1) Includes ..." -> "1"); empty when it has none."""
    match = _NOTE_MARK.match(text.strip())
    return next(g for g in match.groups() if g).lower() if match else ""


def says_what_it_is(text: str) -> bool:
    """Whether a note starts with a word naming it: "注：", "资料来源：", "Source:"."""
    return _NOTE_WORD.match(text.strip()) is not None


def is_table_note(text: str, marks: frozenset[str]) -> bool:
    """Whether a paragraph after a table is one of its notes: it starts with a mark the table
    carries ("(1) Represents ..." after a row "Other (1)"), or says it is a note or a source."""
    if says_what_it_is(text):
        return True
    mark = note_mark(text)
    return bool(mark) and mark in marks
