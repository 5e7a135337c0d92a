"""The budget's record: one ``Section`` per part of the prompt, with what the budget did with it.

Every decision is recorded with its token count, its status (kept / cut / dropped) and the
reason, in words and as a key the UI words in its own language, so a prompt can be explained
after the fact.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from rag_app.models import Reason

Status = Literal["kept", "cut", "dropped"]
SectionKind = Literal[
    "system",
    "instructions",
    "source",
    "context_framing",
    "history",
    "question",
    "formatting",
    "reserve",
]

# Chat formatting cost per message and for priming the reply, as OpenAI's cookbook counts it
# for cl100k chat models ("How to count tokens with tiktoken": 3 per message + 1 for the role,
# 3 for the reply). Only used to keep the whole prompt inside ``context_window``.
TOKENS_PER_MESSAGE = 4
REPLY_PRIMING = 3


@dataclass(frozen=True)
class Section:
    """One part of the prompt and what the budget did with it.

    ``tokens`` is what it takes in the prompt as sent (0 when dropped); ``full_tokens`` what it
    would have taken whole. ``source`` is its ``[Source N]`` number when it made it in.
    """

    kind: SectionKind
    name: str
    tokens: int
    status: Status
    reason: str
    full_tokens: int = 0
    chunk_id: str = ""
    source: int | None = None
    why: Reason | None = None  # ``reason`` as a key and values, for the UI's languages
    # ``name`` as a key and values (a source's type and title, a history turn's number), for the
    # UI's languages; None where ``kind`` alone names it
    label: Reason | None = None


def reason_key(key: str, **values: object) -> Reason:
    """Take the key of a reason (as ``ui/i18n.py`` words it) and the values its wording fills
    in; return them as a ``Reason``, each value turned to text."""
    return Reason(key, tuple((k, str(v)) for k, v in values.items()))


def whole_section(kind: SectionKind, name: str, tokens: int, reason: str, why: Reason) -> Section:
    """Take a part that is always sent whole (system message, instructions, framing, reserve)
    with its ``tokens``; return its ``kept`` section, whose full size is the size sent."""
    return Section(kind, name, tokens, "kept", reason, tokens, why=why)
