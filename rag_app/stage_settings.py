"""Each stage's own knobs, one frozen object per stage, nested in ``config.Settings``: retrieval
(``StrategyOptions``, with smart mode's ``RoutingCues``), the prompt (``PromptSettings``), the
citation check (``CiteSettings``) and the offline answerer (``OfflineSettings``). Every field says
where its value comes from. A foundation like ``config``: it imports only the word lists of
``rag_app.text``, so building a ``Settings`` loads no stage.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from rag_app.text.language import Language
from rag_app.text.lexicon import keyed_groups

__all__ = [
    "DEFAULT_CITE_SETTINGS",
    "DEFAULT_PROMPT_SETTINGS",
    "EXPLICIT_CUES",
    "IMPLICIT_CUES",
    "MODES",
    "CiteSettings",
    "Language",
    "LanguageChoice",
    "Mode",
    "OfflineSettings",
    "PromptSettings",
    "RoutingCues",
    "StrategyOptions",
]

# -- retrieval ---------------------------------------------------------------------------------

_CUES = keyed_groups("routing_cues.txt")
EXPLICIT_CUES: dict[str, tuple[str, ...]] = {
    kind: _CUES[f"explicit {kind}"] for kind in ("table", "image", "text")
}
IMPLICIT_CUES: dict[str, tuple[str, ...]] = {
    kind: _CUES[f"implicit {kind}"] for kind in ("table", "image", "text")
}


@dataclass(frozen=True)
class RoutingCues:
    """The cue lists in use; extendable from settings."""

    # (type, cues) pairs rather than dicts, so settings holding them stay hashable.
    explicit_cues: tuple[tuple[str, tuple[str, ...]], ...] = tuple(EXPLICIT_CUES.items())
    implicit_cues: tuple[tuple[str, tuple[str, ...]], ...] = tuple(IMPLICIT_CUES.items())

    @property
    def explicit(self) -> dict[str, tuple[str, ...]]:
        """Per content type, the cues that name it outright."""
        return dict(self.explicit_cues)

    @property
    def implicit(self) -> dict[str, tuple[str, ...]]:
        """Per content type, the cues that only lean towards it."""
        return dict(self.implicit_cues)

    def extended(
        self,
        extra_explicit: dict[str, tuple[str, ...]] | None = None,
        extra_implicit: dict[str, tuple[str, ...]] | None = None,
    ) -> RoutingCues:
        explicit = {
            k: v + tuple((extra_explicit or {}).get(k, ())) for k, v in self.explicit.items()
        }
        implicit = {
            k: v + tuple((extra_implicit or {}).get(k, ())) for k, v in self.implicit.items()
        }
        return RoutingCues(tuple(explicit.items()), tuple(implicit.items()))

    def with_pairs(
        self,
        explicit: tuple[tuple[str, str], ...] = (),
        implicit: tuple[tuple[str, str], ...] = (),
    ) -> RoutingCues:
        """These cues plus (type, cue) pairs, as settings give them; unknown types are refused."""
        for kind, cue in (*explicit, *implicit):
            if kind not in self.explicit:
                raise ValueError(
                    f"routing cue {cue!r}: unknown type {kind!r}; use text/table/image"
                )

        def grouped(pairs: tuple[tuple[str, str], ...]) -> dict[str, tuple[str, ...]]:
            out: dict[str, tuple[str, ...]] = {}
            for kind, cue in pairs:
                if cue.strip():
                    out[kind] = (*out.get(kind, ()), cue.strip().lower())
            return out

        return self.extended(grouped(explicit), grouped(implicit))


@dataclass(frozen=True)
class StrategyOptions:
    """Knobs of the strategies; each can be turned off for the ablation."""

    # Candidates each signal contributes before fusion.
    candidates: int = 50
    # From this many chunks on, a type making at least ``overfetch_min_share`` of the library is
    # searched without Chroma's type filter (whose cost grows with the type's chunks: 184 ms at
    # 100k against 0.3 ms unfiltered, docs/SCALE.md) for ``candidates`` / share x
    # ``overfetch_margin`` hits, its own kept; too few of them and the filtered search runs.
    overfetch_from_chunks: int = 20_000
    overfetch_min_share: float = 0.2
    overfetch_margin: float = 2.0
    type_weights: tuple[tuple[str, float], ...] = (
        ("text", 0.4),
        ("table", 0.3),
        ("image", 0.3),
        ("qa", 0.3),
    )
    # Signal weights, measured with `make eval` (dev sets; see docs/EVALUATION.md):
    # keywords carry more than e5-small similarity on both Chinese news and English reports
    # (dense alone: r@5 0.84 / 0.69; bm25 alone 0.93 / 0.74), yet dense still adds what
    # keywords miss on English tables.
    dense_weight: float = 0.3
    bm25_weight: float = 0.7
    structure_weight: float = 0.4
    expansion_weight: float = 0.15
    # Reranking from signals we have (no cross-encoder ships offline): numbers of the query
    # found in the chunk, and verbatim phrases.
    rerank_weight: float = 0.1
    # Phrase evidence: the share of the query's character trigrams (Chinese) and word bigrams
    # (other scripts) found verbatim in the chunk; exact phrasing is what BM25's bag of words
    # cannot see.
    phrase_weight: float = 1.5
    # A table ranks at least this share of the score of the paragraph that introduces it ("The
    # following table shows ...", "盈利预测见下表"): such a paragraph is short and says in words what
    # the table holds, so it often outranks the table it leads to, whose numbers hold the answer.
    # Measured on tatqa pooled: answer_in_context 0.926 -> 0.938 (0.937 at 0.8 and at 1.0);
    # neutral on crud (no tables) and broker. 0 turns it off.
    intro_weight: float = 0.9
    # Smart mode's single-type search: a hit gains this share of its document's best chunk score
    # over every type (the report a question means is often told by its paragraphs). The same
    # lift in hybrid mode measured no gain (tatqa pooled r@5 0.798 -> 0.796), so it is not used
    # there.
    doc_weight_single: float = 0.5
    # How strongly the type weights damp scores: 0 = not at all, 1 = multiply by w/max(w).
    # Off by default: damping tables and figures against text cost r@1 on every dev set
    # (tatqa doc 0.911 -> 0.896); the weights still order the quotas.
    type_weight_strength: float = 0.3
    thresholds: tuple[float, ...] = (0.7, 0.6, 0.5)
    # Seed 004: a layer starts only while the type has fewer than this share of its target.
    layer_targets: tuple[float, ...] = (0.8, 0.7, 0.6)
    # Candidates each type's layered recall aims for, as a multiple of k (at least 10): the
    # layers stop early only once the type has this many, so a strong first layer cannot
    # crowd out what the keyword layer would add.
    recall_factor: float = 3.0
    use_layers: bool = True
    use_structure: bool = True
    use_expansion: bool = True
    use_type_weights: bool = False
    use_quotas: bool = True
    use_rerank: bool = True
    # A question naming two or more reports' subjects ("中芯国际和华虹半导体的毛利率") is
    # retrieved once per named report and the results interleaved (``per_subject_trace``).
    use_subjects: bool = True
    # Smart mode prefers a type at or above this confidence of the learned router
    # (rag_app/retrieve/router.py; 5-fold own / wrong-type routes per set: docs/ROUTING.md).
    smart_threshold: float = 0.7
    # The fitted constants' threshold (another embedder than the router's).
    constants_threshold: float = 0.8
    # Routing constants: weights of (explicit cue, implicit cue, caption match, first-look share,
    # first-look top hit) and per-type bias, fitted by ``fit_routing`` (L2 0.01) on
    # assets/broker_eval/routing_labels.jsonl, pooled and per-document first looks
    # (`python -m rag_app.evaluation.suite --fit-routing`; docs/ROUTING.md; refit when cues change).
    routing_weights: tuple[float, ...] = (1.582, 1.557, 0.994, 0.361, 1.862)
    routing_bias: tuple[tuple[str, float], ...] = (
        ("text", 0.474),
        ("table", -0.105),
        ("image", -0.369),
    )
    # Hits of the first look (the hybrid answer) whose types are routing evidence.
    routing_look: int = 10
    # Smart mode is hybrid plus a preference: a routed question's hybrid ranking and the routed
    # type's own ranking are fused by reciprocal rank (k = smart_rrf_k), the routed list
    # weighted smart_preference x the router's confidence (docs/ROUTING.md, measured per set).
    smart_preference: float = 0.5
    smart_rrf_k: int = 10
    # The learned router (rag_app/retrieve/data/router.json) decides when the question's
    # embedding comes from the model it was trained with; else the constants above.
    learned_router: bool = True
    # Another router file than the one shipped (held-out evaluation: rag_app/evaluation/router_fit.py).
    router_path: str = ""
    cues: RoutingCues = field(default_factory=RoutingCues)

    def weight_of(self, chunk_type: str) -> float:
        """The type's weight in ``type_weights``; 0.3 for a type not listed."""
        return dict(self.type_weights).get(chunk_type, 0.3)


# -- the prompt ----------------------------------------------------------------------------------


Mode = Literal["simple", "advanced", "precise"]
MODES: tuple[Mode, ...] = ("simple", "advanced", "precise")
LanguageChoice = Literal["auto", "zh", "en"]


@dataclass(frozen=True)
class PromptSettings:
    # Sources in the prompt, in cl100k tokens: seed 001's context builder ("默认上下文限制：
    # 3000 Token（可配置）"), about 8 report chunks of 350 tokens.
    context_budget: int = 3000
    # Kept free for the answer and sent as the LLM's max_tokens. Seed 002 reserves 512 for
    # generation; seed 001's answers run 300-1000 tokens (its max_tokens default is 1000).
    answer_reserve: int = 1024
    # Earlier turns, newest first (seed 002's history algorithm), capped so follow-up questions
    # keep their context without crowding out the sources.
    history_budget: int = 800
    # At most this many earlier question/answer pairs are considered at all.
    max_history_turns: int = 6
    # simple / advanced / precise (seed 001's PromptGenerator modes).
    mode: Mode = "advanced"
    # Replaces the mode's role sentence in the system message; the citation and "not found" rules
    # live in the user message, so a custom system prompt cannot drop them.
    system_prompt: str | None = None
    # Table bodies in the prompt: "markdown" pipe tables (about 40% fewer tokens than HTML, so
    # more sources fit; what chat models read best) or "html" as seed 000 sends them.
    table_format: str = "markdown"
    # Question-focused excerpts (``prompt.excerpt``): the ``whole_sources`` best sources are
    # shown whole; a later one shows only its table rows or sentences that share words with the
    # question (at most ``excerpt_units``, each scoring at least ``excerpt_min_share`` of its
    # best), and a source that does not fit whole is excerpted instead of left out. More distinct
    # evidence fits the budget: on tatqa_dev pooled, answer_in_context@3000 0.937 -> 0.941 with
    # 40 hits offered; 3 whole sources lost answers that rows not matching the question held
    # ("What are the components of ...?"), 8 gained nothing over no excerpts (docs/EVALUATION.md).
    # A source after the first that would take more than ``max_whole_share`` of the context
    # budget whole (a quarterly table merged from six parts: 1142 of 3000 tokens) is excerpted
    # too, so it cannot crowd out the second company's 盈利预测 in a two-company question.
    excerpts: bool = True
    whole_sources: int = 5
    max_whole_share: float = 0.25
    excerpt_units: int = 4
    excerpt_min_share: float = 0.5
    # A unit's score counts each question word it holds as 1 and each number only this much:
    # "2019" in the question matches half the rows of an annual table.
    excerpt_number_weight: float = 0.25
    # A table with at most this many data rows is never excerpted: it costs little whole, and
    # "Which component made up the most of personnel expenses?" needs every row.
    whole_table_rows: int = 6
    # What an excerpt unit brings along (``prompt.excerpt``; each has an ablation row in
    # ``make eval``): a matching group heading ("Deferred tax assets:", "流动资产：") brings up
    # to this many rows under it (0: a heading is a row like any other) ...
    group_heading_rows: int = 12
    # ... a kept sentence the sentences that continue it ("The increase was due to ...") ...
    continuation_sentences: int = 2
    # ... a label-less row of values after other rows counts as their total ("total", "合计") ...
    label_less_totals: bool = True
    # ... and when no row shares a word with the question, the rows sharing its year or period.
    period_rows: bool = True
    # The model's whole window (prompt + answer). 8192 is the smallest window among the chat
    # models users configure here (gpt-4 8k; qwen, deepseek and gpt-4o are larger), so the
    # defaults above (3000 + 800 + 1024 + the question) fit with room to spare.
    context_window: int = 8192
    # Prompt language: "auto" follows the question (see ``detect_language``).
    language: LanguageChoice = "auto"
    # "auto" picks Chinese when at least this share of the question's words are CJK characters
    # (each CJK character and each Latin word is one unit): "SMIC 的 capex 计划" is Chinese
    # (3 of 5), "What does 中芯国际 say about capex?" English (4 of 9).
    min_cjk_share: float = 0.5

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, not {self.mode!r}")
        if self.language not in ("auto", "zh", "en"):
            raise ValueError(f"language must be auto, zh or en, not {self.language!r}")
        for name in ("context_budget", "answer_reserve", "context_window"):
            if getattr(self, name) <= 0:
                raise ValueError(f"{name} must be positive")
        if self.history_budget < 0 or self.max_history_turns < 0:
            raise ValueError("history_budget and max_history_turns must not be negative")
        if self.whole_sources < 0 or self.excerpt_units < 1:
            raise ValueError("whole_sources must not be negative and excerpt_units must be >= 1")
        if not 0.0 < self.max_whole_share <= 1.0:
            raise ValueError("max_whole_share must be in (0, 1]")
        if not 0.0 <= self.excerpt_min_share <= 1.0:
            raise ValueError("excerpt_min_share must be between 0 and 1")
        if self.whole_table_rows < 0 or self.group_heading_rows < 0:
            raise ValueError("whole_table_rows and group_heading_rows must be at least 0")
        if self.continuation_sentences < 0:
            raise ValueError("continuation_sentences must be at least 0")
        if not 0.0 <= self.min_cjk_share <= 1.0:
            raise ValueError("min_cjk_share must be between 0 and 1")


DEFAULT_PROMPT_SETTINGS = PromptSettings()


# -- the citation check (how these numbers combine: ``rag_app.cite.check``'s docstring) ---------

# multilingual-e5-small cosines (both sides embedded with the "query: " prompt) sit in narrow
# bands, mapped linearly onto 0-1 and clipped. Measured on hand-made report sentences like those
# of tests/cite/test_cite.py:
#   Chinese-Chinese: unrelated or another fact of the same report 0.83-0.90, paraphrases
#     0.92-0.98, a copy 1.0 -> (0.85, 0.95).
#   English-English: unrelated 0.75-0.82, another fact of the same report 0.79-0.88,
#     paraphrases 0.84-0.93 -> (0.82, 0.94). e5-small separates English paraphrases poorly;
#     their numbers (checked exactly) matter more than the cosine.
#   English sentence, Chinese source (or the reverse): unrelated 0.73-0.82, translations
#     0.81-0.87 -> (0.80, 0.86).
E5_CHINESE_BAND = (0.85, 0.95)
E5_ENGLISH_BAND = (0.82, 0.94)
E5_CROSS_LANGUAGE_BAND = (0.80, 0.86)
# Any other embedder (the hash embedder of the tests) is taken at face value: cosine 0 -> 0.
DEFAULT_BAND = (0.0, 1.0)


@dataclass(frozen=True)
class CiteSettings:
    # A factual sentence is supported when its support reaches this. Half-way: a copied row
    # scores about 0.9-1.0, an unrelated sentence under 0.3 (tests/cite/test_cite.py).
    threshold: float = 0.5
    # The semantic opinion = strong * max(lexical, semantic) + (1 - strong) * min(...): either
    # kind of evidence can carry a sentence (a translation shares no words with its source),
    # but agreement scores higher.
    strong_weight: float = 0.7
    # When every number of the sentence is in the source, this share of the remaining distance
    # to 1 is added: matching figures are the best evidence a research answer can have.
    number_bonus: float = 0.3
    # A number (other than a year) missing from the cited sources caps support at this times
    # the share of the sentence's numbers that were found: 452 -> 542 is a hallucination
    # whatever the wording.
    missing_number_cap: float = 0.25
    # A missing year (1900-2100) often comes from the question ("2023年") rather than the
    # source ("本年"); it multiplies support by this instead.
    missing_year_factor: float = 0.85
    # The semantic side compares the sentence with this many units (sentences or table rows)
    # of each source, those sharing most words and numbers with it.
    units_per_source: int = 2
    # When the cited sources do not support a sentence (or it cites none), this many other
    # sources, best by lexical evidence, are checked to name the one that does.
    alternative_sources: int = 3
    # At most this many texts per embedding call: on 2 busy cores e5-small takes ~17 ms per
    # short text with one thread, so an answer whose every sentence needs a second opinion
    # stays near a second; beyond it, sentences keep their words-and-numbers score.
    max_embedded_texts: int = 48
    # (low, high) cosine bands for the embedder: (Chinese pairs, English pairs, across
    # languages), or None to pick by its name (the E5 bands for e5 models, DEFAULT_BAND
    # otherwise).
    semantic_bands: tuple[tuple[float, float], ...] | None = None
    # A sentence with fewer content words than this and no number is a connective
    # ("综上所述：", "In summary,") and is not checked.
    min_content_words: int = 2
    # The relevance check (``rag_app.cite.relevance``): a cited sentence about another company,
    # period or metric than the question's is marked off-question even when it quotes its
    # source exactly. Measured on offline broker answers: no sentence giving an answerable
    # question's answer is flagged (0/113); with the decline off, 43/44 unanswerable flagged.
    relevance: bool = True

    def __post_init__(self) -> None:
        if not 0.0 <= self.threshold <= 1.0:
            raise ValueError("threshold must be between 0 and 1")
        if self.semantic_bands is not None and len(self.semantic_bands) != 3:
            raise ValueError("semantic_bands must be three bands: Chinese, English, cross-language")
        for band in self.semantic_bands or ():
            if not band[0] < band[1]:
                raise ValueError("each semantic band must be (low, high) with low < high")
        if self.units_per_source < 1 or self.alternative_sources < 0:
            raise ValueError("units_per_source must be >= 1 and alternative_sources >= 0")


DEFAULT_CITE_SETTINGS = CiteSettings()


# -- the offline answerer ------------------------------------------------------------------------


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
    # A question naming a year and a table row ("2026年的市盈率") is answered with the value
    # first, with its unit, period and subject ("中芯国际 2026E 市盈率：106.2 倍 [Source 3]");
    # the rows quoted after it are the ones whose label the question names (issue 14).
    value_lines: bool = True
    # A question about a figure ("图3显示的趋势", "哪一年增速最高") prefers the description's
    # sentence stating the trend or naming the year asked over the axis and legend sentences,
    # by ``figure_bonus`` (a share of the largest idf, as the other bonuses); the figure the
    # question points at ("图3") gets it too (issue 14).
    figure_sentences: bool = True
    figure_bonus: float = 1.0
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
