"""A saved conversation as Markdown (the Ask page's export): each question, the question it was
understood as (理解为), its answer with its citation markers, the citation check's summary and
the sentences it flagged, and under each answer the sources it cites (document name, page).

The markers read as the app draws them in the export's language: ``[来源 N]`` in Chinese, as in
the Chinese UI, beside its "来源" list (the model's own ``[Source N]`` is a token for the model
and the citation check, not a word for a Chinese reader); ``[Source N]`` in English."""

from __future__ import annotations

import re
from collections.abc import Sequence

from rag_app.chat.conversations import Conversation, SavedTurn
from rag_app.cite import normalize_markers
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
    "understood": ("理解为：{question}", "Understood as: {question}"),
    "check": ("引用核查", "Citation check"),
    "supported": ("{supported}/{total} 有来源支持", "{supported}/{total} supported"),
    "on_question": ("{on}/{total} 切题", "{on}/{total} about the question"),
    "uncited": ("未引用来源", "no source cited"),
    "unsupported": ("来源不支持", "not supported by its source"),
    "off_question": ("不切题", "not about the question"),
    "dangling": ("引用了不存在的来源：{numbers}", "cites sources that do not exist: {numbers}"),
    "marker": ("[来源 {n}]", "[Source {n}]"),
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
        understood = turn.understood
        if turn.answered and understood is not None and understood.rewritten:
            lines += [f"*{labels['understood'].format(question=understood.text)}*", ""]
        if not turn.answered:
            lines.append(labels["failed"].format(error=turn.failure))
            continue
        # MinerU's math (quoted by an answer, or in a source's title) as the text it prints: an
        # export is read where nothing renders LaTeX.
        answer = latex_to_text(turn.answer.strip())
        text = normalize_markers(answer, max_number=len(turn.sources) or None)
        lines.append(_MARKER.sub(lambda m: labels["marker"].format(n=m.group(1)), text))
        if turn.error:
            lines += ["", "> " + labels["error"].format(error=turn.error)]
        lines += check_lines(turn, labels)
        cited = {int(n) for n in _MARKER.findall(text)}
        listed = [s for s in turn.sources if s.number in cited]
        lines += ["", f"**{labels['sources']}**", ""]
        if not listed:
            lines.append(labels["none"])
        for source in listed:
            where = ", ".join(x for x in (source.doc_name, page_text(source.pages, lang)) if x)
            title = f" — {latex_to_text(source.title)}" if source.title else ""
            lines.append(f"- {labels['marker'].format(n=source.number)} {where}{title}")
    return "\n".join(lines) + "\n"


def check_lines(turn: SavedTurn, labels: dict[str, str]) -> list[str]:
    """The citation check of a turn as Markdown: its summary (cited factual sentences supported
    and, when checked, about the question), then each sentence it flagged and why."""
    factual = [s for s in turn.sentences if s.factual]
    if not factual and not turn.dangling:
        return []
    cited = [s for s in factual if s.cited]
    supported = sum(1 for s in cited if s.supported)
    parts = [labels["supported"].format(supported=supported, total=len(cited))]
    if turn.relevance_checked:
        on = sum(1 for s in cited if s.relevant)
        parts.append(labels["on_question"].format(on=on, total=len(cited)))
    flagged = [s for s in factual if s.flagged or not s.relevant]
    icon = "⚠️" if flagged or turn.dangling else "✅"
    lines = ["", f"**{labels['check']}** {icon} " + " · ".join(parts)]
    if flagged or turn.dangling:
        lines.append("")
    for s in flagged:
        why = [labels["uncited"] if not s.cited else labels["unsupported"]] if s.flagged else []
        if not s.relevant:
            why.append(labels["off_question"] + (f" ({s.off_subject})" if s.off_subject else ""))
        lines.append(f"- ⚠️ {latex_to_text(' '.join(s.text.split()))} — {'; '.join(why)}")
    if turn.dangling:
        numbers = ", ".join(str(n) for n in turn.dangling)
        lines.append("- ⚠️ " + labels["dangling"].format(numbers=numbers))
    return lines
