"""A saved conversation as Markdown (the Ask page's export): each question, its answer with its
``[Source N]`` markers, and under each answer the sources it cites (document name, page)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from rag_app.cite import normalize_markers
from rag_app.conversations import Conversation
from rag_app.text.latex import latex_to_text

# (Chinese, English)
_LABELS = {
    "sources": ("来源", "Sources"),
    "page": ("第 {page} 页", "p. {page}"),
    "failed": ("未能回答：{error}", "Not answered: {error}"),
    "error": ("出错：{error}", "Error: {error}"),
    "kb": ("知识库", "Knowledge base"),
    "created": ("创建于", "Created"),
    "none": ("（未引用来源）", "(no source cited)"),
}
_MARKER = re.compile(r"\[Source (\d+)\]")


def page_text(pages: Sequence[int], lang: str = "zh") -> str:
    """1-based pages for reading (``page_idx`` 0 is page 1): ``p. 3`` or ``p. 3–4``."""
    if not pages:
        return ""
    first, last = min(pages) + 1, max(pages) + 1
    return _labels(lang)["page"].format(page=first if first == last else f"{first}–{last}")


def _labels(lang: str) -> dict[str, str]:
    return {key: pair[1] if lang == "en" else pair[0] for key, pair in _LABELS.items()}


def to_markdown(conversation: Conversation, lang: str = "zh") -> str:
    """The conversation as Markdown: each question as a heading, its answer with its
    ``[Source N]`` markers, and under it the sources it cites (document name, page)."""
    labels = _labels(lang)
    info = conversation.info
    lines = [
        f"# {info.title}",
        "",
        f"- {labels['kb']}: {info.kb}",
        f"- {labels['created']}: {info.created_at[:19].replace('T', ' ')} UTC",
    ]
    for i, turn in enumerate(conversation.turns, start=1):
        lines += ["", f"## {i}. {' '.join(turn.question.split())}", ""]
        if not turn.answered:
            lines.append(labels["failed"].format(error=turn.failure))
            continue
        # MinerU's math (quoted by an answer, or in a source's title) as the text it prints: an
        # export is read where nothing renders LaTeX.
        answer = latex_to_text(turn.answer.strip())
        text = normalize_markers(answer, max_number=len(turn.sources) or None)
        lines.append(text)
        if turn.error:
            lines += ["", "> " + labels["error"].format(error=turn.error)]
        cited = {int(n) for n in _MARKER.findall(text)}
        listed = [s for s in turn.sources if s.number in cited]
        lines += ["", f"**{labels['sources']}**", ""]
        if not listed:
            lines.append(labels["none"])
        for source in listed:
            where = ", ".join(x for x in (source.doc_name, page_text(source.pages, lang)) if x)
            title = f" — {latex_to_text(source.title)}" if source.title else ""
            lines.append(f"- [Source {source.number}] {where}{title}")
    return "\n".join(lines) + "\n"
