"""The answer as text with clickable citations, and the citation check under it.

``[Source N]`` (the model's marker in either language, kept as written in the stored answer)
becomes the Markdown link ``[\\[来源 N\\]](#source-N)``, worded in the UI's language
(``source_marker``), to the card that holds ``<span id="source-N">`` (``ui.render_sources``);
several answers on one page use a prefix (``t2-source-N``) so anchors stay unique. Answers are
rendered as Markdown with HTML escaped; an answer quoting documents (the offline answerer) is
escaped as written. Whether a sentence is supported or about the question is the core's citation
report; this module only draws it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import streamlit as st

from rag_app.answer import ExtractiveAnswerer
from rag_app.cite import normalize_markers
from rag_app.models import Answer
from ui.i18n import reason_text, relevance_text, t
from ui.render_traced import anchor_id, number_links, traced_of
from ui.sanitize import escape_label, escape_markdown_text, escape_text
from ui.strings_answer import RELEVANCE_TEXTS

_CANONICAL = re.compile(r"\[Source (\d+)\]")


def answer_sources(answer: Answer) -> tuple[Any, ...]:
    """The numbered sources the answer's prompt held (none without a prompt)."""
    return answer.prompt.sources if answer.prompt is not None else ()


def off_question_text(sentence: Any) -> str:
    """Why a sentence is not about the question, in the user's language ("" when it is)."""
    reasons = getattr(sentence, "off_reasons", ()) or ()
    if getattr(sentence, "relevant", True) or not reasons:
        return ""
    parts = [
        relevance_text(r.key, **dict(r.values)) if r.key in RELEVANCE_TEXTS else r.key
        for r in reasons
    ]
    return t("reason_separator").join(parts)


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
                reason = relevance_text("off_question_mark", reason=off)
            if text[: sentence.end].rstrip().endswith("|"):
                continue  # a Markdown table row: a mark after it would break the table
            flags[sentence.end] = reason

    # each traced number a link to its place in its source's card (``ui.render_traced``)
    links = number_links(text, report, prefix, max_number)
    events = sorted([(end, 0) for end in flags] + [(start, 1) for start in links])
    pieces: list[str] = []
    position = 0
    for at, kind in events:
        if at < position:
            continue  # inside a link already drawn
        pieces.append(_link_piece(text[position:at], prefix, max_number, literal))
        if kind == 0:
            target = f"#{prefix}-check" if prefix else "#citation-check"
            pieces.append(f' [⚠️]({target} "{_title_attr(flags[at])}")')
            position = at
        else:
            link = links[at]
            number = text[link.start : link.end]
            label = escape_label(number) if literal else escape_markdown_text(number)
            pieces.append(f'[{label}]({link.href} "{_title_attr(link.title)}")')
            position = link.end
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


def marker(number: int) -> str:
    """``[Source N]`` as the reader sees it: ``[来源 N]`` in the Chinese UI."""
    return t("source_marker", n=number)


def _citation_link(number: int, prefix: str, max_number: int) -> str:
    label = marker(number).replace("[", "\\[").replace("]", "\\]")
    if not 1 <= number <= max_number:
        return label  # dangling: no card to open
    return f"[{label}](#{anchor_id(prefix, number)})"


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
                    len(answer_sources(answer)),
                    literal=quotes_sources(answer),
                )
            )
    elif not answer.error:
        st.caption(t("empty_answer"))
    for revision in getattr(answer, "revisions", ()) or ():
        key = "revised" if revision.kept else "not_revised"
        st.caption(relevance_text(key, n=len(revision.flagged), note=revision.note))
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


def quote_html(line: CheckedLine, *meta: str, literal: bool = False) -> str:
    """One checked answer line as a quote; ``literal`` when the line is document text."""
    ok = line.supported and line.relevant
    note = "" if line.supported else t("reason_separator").join(line.reasons)
    off = (
        relevance_text("off_question_mark", reason="; ".join(line.off_question))
        if not line.relevant
        else ""
    )
    details = " · ".join(x for x in (*meta, note, off) if x)
    text = line.text if literal else markdown_plain(line.text)
    return (
        f'<div class="rag-quote{"" if ok else " rag-bad"}">{"✅" if ok else "⚠️"} '
        f"{escape_text(text)}"
        + (f'<div class="rag-meta">{escape_text(details)}</div>' if details else "")
        + "</div>"
    )


def check_summary(answer: Answer, lines: Sequence[CheckedLine]) -> tuple[str, str]:
    """(icon, summary) of an answer's citation check: "✅", "3/3 supported · 3/3 about the
    question"; ⚠️ when a line is flagged or a cited number names no source."""
    report: Any = answer.citations
    cited = [line for line in lines if line.cited]
    flagged = any(not line.supported for line in lines) or bool(report.dangling)
    if getattr(report, "relevance_checked", False):
        summary = relevance_summary(cited)
        return ("⚠️" if flagged or "⚠" in summary else "✅"), summary
    supported = sum(1 for line in cited if line.supported)
    return ("⚠️" if flagged else "✅"), t("citation_summary", supported=supported, total=len(cited))


def check_quotes(answer: Answer, lines: Sequence[CheckedLine]) -> str:
    """Each checked line with its verdict, its sources and its support, as HTML."""
    literal = quotes_sources(answer)
    return "".join(
        quote_html(
            line,
            " ".join(marker(n) for n in line.cited),
            f"{line.support:.2f}",
            literal=literal,
        )
        for line in lines
    )


def render_citation_check(answer: Answer, prefix: str = "") -> None:
    report: Any = answer.citations  # rag_app.cite.CitationReport (typed object in Answer)
    if report is None:
        return
    anchor = f"{prefix}-check" if prefix else "citation-check"
    lines = checked_lines(answer)
    if not lines and not report.dangling:
        return  # nothing was claimed ("未找到相关信息"): no ✅ 0/0 to show
    icon, summary = check_summary(answer, lines)
    with st.expander(f"{icon} {t('citation_check')} · {summary}", expanded=False):
        st.markdown(f'<span class="rag-anchor" id="{anchor}"></span>', unsafe_allow_html=True)
        if report.dangling:
            st.warning(t("dangling", numbers=", ".join(str(n) for n in report.dangling)))
        traced = sum(1 for n in traced_of(report) if n.places)
        if traced and answer_sources(answer):
            st.caption(t("traced_summary", n=traced))
        st.markdown(check_quotes(answer, lines), unsafe_allow_html=True)


def relevance_summary(cited: Sequence[CheckedLine]) -> str:
    """ "✅ 3/3 supported · ⚠ 2/3 about the question": support and relevance counted apart."""
    total = len(cited)
    supported = sum(1 for line in cited if line.supported)
    on = sum(1 for line in cited if line.relevant)
    first = relevance_text("supported_part", supported=supported, total=total)
    second = relevance_text("on_question_part", on=on, total=total)
    return (
        f"{'✅' if supported == total else '⚠'} {first} · {'✅' if on == total else '⚠'} {second}"
    )
