"""The answer's knobs: the offline answerer (``OfflineSettings``), follow-up questions
(``FollowUpSettings``) and the model's query rewrites (``RewriteSettings``)."""

from __future__ import annotations

from dataclasses import dataclass

from rag_app.stage_settings.words import BIGRAM_WEIGHT


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
    # A Chinese character bigram of the question found in a sentence counts this share of its
    # idf, a whole word all of it (``stage_settings.words``).
    bigram_weight: float = BIGRAM_WEIGHT
    # Sentences longer than this are cut (with an ellipsis) so one run-on paragraph cannot fill
    # the answer; about three lines of Chinese in the UI.
    max_sentence_chars: int = 220
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
    # A question naming a year and a table row ("2026年的市盈率") is answered with the value
    # first, with its unit, period and subject ("中芯国际 2026E 市盈率：106.2 倍 [Source 3]");
    # the rows quoted after it are the ones whose label the question names (issue 14).
    value_lines: bool = True
    # When no row line gives the value, a table's facts may (rag_app.facts, issue 25): the cell
    # a question names by row and column, or a change, rate of change, average or sum over the
    # years it names, worked out with the working shown, when the operation model
    # (understand.operations) reads that operation with at least ``operation_confidence``.
    # 0.6, set before measuring: on TAT-QA dev's held-out half, 79% of the reads at or above it
    # are right (637 of 882 questions reach it), and 88% of the changes, rates, averages and
    # sums it lets be worked out (291); below it, quoting the cells is safer than a number.
    fact_lines: bool = True
    operation_confidence: float = 0.6
    # A term a worked question names (CAGR, 复合增长率, 均值) names its operation, not a metric
    # the reports must give, when the words model's weights for the term's own words lean to
    # that operation by at least ``operation_term_lean`` above their mean over the operations.
    # 1.0, set from the shipped model: 复合增长率 3.2 and CAGR 2.0 toward cagr, 均值 2.2 toward
    # average, 比值 1.0 toward divide; 毛利率 0.5 and 存货 0 (it has no weights) toward none.
    operation_term_lean: float = 1.0
    # A question about a figure ("图3显示的趋势", "哪一年增速最高") prefers the description's
    # sentence stating the trend or naming the year asked over the axis and legend sentences,
    # by ``figure_bonus`` (a share of the largest idf, as the other bonuses); the figure the
    # question points at ("图3") gets it too (issue 14).
    figure_sentences: bool = True
    figure_bonus: float = 1.0
    # A question pointing at a numbered table the sources hold ("表3显示了什么？", "Table 5") is
    # answered from that table's rows and sentences naming it, not from rows that share the
    # number 3 with it (issue 24).
    table_references: bool = True
    # A sentence about another company, year or metric than the question asks (the citation
    # check's judges, ``text.aspects``) is not quoted while one on the question is (issue 14).
    on_question_only: bool = True

    def __post_init__(self) -> None:
        if not 1 <= self.min_sentences <= self.max_sentences:
            raise ValueError("need 1 <= min_sentences <= max_sentences")
        if not 0.0 <= self.relative_cutoff <= 1.0:
            raise ValueError("relative_cutoff must be between 0 and 1")


@dataclass(frozen=True)
class FollowUpSettings:
    """How a follow-up question is made standalone from the conversation before retrieval
    (issue 13; seed 001's query rewriter)."""

    # Without a model: what the earlier turns named (subject, period, metric, topic) is carried
    # into a follow-up that leans on them (rag_app.understand.followup). Off: each question alone.
    carry_over: bool = True
    # With a provider: the model rewrites the follow-up with the history, within the time limit;
    # any failure falls back to carrying over, and the trace says so.
    model_rewrite: bool = True
    rewrite_timeout_s: float = 8.0
    # Earlier user turns read: a conversation's last six questions hold what a follow-up leans on.
    history_turns: int = 6
    # A follow-up is a short turn: an elliptic one ("那2026年呢？") is at most this long, and a
    # question naming no one longer than this gets the earlier subject only when it points back
    # (它, 该公司) or asks for a metric or a period (English: a quarter of it in words).
    max_ellipsis_chars: int = 24
    # A follow-up asking for a metric when neither it nor the question before names a period
    # ("它的产能呢？") asks for the last year the subject's report covers ("2024年"), not for
    # whichever rows rank first (issue 24: 2023Q1-Q3 rows came back for the sample report).
    latest_period: bool = True
    # A run of words the library holds nothing of exactly is a name or a metric when this share
    # of its character bigrams are one entry's: half, so 华虹 is 华虹集团 and 扣非净利润 (净利,
    # 利润 of four) a profit line, while 研发中心 is no 研发费用 (rag_app.understand.known).
    min_bigram_share: float = 0.5


@dataclass(frozen=True)
class RewriteSettings:
    """Seed 001's query rewrites with a configured model, each off by default (each costs a
    model call before retrieval): their retrievals are fused with the question's own."""

    # Other phrasings of the question (the words reports use), each retrieved.
    multi_query: bool = False
    multi_query_n: int = 3
    # A hypothetical passage answering the question, retrieved as the query (HyDE, Gao et al.
    # 2022): closer in wording to a report's sentences than the question is.
    hyde: bool = False
    # A question asking several things split into sub-questions, each retrieved.
    decompose: bool = False
    timeout_s: float = 10.0
