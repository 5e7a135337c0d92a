"""Earlier turns of a conversation, as the prompt sees them."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

# "[Source 3]" (and runs like "[Source 1][Source 2]") in an earlier answer pointed at that
# turn's sources; the current prompt numbers its sources afresh, so the old markers would
# point at the wrong evidence and invite the model to copy them.
_OLD_CITATION = re.compile(r"\s?\[Source \d+\]")


@dataclass(frozen=True)
class Turn:
    """One earlier exchange: the user's question and the assistant's answer."""

    user: str
    assistant: str = ""


def strip_citations(text: str) -> str:
    return _OLD_CITATION.sub("", text)


def turns_from_messages(messages: Iterable[Mapping[str, str]]) -> list[Turn]:
    """Pair chat messages (``{"role", "content"}``) into turns, oldest first.

    System messages are skipped; a user message without an answer yet becomes a turn with an
    empty answer; an answer without a question is kept with an empty question.
    """
    turns: list[Turn] = []
    pending: str | None = None
    for message in messages:
        role, content = message.get("role", ""), message.get("content", "")
        if role == "user":
            if pending is not None:
                turns.append(Turn(pending))
            pending = content
        elif role == "assistant":
            turns.append(Turn(pending or "", content))
            pending = None
    if pending is not None:
        turns.append(Turn(pending))
    return turns
