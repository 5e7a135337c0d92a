"""Gold evidence of the second set, named by item keys and checked against the documents.

A question names its document (``doc``: annual, prospectus, industry or call), its answer and the
keys of its gold items. ``gold_of`` turns the keys into 0-based item indices and records an error
when the answer is missing from a gold item or, for a single answer, found in another item of the
same document (numbers matched as whole numbers, as in the broker set). A list answer is checked
item by item against the gold only: its names (companies, projects) recur in the text around
the table by nature. ``absent_errors`` checks what an unanswerable question relies on: that the
string it asks for is in no document (``"*"``) or not in the named one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rag_app.evaluation.sets.docgen import Doc, contains_answer, item_search_text


def gold_of(
    d: Doc,
    answer: str | Sequence[str],
    keys: Sequence[str],
    where: str,
    errors: list[str],
    ignore: Sequence[str] = (),
) -> list[int]:
    """The sorted indices of ``keys`` in ``d``; problems are appended to ``errors``, each
    prefixed with ``where`` (the question's id and wording)."""
    try:
        gold = sorted({d.index(k) for k in keys})
        ignored = {d.index(k) for k in ignore}
    except KeyError as e:
        errors.append(f"{where}: unknown key {e} in {d.doc_id}")
        return []
    answers = [answer] if isinstance(answer, str) else list(answer)
    for a in answers:
        for i in gold:
            if not contains_answer(d.items[i], a):
                errors.append(f"{where}: {a!r} not in gold item {i} ({d.items[i]['type']})")
    if isinstance(answer, str):
        extra = [
            i
            for i, it in enumerate(d.items)
            if i not in gold and i not in ignored and contains_answer(it, answer)
        ]
        if extra:
            errors.append(f"{where}: {answer!r} also in non-gold items {extra} of {d.doc_id}")
    return gold


def also_in(docs: Mapping[str, Doc], name: str, answer: str) -> list[str]:
    """The other documents holding ``answer`` (ambiguous when every document is pooled)."""
    return [
        d.doc_id
        for other, d in docs.items()
        if other != name and any(contains_answer(it, answer) for it in d.items)
    ]


def absent_errors(
    docs: Mapping[str, Doc], absent: Sequence[Sequence[str]], where: str
) -> list[str]:
    """``absent`` is a list of ``[doc name or "*", string]``: the string must occur in none of
    those documents' items (their text fields; discarded page furniture included)."""
    errors = []
    for name, text in absent:
        for other, d in docs.items():
            if name in ("*", other) and any(text in item_search_text(it) for it in d.items):
                errors.append(f"{where}: {text!r}, said to be absent, is in {d.doc_id}")
    return errors
