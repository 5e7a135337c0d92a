"""The prompt's knobs (``PromptSettings``): budgets, excerpts, the language."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from rag_app.stage_settings.words import BIGRAM_WEIGHT

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
    # ... and each Chinese character bigram it shares this much (``stage_settings.words``).
    bigram_weight: float = BIGRAM_WEIGHT
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
