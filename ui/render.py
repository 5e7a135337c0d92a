"""Rendering the pipeline's results: the streamed answer, the answer with clickable citations,
source cards, the retrieval trace, the prompt inspector and timings.

Everything shown comes from the ``Answer`` the pipeline returned (the UI computes nothing about
retrieval or support). Document content is escaped or sanitised before it reaches
``unsafe_allow_html``; answers are rendered as Markdown with HTML escaped.

Citations: ``[Source N]`` becomes the Markdown link ``[\\[Source N\\]](#source-N)`` and each source
card holds ``<span id="source-N">`` (RECIPES: clicking opens the card and scrolls to it). Several
answers on one page use a prefix (``t2-source-N``) so anchors stay unique.
"""

from __future__ import annotations

import html
import re
import uuid
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd
import streamlit as st

from rag_app.cite import normalize_markers
from rag_app.index.library import Library
from rag_app.llm import ExtractiveAnswerer
from rag_app.models import Answer, AskOptions, Chunk
from rag_app.pipeline import Pipeline
from rag_app.prompt import Turn
from rag_app.text.latex import latex_to_text
from rag_app.text.tables import cell_value, quoted_values
from ui.i18n import labelled, lang, ms, reason_text, t, type_label
from ui.render_hits import TYPE_ICONS, chunk_title, render_retrieval
from ui.sanitize import escape_label, escape_markdown_text, escape_text, sanitize_table_html

# The key of the container holding the Ask page's newest question and answer (see CSS).
LATEST_TURN = "latest_turn"
_CANONICAL = re.compile(r"\[Source (\d+)\]")
# The relevance check's labels (zh, en); kept here until ui/i18n.py takes them.
_RELEVANCE_TEXTS = {
    "supported_part": ("{supported}/{total} 有来源支持", "{supported}/{total} supported"),
    "on_question_part": ("{on}/{total} 切题", "{on}/{total} about the question"),
    "off_question_mark": ("此句与问题不符：{reason}", "Not about the question: {reason}"),
    "off_company": (
        "关于{about}，问题问的是{asked}",
        "about {about}, the question asks about {asked}",
    ),
    "off_period": ("{about}，问题问的是{asked}", "{about}, the question asks {asked}"),
    "off_metric": ("{about}，问题问的是{asked}", "{about}, the question asks {asked}"),
    "stage_revising": ("自查：补充检索并修订回答…", "Self-check: retrieving what is missing…"),
    "revised": (
        "🔁 自查修订：{n} 处陈述缺少依据或不切题，补充检索后已修订回答",
        "🔁 Self-check: {n} statements lacked evidence or missed the question; revised",
    ),
    "not_revised": (
        "🔁 自查：{n} 处陈述缺少依据或不切题，未采用修订（{note}）",
        "🔁 Self-check: {n} statements lacked evidence or missed the question; not revised ({note})",
    ),
}


def _rt(key: str, **values: object) -> str:
    zh, en = _RELEVANCE_TEXTS[key]
    return (en if lang() == "en" else zh).format(**values)


def off_question_text(sentence: Any) -> str:
    """Why a sentence is not about the question, in the user's language ("" when it is)."""
    reasons = getattr(sentence, "off_reasons", ()) or ()
    if getattr(sentence, "relevant", True) or not reasons:
        return ""
    parts = [_rt(r.key, **dict(r.values)) if r.key in _RELEVANCE_TEXTS else r.key for r in reasons]
    return t("reason_separator").join(parts)


CSS = """
<style>
/* A citation jump lands the card's title in view, not just above the window; a new question
   brought into view lands below the header too. */
.rag-anchor, [data-testid="stChatMessage"] {scroll-margin-top: 4rem;}
/* Holds only a script (scroll_to_question): no box, so no gap between the messages. */
.st-key-scroll_to_question {display: none;}
/* The newest turn is at least about a window tall, so its question can be scrolled to the top
   of the window however short the answer is (and stays there when the answer is redrawn). */
.st-key-latest_turn {min-height: calc(100dvh - 10rem);}
.rag-src {line-height: 1.75; font-size: 0.95rem; white-space: normal; word-break: break-word;}
.rag-src mark, .rag-table td.rag-hit, .rag-table th.rag-hit {background: #fff1b8; padding: 0 2px; border-radius: 3px;}
/* A wide table scrolls inside its card; a long text cell wraps within a column of at most
   18em rather than stretching the table (issue 14), while a figure stays on one line. */
.rag-table {overflow-x: auto; max-width: 100%; margin: 0.25rem 0 0.5rem 0;}
.rag-table table {border-collapse: collapse; font-size: 0.85rem; min-width: 60%; max-width: none;}
.rag-table td, .rag-table th {border: 1px solid rgba(49, 51, 63, 0.18); padding: 4px 8px; text-align: center; vertical-align: top; white-space: normal; overflow-wrap: anywhere; word-break: normal; min-width: 4.5em; max-width: 18em;}
.rag-table td:first-child {text-align: left;}
.rag-table tr:first-child td, .rag-table th {background: rgba(49, 51, 63, 0.05); font-weight: 600;}
.rag-meta {color: rgba(49, 51, 63, 0.6); font-size: 0.82rem; margin-bottom: 0.35rem;}
.rag-quote {border-left: 3px solid #d9d9d9; padding-left: 0.6rem; margin: 0.2rem 0; font-size: 0.88rem;}
.rag-bad {border-left-color: #f5a623;}
/* Models write Markdown headings; inside an answer they should not outshout the page title. */
[class*="st-key-answer_"] h1, [class*="st-key-answer_"] h2 {font-size: 1.3rem !important; padding: 0.6rem 0 0.3rem 0 !important;}
[class*="st-key-answer_"] h3, [class*="st-key-answer_"] h4 {font-size: 1.1rem !important; padding: 0.5rem 0 0.2rem 0 !important;}
</style>
"""


def inject_css() -> None:
    st.markdown(CSS, unsafe_allow_html=True)


# With the chat input in st.bottom the view no longer follows the page's end (that following is
# what pushed a section just opened out of the window), so a new question, drawn at the end,
# is brought to the top of the window once. A constant script: nothing user-written goes in.
# `run` differs per question, so a re-mount of the same element does not scroll again.
_SCROLL_TO_QUESTION = """<script>
(() => {
  const run = "%s";
  if (window.__ragScrolledFor === run) return;
  window.__ragScrolledFor = run;
  const avatars = document.querySelectorAll('[data-testid="stChatMessageAvatarUser"]');
  const message = avatars[avatars.length - 1]?.closest('[data-testid="stChatMessage"]');
  message?.scrollIntoView({block: "start", behavior: "smooth"});
})();
</script>"""


def scroll_to_question() -> None:
    """Scroll the newest question to the top of the window (call right after drawing it)."""
    with st.container(key="scroll_to_question"):
        st.html(_SCROLL_TO_QUESTION % uuid.uuid4().hex, unsafe_allow_javascript=True)


# small formatting helpers ------------------------------------------------------------------
def anchor_id(prefix: str, number: int) -> str:
    return f"{prefix}-source-{number}" if prefix else f"source-{number}"


def page_label(chunk: Chunk) -> str:
    """1-based pages for display (``page_idx`` 0 is page 1)."""
    if not chunk.pages:
        return ""
    first, last = min(chunk.pages) + 1, max(chunk.pages) + 1
    return t("page", page=first if first == last else f"{first}–{last}")


def _sources(answer: Answer) -> tuple[Any, ...]:
    return answer.prompt.sources if answer.prompt is not None else ()


# answer text ---------------------------------------------------------------------------------
def _title_attr(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', "'").replace("\n", " ")


def quotes_sources(answer: Answer) -> bool:
    """Whether the answer's sentences are the sources' own words (the offline extractive
    answerer quotes them verbatim): document text, to be shown as written, not read as
    Markdown (``__init__`` is a name, not bold)."""
    return answer.answerer == ExtractiveAnswerer.name


def answer_markdown(
    text: str, report: Any, prefix: str = "", max_number: int = 0, literal: bool = False
) -> str:
    """The answer as Markdown: HTML escaped, ``$`` escaped, every ``[Source N]`` with
    ``N <= max_number`` (the prompt's last source) a link to its card, and each flagged
    sentence followed by a ⚠️ whose tooltip (a link title) gives the reason and whose link
    leads to the citation check. ``literal`` (an answer quoting documents) escapes every
    Markdown character except the citations' own links."""
    flags: dict[int, str] = {}
    for sentence in getattr(report, "sentences", ()) or ():
        off = off_question_text(sentence) if getattr(sentence, "factual", True) else ""
        if getattr(sentence, "flagged", False) or off:
            if getattr(sentence, "flagged", False):
                reason = (
                    t("uncited_mark")
                    if not sentence.cited
                    else t(
                        "unsupported_mark", reason=reason_text(sentence.reasons, sentence.reason)
                    )
                )
            else:
                reason = _rt("off_question_mark", reason=off)
            if text[: sentence.end].rstrip().endswith("|"):
                continue  # a Markdown table row: a mark after it would break the table
            flags[sentence.end] = reason

    pieces: list[str] = []
    position = 0
    for end in sorted(flags):
        pieces.append(_link_piece(text[position:end], prefix, max_number, literal))
        target = f"#{prefix}-check" if prefix else "#citation-check"
        pieces.append(f' [⚠️]({target} "{_title_attr(flags[end])}")')
        position = end
    pieces.append(_link_piece(text[position:], prefix, max_number, literal))
    return "".join(pieces)


def _link_piece(raw: str, prefix: str, max_number: int, literal: bool = False) -> str:
    normal = normalize_markers(raw, max_number=max_number or None)
    if literal:
        # Escaped around the markers, so escaping cannot touch a citation (the odd parts of
        # the split are the markers' numbers).
        parts = _CANONICAL.split(normal)
        return "".join(
            _citation_link(int(part), prefix, max_number) if i % 2 else _literal_lines(part)
            for i, part in enumerate(parts)
        )
    return _CANONICAL.sub(
        lambda match: _citation_link(int(match.group(1)), prefix, max_number),
        escape_markdown_text(normal),
    )


def _citation_link(number: int, prefix: str, max_number: int) -> str:
    if not 1 <= number <= max_number:
        return f"\\[Source {number}\\]"  # dangling: no card to open
    return f"[\\[Source {number}\\]](#{anchor_id(prefix, number)})"


_LIST_MARK = re.compile(r"^([ \t]*[-*+][ \t]+)", re.M)


def _literal_lines(text: str) -> str:
    """Quoted text escaped for Markdown, keeping the answer's own bullets (``- `` at the start
    of a line) as list items."""
    pieces = _LIST_MARK.split(text)  # odd parts are the bullets
    return "".join(p if i % 2 else escape_label(p) for i, p in enumerate(pieces))


def render_understood(answer: Answer) -> None:
    """The standalone question a follow-up was taken as, and how it was made."""
    understood = answer.understood
    if understood is None or not (understood.rewritten or understood.note):
        return
    how = t(f"understood_{understood.how or 'asked'}")
    if understood.note:
        how += " · " + t("understood_model_failed", reason=understood.note)
    st.caption(
        "🔁 "
        + t("understood_as", question=escape_label(understood.text))
        + t("understood_by", how=how)
    )


def render_answer_text(answer: Answer, prefix: str = "") -> None:
    render_understood(answer)
    if answer.finding and not quotes_sources(answer):
        # a model was told what the library lacks; the reader sees it whatever the model wrote
        st.info(answer.finding, icon="🔎")
    if answer.text.strip():
        with st.container(key=f"answer_{prefix or 'latest'}"):
            st.markdown(
                answer_markdown(
                    answer.text,
                    answer.citations,
                    prefix,
                    len(_sources(answer)),
                    literal=quotes_sources(answer),
                )
            )
    elif not answer.error:
        st.caption(t("empty_answer"))
    for revision in getattr(answer, "revisions", ()) or ():
        key = "revised" if revision.kept else "not_revised"
        st.caption(_rt(key, n=len(revision.flagged), note=revision.note))
    if answer.error:
        if answer.fallback_from:
            st.warning(t("provider_fallback", error=answer.error), icon="⚠️")
        elif answer.text.strip():
            st.error(t("provider_error", error=answer.error), icon="⚠️")
        else:
            st.error(t("provider_failed", error=answer.error), icon="⚠️")


@dataclass(frozen=True)
class CheckedLine:
    """The factual sentences of one answer line, checked: a table row quoted as ``a: 1; b: 2``
    is checked clause by clause by the core but reads as one statement."""

    text: str
    cited: tuple[int, ...]
    supported: bool
    support: float
    reasons: tuple[str, ...]
    sentences: tuple[str, ...]
    # Whether every sentence of the line is about the question, and why not (the relevance
    # check; True when it did not run).
    relevant: bool = True
    off_question: tuple[str, ...] = ()


def checked_lines(answer: Answer) -> list[CheckedLine]:
    by_line: dict[int, list[Any]] = {}
    for sentence in getattr(answer.citations, "sentences", ()) or ():
        if sentence.factual:
            by_line.setdefault(answer.text.count("\n", 0, sentence.start), []).append(sentence)
    out = []
    for _, sentences in sorted(by_line.items()):
        bad = [s for s in sentences if s.flagged]
        cited = tuple(dict.fromkeys(n for s in sentences for n in s.cited))
        out.append(
            CheckedLine(
                text=" ".join(s.text for s in sentences),
                cited=cited,
                supported=not bad,
                support=min(s.support for s in sentences),
                reasons=tuple(dict.fromkeys(reason_text(s.reasons, s.reason) for s in bad)),
                sentences=tuple(s.text for s in sentences),
                relevant=all(getattr(s, "relevant", True) for s in sentences),
                off_question=tuple(
                    dict.fromkeys(x for s in sentences if (x := off_question_text(s)))
                ),
            )
        )
    return out


def citing_lines(answer: Answer) -> dict[int, list[CheckedLine]]:
    """Per source number, the checked answer lines that cite it."""
    out: dict[int, list[CheckedLine]] = {}
    for line in checked_lines(answer):
        for number in line.cited:
            out.setdefault(number, []).append(line)
    return out


# Emphasis as CommonMark reads it (strong first, then single): a run opens before a non-space
# and closes after one, and an underscore run inside a word (SMIC__2024__Q1, a_b_c; CJK
# characters count as word characters, as in CommonMark) is plain text. A backslash-escaped
# delimiter is text too.
_EMPHASIS = (
    re.compile(r"(?<!\\)\*\*(?=\S)(.+?)(?<=[^\s\\])\*\*"),
    re.compile(r"(?<![\w\\])__(?=\S)(.+?)(?<=[^\s\\])__(?!\w)"),
    re.compile(r"(?<![\\*])\*(?=[^\s*])(.+?)(?<=[^\s\\*])\*(?!\*)"),
    re.compile(r"(?<![\w\\_])_(?=[^\s_])(.+?)(?<=[^\s\\_])_(?![\w_])"),
)
_ESCAPED = re.compile(r"\\([!-/:-@\[-`{-~])")


def markdown_plain(text: str) -> str:
    """A line of Markdown as its reader sees it: emphasis markers and backslash escapes gone,
    every other character kept (``SMIC__2024__Q1``, ``a_b_c``, a lone ``*``)."""
    for pattern in _EMPHASIS:
        text = pattern.sub(r"\1", text)
    return _ESCAPED.sub(r"\1", text)


def _quote(line: CheckedLine, *meta: str, literal: bool = False) -> str:
    """One checked answer line as a quote; ``literal`` when the line is document text."""
    ok = line.supported and line.relevant
    note = "" if line.supported else t("reason_separator").join(line.reasons)
    off = _rt("off_question_mark", reason="; ".join(line.off_question)) if not line.relevant else ""
    details = " · ".join(x for x in (*meta, note, off) if x)
    text = line.text if literal else markdown_plain(line.text)
    return (
        f'<div class="rag-quote{"" if ok else " rag-bad"}">{"✅" if ok else "⚠️"} '
        f"{escape_text(text)}"
        + (f'<div class="rag-meta">{escape_text(details)}</div>' if details else "")
        + "</div>"
    )


def render_citation_check(answer: Answer, prefix: str = "") -> None:
    report: Any = answer.citations  # rag_app.cite.CitationReport (typed object in Answer)
    if report is None:
        return
    anchor = f"{prefix}-check" if prefix else "citation-check"
    lines = checked_lines(answer)
    cited = [line for line in lines if line.cited]
    supported = sum(1 for line in cited if line.supported)
    flagged = [line for line in lines if not line.supported]
    summary = t("citation_summary", supported=supported, total=len(cited))
    icon = "✅" if not flagged and not report.dangling else "⚠️"
    if getattr(report, "relevance_checked", False):
        summary = relevance_summary(cited)
        icon = "✅" if not flagged and not report.dangling and "⚠" not in summary else "⚠️"
    with st.expander(f"{icon} {t('citation_check')} · {summary}", expanded=False):
        st.markdown(f'<span class="rag-anchor" id="{anchor}"></span>', unsafe_allow_html=True)
        if report.dangling:
            st.warning(t("dangling", numbers=", ".join(str(n) for n in report.dangling)))
        literal = quotes_sources(answer)
        quotes = [
            _quote(
                line,
                " ".join(f"[Source {n}]" for n in line.cited),
                f"{line.support:.2f}",
                literal=literal,
            )
            for line in lines
        ]
        st.markdown("".join(quotes), unsafe_allow_html=True)


def relevance_summary(cited: Sequence[CheckedLine]) -> str:
    """ "✅ 3/3 supported · ⚠ 2/3 about the question": support and relevance counted apart."""
    total = len(cited)
    supported = sum(1 for line in cited if line.supported)
    on = sum(1 for line in cited if line.relevant)
    first = _rt("supported_part", supported=supported, total=total)
    second = _rt("on_question_part", on=on, total=total)
    return (
        f"{'✅' if supported == total else '⚠'} {first} · {'✅' if on == total else '⚠'} {second}"
    )


# chunks --------------------------------------------------------------------------------------
_BULLET = re.compile(r"^\s*(?:[-*+•]\s+|\d{1,3}[.)、]\s*)")


def _phrases_for(sentences: Sequence[str]) -> list[str]:
    """Exact quotes worth highlighting: the cited sentences as written, without bullets or a
    trailing ellipsis (the offline answerer quotes sources verbatim)."""
    out = []
    for sentence in sentences:
        phrase = _BULLET.sub("", sentence).strip().rstrip("…").strip()
        if len(phrase) >= 6:
            out.append(phrase)
    return out


def highlight_html(text: str, phrases: Sequence[str]) -> str:
    """``text`` escaped for HTML, with each occurrence of ``phrases`` wrapped in ``<mark>``."""
    spans: list[tuple[int, int]] = []
    for phrase in phrases:
        start = text.find(phrase)
        if start >= 0:
            spans.append((start, start + len(phrase)))
    spans.sort()
    out, position = [], 0
    for start, end in spans:
        if start < position:
            continue
        out.append(escape_text(text[position:start]))
        out.append("<mark>" + escape_text(text[start:end]) + "</mark>")
        position = end
    out.append(escape_text(text[position:]))
    return "".join(out)


_CELL = re.compile(r"<(td|th)((?:\s[^>]*)?)>(.*?)</\1>", re.S)
_TAG = re.compile(r"<[^>]+>")


def highlight_table(table_html: str, sentences: Sequence[str]) -> str:
    """Sanitised table HTML with the cells the cited sentences quote marked: cells equal to one
    of their numbers, or to a value they give as ``label: value`` (how the offline answerer and
    most models quote a row)."""
    values = quoted_values(sentences)
    safe = sanitize_table_html(table_html)
    if not values:
        return safe

    def mark(match: re.Match[str]) -> str:
        tag, attrs, body = match.groups()
        value = cell_value(html.unescape(_TAG.sub("", body)))
        if value in values:
            return f'<{tag}{attrs} class="rag-hit">{body}</{tag}>'
        return match.group(0)

    return _CELL.sub(mark, safe)


def render_chunk(chunk: Chunk, lib: Library, kb: str, cited: Sequence[str] = ()) -> None:
    """A chunk as a reader sees it: text (escaped, quotes highlighted), a table (sanitised) or
    a figure (the stored image, or its caption when the file is missing)."""
    if chunk.heading_path and chunk.type in ("text", "qa"):
        path = " › ".join(chunk.heading_path)
        st.markdown(f'<div class="rag-meta">{escape_text(path)}</div>', unsafe_allow_html=True)
    if chunk.type == "table" and chunk.table_html:
        if chunk.caption:
            caption = escape_text(latex_to_text(chunk.caption))
            st.markdown(f"<div><b>{caption}</b></div>", unsafe_allow_html=True)
        body = highlight_table(latex_to_text(chunk.table_html), cited)
        st.markdown(f'<div class="rag-table">{body}</div>', unsafe_allow_html=True)
        if chunk.footnote:
            st.markdown(
                f'<div class="rag-meta">{escape_text(latex_to_text(chunk.footnote))}</div>',
                unsafe_allow_html=True,
            )
        return
    if chunk.type == "image":
        image = lib.asset_path(kb, chunk.doc_id, chunk.image_path)
        if image is not None:
            st.image(str(image), caption=latex_to_text(chunk.caption) or None, width=560)
        else:
            caption = latex_to_text(chunk.caption) or chunk.image_path or "—"
            st.markdown(
                f'<div class="rag-src"><b>🖼️ {escape_text(caption)}</b></div>',
                unsafe_allow_html=True,
            )
            st.caption(t("image_missing"))
        detail = latex_to_text(chunk.description or "")
        if detail:
            st.markdown(
                f'<div class="rag-src">{highlight_html(detail, _phrases_for(cited))}</div>',
                unsafe_allow_html=True,
            )
        if chunk.footnote:
            st.markdown(
                f'<div class="rag-meta">{escape_text(latex_to_text(chunk.footnote))}</div>',
                unsafe_allow_html=True,
            )
        return
    # MinerU's inline math ("$\\geq 1 9 6 ~ \\mathrm{A h}$") shown as the text it stands for.
    st.markdown(
        f'<div class="rag-src">{highlight_html(latex_to_text(chunk.text), _phrases_for(cited))}</div>',
        unsafe_allow_html=True,
    )


# source cards --------------------------------------------------------------------------------
def render_sources(
    answer: Answer, lib: Library, kb: str, doc_names: Mapping[str, str], prefix: str = ""
) -> None:
    sources = _sources(answer)
    if not sources:
        st.caption(t("no_sources"))
        return
    citing = citing_lines(answer)
    for source in sources:
        chunk = source.hit.chunk
        lines = citing.get(source.number, [])
        flagged = any(not line.supported for line in lines)
        parts = [
            f"**[Source {source.number}]**",
            f"{TYPE_ICONS.get(chunk.type, '')} {type_label(chunk.type)}",
            escape_label(doc_names.get(chunk.doc_id, chunk.doc_id)),
        ]
        if page_label(chunk):
            parts.append(page_label(chunk))
        parts.append(escape_label(chunk_title(chunk)))
        label = " · ".join(parts) + (" ⚠️" if flagged else "")
        with st.expander(label, expanded=False):
            st.markdown(
                f'<span class="rag-anchor" id="{anchor_id(prefix, source.number)}"></span>',
                unsafe_allow_html=True,
            )
            notes = []
            if source.status == "cut":
                notes.append("✂️ " + t("source_cut"))
            if len(source.parts) > 1:
                notes.append(t("merged_parts", n=len(source.parts)))
            elif chunk.subtable_count:
                notes.append(t("subtable", i=chunk.subtable_index, n=chunk.subtable_count))
            if chunk.type in ("table", "image") and chunk.heading_path:
                notes.append(labelled("section_path", " › ".join(chunk.heading_path)))
            if notes:
                st.markdown(
                    f'<div class="rag-meta">{escape_text(" · ".join(notes))}</div>',
                    unsafe_allow_html=True,
                )
            if lines:
                st.markdown(
                    f'<div class="rag-meta">{t("cited_by")}</div>'
                    + "".join(_quote(line, literal=quotes_sources(answer)) for line in lines),
                    unsafe_allow_html=True,
                )
            render_chunk(chunk, lib, kb, [s for line in lines for s in line.sentences])


# prompt inspector ----------------------------------------------------------------------------
def render_token_totals(report: Any) -> None:
    """The prompt's token totals as metrics: used (and the limit in the label)."""
    cols = st.columns(5)
    cols[0].metric(t("prompt_tokens"), f"{report.prompt_tokens:,}")
    cols[1].metric(
        t("context_limit", limit=f"{report.context_limit:,}"), f"{report.context_tokens:,}"
    )
    cols[2].metric(
        t("history_limit", limit=f"{report.history_limit:,}"), f"{report.history_tokens:,}"
    )
    cols[3].metric(t("answer_reserve"), f"{report.answer_reserve:,}")
    cols[4].metric(
        t("window_total", window=f"{report.context_window:,}"), f"{report.total_tokens:,}"
    )


def section_label(section: Any, chunks: Mapping[str, Chunk]) -> str:
    """A short name for a prompt section: its source number and the chunk's title."""
    if section.kind != "source":
        return section.name
    chunk = chunks.get(section.chunk_id)
    title = chunk_title(chunk, 16) if chunk is not None else section.chunk_id
    return (f"S{section.source} · " if section.source else "✗ ") + title


def sections_frame(report: Any) -> pd.DataFrame:
    status = {"kept": t("status_kept"), "cut": t("status_cut"), "dropped": t("status_dropped")}
    return pd.DataFrame(
        [
            {
                t("col_section"): (f"[Source {s.source}] " if s.source else "") + s.name,
                t("col_kind"): s.kind,
                t("col_tokens"): s.tokens,
                t("col_full"): s.full_tokens,
                t("col_status"): status.get(s.status, s.status),
                t("col_reason"): reason_text((s.why,), s.reason) if s.why else s.reason,
            }
            for s in report.sections
        ]
    )


def render_prompt(answer: Answer) -> None:
    prompt = answer.prompt
    with st.expander(f"🧾 {t('prompt_inspector')}", expanded=False):
        if prompt is None:
            st.caption(t("no_prompt"))
            return
        report = prompt.report
        render_token_totals(report)
        st.markdown(f"**{t('tokens_by_section')}**")
        chunks = {h.chunk.chunk_id: h.chunk for h in answer.hits}
        chunks.update({s.hit.chunk.chunk_id: s.hit.chunk for s in prompt.sources})
        chart = pd.DataFrame(
            [
                {
                    "section": f"{i + 1:02d} " + section_label(s, chunks),
                    t("tokens_sent"): s.tokens,
                    t("tokens_not_sent"): max(0, s.full_tokens - s.tokens),
                }
                for i, s in enumerate(report.sections)
            ]
        )
        st.bar_chart(
            chart,
            x="section",
            y=[t("tokens_sent"), t("tokens_not_sent")],
            horizontal=True,
            stack=True,
            sort=False,
            color=["#3b7dd8", "#e4572e"],
            x_label="",
            y_label="tokens",
            height=max(240, 30 * len(chart) + 60),
        )
        st.dataframe(
            sections_frame(report),
            hide_index=True,
            width="stretch",
            height=min(36 * (len(report.sections) + 1) + 4, 560),
        )
        st.caption(t("counter_note", counter=report.counter))

        st.markdown(f"**{t('messages')}**")
        tabs = st.tabs([f"{i + 1} · {m['role']}" for i, m in enumerate(prompt.messages)])
        for tab, message in zip(tabs, prompt.messages, strict=True):
            with tab:
                content = message["content"]
                tall = content.count("\n") + len(content) // 90 > 18
                st.code(content, language=None, wrap_lines=True, height=420 if tall else "content")


def render_timings(answer: Answer, options: AskOptions | None = None) -> None:
    order = (
        "retrieve_ms",
        "prompt_ms",
        "first_token_ms",
        "generate_ms",
        "cite_ms",
        "self_rag_ms",
        "total_ms",
    )
    values = dict(answer.timings)
    parts = [f"{t('t_' + k)} {ms(values[k])}" for k in order if k in values]
    line = "⏱ " + " · ".join(parts)
    meta = [answer.answerer]
    if options is not None:
        meta += [t("mode_" + options.mode), t("pmode_" + options.prompt_mode)]
    line += "  \n🤖 " + " · ".join(escape_label(m) for m in meta)
    if answer.usage is not None:
        line += " · " + t(
            "usage",
            p=answer.usage.prompt_tokens,
            c=answer.usage.completion_tokens,
            est=t("usage_estimated") if answer.usage.estimated else "",
        )
    st.caption(line)


def answer_doc_names(
    answer: Answer | None, lib: Library, kb: str, known: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The names of the documents an answer's hits and sources come from: as ``known`` gives
    them (the library when the question was asked), else as the library has them now (a
    document imported meanwhile). Kept with the answer, so a document deleted since still shows
    its name on the answer's cards, not its id."""
    if answer is None:
        return {}
    wanted = {h.chunk.doc_id for h in answer.hits}
    wanted |= {s.hit.chunk.doc_id for s in _sources(answer)}
    names = {d.doc_id: d.name for d in lib.documents(kb) if d.doc_id in wanted}
    names.update({d: n for d, n in (known or {}).items() if d in wanted})
    return names


def render_answer(
    answer: Answer,
    lib: Library,
    kb: str,
    options: AskOptions | None = None,
    prefix: str = "",
    details: bool = True,
    doc_names: Mapping[str, str] | None = None,
) -> None:
    """Everything about one answer, in reading order. ``doc_names`` (``answer_doc_names``, kept
    from when the answer was made) name its documents even if one was deleted since."""
    doc_names = {d.doc_id: d.name for d in lib.documents(kb)} | dict(doc_names or {})
    render_answer_text(answer, prefix)
    render_citation_check(answer, prefix)
    sources = _sources(answer)
    st.markdown(
        f"**{t('sources')}** · <span class='rag-meta'>{t('sources_caption', n=len(sources))}"
        "</span>",
        unsafe_allow_html=True,
    )
    render_sources(answer, lib, kb, doc_names, prefix)
    if details:
        render_retrieval(answer, doc_names)
        render_prompt(answer)
    render_timings(answer, options)


# streaming -----------------------------------------------------------------------------------
def stream_answer(
    pipe: Pipeline, question: str, options: AskOptions, history: Sequence[Turn] = ()
) -> tuple[Answer | None, str]:
    """Run the pipeline, showing its stages in an ``st.status`` and the answer as it streams.

    Returns (Answer, "") or (None, failure message) when the pipeline raised before answering.
    Provider errors do not raise: the Answer keeps the streamed text and carries the error.
    """
    status = st.status(t("stage_retrieving"), expanded=False)
    holder: dict[str, Any] = {}
    # Quoted document text streams as written too (escaping is per character, so per piece).
    literal = pipe.answerer_name == ExtractiveAnswerer.name

    def tokens() -> Iterator[str]:
        for event in pipe.stream(question, options, history):
            if event.kind == "token":
                escaped = literal or holder.get("literal", False)
                yield escape_label(event.text) if escaped else event.text
            elif event.kind == "stage":
                _on_stage(status, event)
                if event.stage == "fallback":
                    # The offline answer quotes document text: stream it escaped, as written.
                    holder["literal"] = True
            elif event.kind == "retry":
                status.warning(t("retrying", text=event.text))
            elif event.kind == "error":
                holder["error"] = event.text
            elif event.kind == "answer":
                holder["answer"] = event.answer

    try:
        st.write_stream(tokens())
    except Exception as exc:  # noqa: BLE001 - shown to the user; nothing half-saved
        status.update(label=t("stage_failed"), state="error")
        return None, str(exc) or type(exc).__name__
    answer: Answer | None = holder.get("answer")
    if answer is None:
        status.update(label=t("stage_failed"), state="error")
        return None, holder.get("error", t("stage_failed"))
    total = answer.timing("total_ms")
    status.update(
        label=t("stage_done", ms=ms(total)), state="error" if answer.error else "complete"
    )
    return answer, ""


def _on_stage(status: Any, event: Any) -> None:
    stage, data = event.stage, event.data
    if stage == "retrieving":
        status.update(label=t("stage_retrieving"))
    elif stage == "retrieved":
        status.write("✓ " + t("stage_retrieved", n=data.get("hits", 0)))
    elif stage == "expanded":
        status.write("✓ " + t("stage_expanded", n=len(data.get("queries", []))))
    elif stage == "checked":
        status.write("🔎 " + escape_label(data.get("note", "")))
    elif stage == "understood":
        status.write("✓ " + t("understood_as", question=escape_label(data.get("question", ""))))
    elif stage == "building_prompt":
        status.update(label=t("stage_building_prompt"))
    elif stage == "prompt_built":
        status.write("✓ " + t("stage_prompt_built", n=data.get("prompt_tokens", 0)))
    elif stage == "generating":
        status.update(label=t("stage_generating"))
    elif stage == "revising":
        status.update(label=_rt("stage_revising"))
