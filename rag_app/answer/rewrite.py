"""Seed 001's query rewriter: a configured model makes a follow-up question standalone.

The model sees the conversation's earlier questions and the follow-up and returns one question.
It is given a time limit; whatever it returns is checked (one line, no citation markers, not
much longer than what it rewrites) before it is used. Every failure raises ``RewriteFailed`` with
a reason, for the caller to fall back on carrying the earlier turns over without a model.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence

from rag_app.answer.base import LLM, ChatMessage, GenerationRequest, collect

SYSTEM = (
    "You rewrite the user's last message into one standalone question for searching research "
    "reports. Use the earlier questions only to fill in what the last one leaves out (the "
    "company or report, the metric, the period, the table row). Keep the user's language and "
    "wording; do not answer; reply with the question only, on one line. If the last message "
    "already stands alone, repeat it unchanged."
)


class RewriteFailed(Exception):
    """The model gave no usable rewrite; ``str()`` says why."""


def rewrite_question(
    llm: LLM, question: str, earlier: Sequence[str], timeout_s: float = 8.0
) -> str:
    """``question`` rewritten standalone by ``llm`` from the ``earlier`` user questions (oldest
    first), within ``timeout_s``; raises RewriteFailed."""
    history = "\n".join(f"{n}. {q}" for n, q in enumerate(earlier, 1))
    text = complete(
        llm, SYSTEM, f"Earlier questions:\n{history}\n\nLast message: {question}", timeout_s
    )
    return checked(text, question, earlier)


MULTI_QUERY = (
    "Write {n} different ways to ask the user's question, for searching research reports: use "
    "the terms reports use (synonyms, the Chinese or English name of the metric, the period as "
    "reports write it). Same language as the question. One per line, no numbering, nothing else."
)
HYDE = (
    "Write two or three sentences as a broker report would state the answer to the user's "
    "question, in the question's language. Plausible figures are fine: the text is only used "
    "to search. No preamble."
)
DECOMPOSE = (
    "If the user's question asks several things, split it into standalone sub-questions (each "
    "naming the company, metric and period it needs), one per line. If it asks one thing, "
    "repeat it unchanged on one line. Nothing else."
)


def other_phrasings(llm: LLM, question: str, n: int = 3, timeout_s: float = 10.0) -> list[str]:
    """Up to ``n`` other phrasings of ``question`` (multi-query); raises RewriteFailed."""
    return _lines(complete(llm, MULTI_QUERY.format(n=n), question, timeout_s), question)[:n]


def hypothetical_passage(llm: LLM, question: str, timeout_s: float = 10.0) -> str:
    """A passage answering ``question`` as a report would (HyDE); raises RewriteFailed."""
    text = " ".join(complete(llm, HYDE, question, timeout_s).split())
    if not text:
        raise RewriteFailed("the model returned nothing")
    return text[:600]


def sub_questions(llm: LLM, question: str, timeout_s: float = 10.0) -> list[str]:
    """The sub-questions of a multi-part ``question`` ([] when it asks one thing); raises
    RewriteFailed."""
    parts = _lines(complete(llm, DECOMPOSE, question, timeout_s), "")
    return parts if len(parts) > 1 else []


def _lines(text: str, question: str) -> list[str]:
    out = []
    for line in text.splitlines():
        line = re.sub(r"^\s*(?:[-*•]|\d+[.)、])\s*", "", line).strip().strip("\"'“”")
        if line and line != question and line not in out and len(line) <= 300:
            out.append(line)
    if not out:
        raise RewriteFailed("the model returned no usable line")
    return out[:6]


def complete(llm: LLM, system: str, user: str, timeout_s: float) -> str:
    """``llm``'s whole reply to one system + user message, within ``timeout_s``; raises
    RewriteFailed on a timeout or a failure."""
    request = GenerationRequest.from_messages(
        (ChatMessage("system", system), ChatMessage("user", user))
    )
    result: dict[str, object] = {}

    def run() -> None:
        try:
            result["completion"] = collect(llm.stream(request))
        except Exception as exc:  # noqa: BLE001 - reported as the reason for the fallback
            result["error"] = exc

    worker = threading.Thread(target=run, name="question-rewrite", daemon=True)
    worker.start()
    worker.join(timeout_s)
    if worker.is_alive():
        raise RewriteFailed(f"no reply within {timeout_s:g} s")
    if "error" in result:
        raise RewriteFailed(f"the model failed: {result['error']}")
    completion = result["completion"]
    if getattr(completion, "error", ""):
        raise RewriteFailed(f"the model failed: {completion.error}")  # type: ignore[attr-defined]
    return str(getattr(completion, "text", ""))


def checked(text: str, question: str, earlier: Sequence[str]) -> str:
    """The model's rewrite cleaned of quotes and a "Question:" label; raises RewriteFailed when
    it is empty, runs over lines, cites sources or is far longer than its material."""
    text = text.strip()
    for label in ("Standalone question:", "Question:", "问题：", "改写："):
        if text.lower().startswith(label.lower()):
            text = text[len(label) :].strip()
    text = text.strip("\"'“”「」 ")
    if not text:
        raise RewriteFailed("the model returned nothing")
    if "\n" in text:
        raise RewriteFailed("the model returned more than one line")
    if "[Source" in text or "[来源" in text:
        raise RewriteFailed("the model answered instead of rewriting")
    limit = len(question) + max((len(q) for q in earlier), default=0) + 40
    if len(text) > limit:
        raise RewriteFailed("the model's rewrite is longer than the questions it came from")
    return text
