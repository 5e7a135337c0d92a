"""The offline answerer's knobs, in one frozen object (``Settings.offline``). Each named feature
can be turned off, and ``make eval`` has an ablation row for each (answer_in_offline)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class OfflineSettings:
    # The answer quotes at most ``max_sentences`` and, when that many share a term with the
    # question, at least ``min_sentences`` (2-4 reads as an answer, not a dump).
    max_sentences: int = 3
    min_sentences: int = 2
    # Beyond ``min_sentences``, a sentence joins the answer only if it scores at least this share
    # of the best one: tuned by hand on the tests' report snippets so a row that merely shares
    # the column header with the answer row stays out.
    relative_cutoff: float = 0.5
    # Bonuses, as shares of the largest idf among the question's terms (so they scale with it):
    # a table row whose label (first cell) the question names ...
    first_cell_bonus: float = 1.0
    # ... a sentence or row with a number (research questions mostly ask for figures) ...
    number_bonus: float = 0.25
    # ... and question terms in the chunk's caption, heading path or introducing paragraph.
    context_weight: float = 0.3
    # A question naming some of the sources' reports is answered from those only (look-alike
    # 盈利预测 tables of another company are never quoted); two named: each one's best quote.
    named_reports: bool = True
    # A question asking for a list gets the names the table listing them gives, in one line,
    # from a table of at least ``list_min_rows`` rows (fewer are read as rows, not as a list).
    list_answers: bool = True
    list_min_rows: int = 3
    # A table row is quoted with the notes its marks point to ("Other (1)" + "(1) Includes ...").
    row_notes: bool = True
    # A sentence is quoted with the one continuing it ("... rose 6.4%. The increase was due to").
    join_continuations: bool = True

    def __post_init__(self) -> None:
        if not 1 <= self.min_sentences <= self.max_sentences:
            raise ValueError("need 1 <= min_sentences <= max_sentences")
        if not 0.0 <= self.relative_cutoff <= 1.0:
            raise ValueError("relative_cutoff must be between 0 and 1")
