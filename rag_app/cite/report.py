"""What ``check_answer`` returns: the sources an answer cites, each sentence's verdict, and the
report that holds both."""

from __future__ import annotations

from dataclasses import dataclass

from rag_app.models import Reason


@dataclass(frozen=True)
class Citation:
    """A source the answer cites: where it comes from, how often and where it is first cited
    (character offset of its first marker)."""

    number: int
    chunk_id: str
    doc_id: str
    pages: tuple[int, ...]
    item_indices: tuple[int, ...]
    count: int
    first_position: int


@dataclass(frozen=True)
class Place:
    """Where a cited source holds a number: a cell of its table or a sentence of its text.

    ``source`` is the N of ``[Source N]``. A cell (``kind`` "cell") is named twice: by its
    position in the table's grid (``rag_app.text.tables.parse_table`` of the chunk's table,
    spans expanded, header rows counted: ``row`` and ``col`` from 0) and by its labels (its
    row's first cell, its column's header cells); ``text`` is the cell as written. A sentence
    (``kind`` "sentence") is ``text``, as the chunk's ``part`` writes it (``text``,
    ``caption``, ``description``, ``footnote``, ``context``, ``heading``, ``field``, or
    ``prompt`` for the block the model saw). ``written`` is the number as the source writes
    it ("57,796"); ``exponent`` the power of ten of the scale the source states for it (6 for
    "百万元"), so "577.96亿元" traced to 57,796 reads as the same amount.
    """

    source: int
    kind: str  # "cell" or "sentence"
    text: str
    written: str
    exponent: int = 0
    row: int = -1
    col: int = -1
    row_label: str = ""
    col_label: str = ""
    part: str = ""


@dataclass(frozen=True)
class TracedNumber:
    """A number of the answer that the check traced: ``raw`` as written, ``start``/``end`` its
    span in the answer text (a percent sign after it included). ``place`` is where a cited
    source holds it (None for a computed number no source holds); a number the answer works
    out ("57796 - 45250 = 12546") has its ``working`` as written and its ``operands``, each
    traced in turn (an average's count and a percentage's 100 have no place)."""

    raw: str
    start: int
    end: int
    place: Place | None = None
    working: str = ""
    operands: tuple[TracedNumber, ...] = ()

    @property
    def places(self) -> tuple[Place, ...]:
        """Where to look: its own place, else its operands' places."""
        if self.place is not None:
            return (self.place,)
        return tuple(o.place for o in self.operands if o.place is not None)


@dataclass(frozen=True)
class SentenceCheck:
    """One sentence of the answer and its verdict.

    ``start``/``end`` span the sentence in the answer, markers included; ``text`` is the
    sentence without its markers; ``cited`` the numbers its markers name (dangling ones
    included; a clause ending in "；" without markers takes the next clause's). ``support`` is
    in [0, 1] (0.0 for sentences that are not factual claims); ``supported`` is True for a
    factual sentence whose support reaches the threshold (against its cited sources, or
    against the best other sources when it cites none), and for every non-factual sentence.
    ``best_source`` is the source that supports it best among those checked; ``reason`` says
    why in a short English phrase, ``reasons`` the same as keys and values.
    """

    start: int
    end: int
    text: str
    cited: tuple[int, ...]
    support: float
    supported: bool
    best_source: int | None
    reason: str
    factual: bool = True
    # The sentence or table row of ``best_source`` that shares most with the claim: what the UI
    # highlights in the source card.
    evidence: str = ""
    # ``reason`` as keys and values, for wording it in the UI's language (see
    # ``verdicts.english``).
    reasons: tuple[Reason, ...] = ()
    # Whether the sentence is about what the question asks (``rag_app.cite.relevance``): False
    # when it is about another company, period or metric, however well its source supports
    # it; ``off_subject`` says why in English ("2025E, the question asks 2026年"),
    # ``off_reasons`` the same as keys and values. True when the check did not run.
    relevant: bool = True
    off_subject: str = ""
    off_reasons: tuple[Reason, ...] = ()
    # Each number of the sentence the check traced, with where (``TracedNumber``); years
    # and list numbers are not traced, an untraced number is in ``reasons``.
    traced: tuple[TracedNumber, ...] = ()

    @property
    def uncited(self) -> bool:
        return self.factual and not self.cited

    @property
    def flagged(self) -> bool:
        """What the UI should mark: an unsupported or uncited factual sentence."""
        return self.factual and (not self.supported or not self.cited)

    @property
    def off_question(self) -> bool:
        """A factual sentence about another company, period or metric than the question's."""
        return self.factual and not self.relevant


@dataclass(frozen=True)
class CitationReport:
    """The citations of an answer and the check of each sentence.

    ``citations`` are the cited sources that exist, by number; ``dangling`` the cited numbers
    that point to no source; ``cited_sources`` the numbers of ``citations``.
    """

    citations: tuple[Citation, ...]
    sentences: tuple[SentenceCheck, ...]
    dangling: tuple[int, ...]
    unsupported_count: int
    cited_sources: tuple[int, ...]
    uncited_count: int = 0
    # Whether the sentences were also checked against the question (``relevance``), and how
    # many factual sentences were found about something else.
    relevance_checked: bool = False
    off_question_count: int = 0

    @property
    def flagged(self) -> tuple[SentenceCheck, ...]:
        return tuple(s for s in self.sentences if s.flagged)

    @property
    def off_question(self) -> tuple[SentenceCheck, ...]:
        return tuple(s for s in self.sentences if s.off_question)

    @property
    def untraced_numbers(self) -> tuple[str, ...]:
        """The numbers of the answer, as written, that no cited source holds (in any scale it
        states) nor the answer's own working gives: what a reader should not trust."""
        found = (
            number.strip()
            for sentence in self.sentences
            for reason in sentence.reasons
            if reason.key == "numbers_not_found"
            for number in reason.value("numbers").split(", ")
        )
        return tuple(dict.fromkeys(n for n in found if n))

    @property
    def traced_numbers(self) -> tuple[TracedNumber, ...]:
        """Each traced number of the answer, in the answer's order, with where it was traced:
        what a reader can open in its source."""
        return tuple(n for sentence in self.sentences for n in sentence.traced)

    def summary(self) -> tuple[int, int, int]:
        """(cited factual sentences, how many of them are supported, how many are about the
        question): "3/3 supported, 2/3 about the question"."""
        cited = [s for s in self.sentences if s.factual and s.cited]
        return (
            len(cited),
            sum(1 for s in cited if s.supported),
            sum(1 for s in cited if s.relevant),
        )

    def citation(self, number: int) -> Citation | None:
        return next((c for c in self.citations if c.number == number), None)
