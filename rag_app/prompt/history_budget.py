"""Earlier turns into the prompt: newest first, within the history budget and the window's room.

The newest turn's answer is cut rather than dropped (a follow-up question leans on it); once a
turn does not fit, all older ones are dropped so the dialogue the model sees has no gap.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from rag_app.models import Reason
from rag_app.prompt.format import LABELS
from rag_app.prompt.history import Turn, strip_citations
from rag_app.prompt.sections import TOKENS_PER_MESSAGE, Section, reason_key
from rag_app.protocols import TokenCounter
from rag_app.stage_settings import Language, PromptSettings


@dataclass(frozen=True)
class FittedHistory:
    """The turns kept (oldest first; the newest may have a cut answer) and why each turn was
    kept, cut or dropped."""

    turns: tuple[Turn, ...]
    sections: tuple[Section, ...]  # one per turn, oldest first
    tokens: int  # the kept turns' questions and answers, without the chat formatting
    limit: int  # min(history_budget, room)


def fit_history(
    history: Sequence[Turn],
    room: int,
    *,
    counter: TokenCounter,
    settings: PromptSettings,
    language: Language,
) -> FittedHistory:
    """Choose the earlier turns that fit.

    Takes the ``history`` (oldest first) and the ``room`` in tokens the window leaves after the
    system message, instructions, question and sources. Turns count their question and their
    answer without ``[Source N]`` markers; at most ``max_history_turns`` of the newest are
    considered. Returns the kept turns and one section per turn.
    """
    limit = max(0, min(settings.history_budget, room))
    fitter = _TurnFitter(counter, settings, language, room, limit)
    turns = list(history)
    n_turns = len(turns)
    recent_from = max(0, n_turns - settings.max_history_turns)
    sections = [
        replace(
            fitter.take(
                turns[position],
                f"history turn {position + 1}/{n_turns}",
                old=position < recent_from,
            ),
            label=reason_key("part_history", turn=position + 1, turns=n_turns),
        )
        for position in range(n_turns - 1, -1, -1)
    ]
    fitter.kept.reverse()
    sections.reverse()
    return FittedHistory(tuple(fitter.kept), tuple(sections), fitter.used, limit)


class _TurnFitter:
    """Takes turns newest first and keeps those that fit, with the tokens they use."""

    def __init__(
        self,
        counter: TokenCounter,
        settings: PromptSettings,
        language: Language,
        room: int,
        limit: int,
    ) -> None:
        self.counter = counter
        self.settings = settings
        self.language = language
        self.room = room
        self.limit = limit
        self.kept: list[Turn] = []  # newest first
        self.used = 0  # against the history budget
        self.window_used = 0  # against the window's room: with each message's formatting
        self.stopped = ""  # why older turns are left out, once a turn did not fit whole

    def take(self, turn: Turn, name: str, *, old: bool) -> Section:
        """Decide on one turn (``old``: beyond the ``max_history_turns`` newest)."""
        user, answer = turn.user.strip(), strip_citations(turn.assistant).strip()
        full = self.counter.count(user) + self.counter.count(answer)
        if old:
            n = self.settings.max_history_turns
            why = reason_key("history_old", n=n)
            return _dropped(name, full, f"older than the last {n} turns", why)
        if not user or not answer:
            reason = "incomplete turn (no question or no answer)"
            return _dropped(name, full, reason, reason_key("history_incomplete"))
        if self.stopped:
            reason = f"{self.stopped}; older turns are dropped to keep the dialogue whole"
            return _dropped(name, full, reason, reason_key("history_after_stop"))
        formatting = 2 * TOKENS_PER_MESSAGE
        limit = self.limit
        if self.used + full <= limit and self.window_used + full + formatting <= self.room:
            self._keep(Turn(user, answer), full, full + formatting)
            reason = f"fits: history at {self.used}/{limit} tokens"
            key = reason_key("history_fits", used=self.used, limit=limit)
            return Section("history", name, full, "kept", reason, full, why=key)
        cut = self._cut_newest(user, answer, full, name)
        if cut is not None:
            return cut
        reason = f"needs {full} tokens, {limit - self.used} left of {limit}"
        key = reason_key("history_no_room", full=full, left=limit - self.used, limit=limit)
        self.stopped = "a newer turn did not fit"
        return _dropped(name, full, reason, key)

    def _cut_newest(self, user: str, answer: str, full: int, name: str) -> Section | None:
        """The newest turn is what a follow-up question leans on: keep its question and the
        start of its answer rather than losing it. None when a newer turn is kept or no room."""
        formatting = 2 * TOKENS_PER_MESSAGE
        user_tokens = self.counter.count(user)
        marker = LABELS[self.language].text_cut
        room = min(self.limit, self.room - formatting) - user_tokens - self.counter.count(marker)
        if self.kept or room <= 0:
            return None
        cut_answer = self.counter.truncate(answer, room).rstrip() + marker
        tokens = user_tokens + self.counter.count(cut_answer)
        self._keep(Turn(user, cut_answer), tokens, tokens + formatting)
        reason = f"newest turn, too long ({full} > {self.limit} tokens): answer cut"
        key = reason_key("history_cut", full=full, limit=self.limit)
        self.stopped = "the newest turn was cut to fit"
        return Section("history", name, tokens, "cut", reason, full, why=key)

    def _keep(self, turn: Turn, tokens: int, with_formatting: int) -> None:
        self.kept.append(turn)
        self.used += tokens
        self.window_used += with_formatting


def _dropped(name: str, full: int, reason: str, why: Reason) -> Section:
    return Section("history", name, 0, "dropped", reason, full, why=why)
