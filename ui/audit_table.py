"""The Audit page's table and open record: one row per record (the columns shown and exported
as CSV, every stored name worded in the UI's language), its widget key per list of records, the
record opened by ticking its row (kept by its id across filters), and that record drawn as the
Ask page drew its answer: the question as understood, the answer, its citation check, the
flagged sentences, the hits and the timings."""

from __future__ import annotations

import hashlib
import unicodedata
from collections.abc import Iterable, Mapping
from datetime import UTC, date, datetime, time
from typing import Any

import pandas as pd
import streamlit as st

from rag_app.chat.audit import AuditRecord
from rag_app.models import Answer
from ui.i18n import (
    TEXTS,
    model_error_text,
    ms,
    reason_text,
    relevance_text,
    strategy_label,
    t,
    type_label,
)
from ui.render import worded
from ui.render_citations import (
    answer_markdown,
    check_quotes,
    check_summary,
    checked_lines,
    off_question_text,
    quotes_sources,
    render_understood,
)
from ui.render_timings import answerer_label
from ui.sanitize import escape_label, escape_text

PREFIX = "audit"  # the open record's anchors (#audit-check), apart from the Ask page's
MAX_COLUMN_PX = 480  # a wider cell is cut; its whole text is in the open record


def _local(iso: str) -> str:
    try:
        return datetime.fromisoformat(iso).astimezone().strftime("%Y-%m-%d %H:%M:%S")
    except ValueError:
        return iso


def since_iso(since: date | None) -> str | None:
    """The start of the day ``since`` (local time) as the log's UTC ISO time."""
    return datetime.combine(since, time.min).astimezone(UTC).isoformat() if since else None


# words for the names the log stores ---------------------------------------------------------
def _worded(prefix: str, name: str) -> str:
    key = prefix + name
    return t(key) if key in TEXTS else name


def mode_label(mode: str) -> str:
    return _worded("mode_", mode)  # the Ask page's sidebar labels


def stage_label(stage: str) -> str:
    """A timing's stage (``retrieve_ms``) as the Ask page's timings line names it."""
    return t("t_" + stage) if "t_" + stage in TEXTS else _worded("audit_t_", stage)


def timings_line(timings: Mapping[str, float]) -> str:
    """``理解 1 ms · 检索 98 ms · … · 总计 208 ms`` in the pipeline's order."""
    return " · ".join(f"{stage_label(stage)} {ms(value)}" for stage, value in timings.items())


# the table ----------------------------------------------------------------------------------
def feedback_text(record: AuditRecord) -> str:
    """A reader's verdict on the answer: 👍 / 👎 and the note; "" when none."""
    if record.feedback is None:
        return ""
    thumb = "👍" if record.feedback.rating > 0 else "👎"
    return f"{thumb} {record.feedback.note}".strip()


def rows(records: list[AuditRecord]) -> pd.DataFrame:
    """One row per record, in the columns the table shows and the CSV holds."""
    return pd.DataFrame(
        [
            {
                t("audit_col_time"): _local(r.time),
                t("audit_col_user"): r.user,
                t("audit_col_kb"): r.kb,
                t("audit_col_client"): _worded("audit_client_", r.client),
                t("audit_col_mode"): mode_label(r.mode),
                t("audit_col_question"): r.question,
                t("audit_col_standalone"): r.standalone_question
                if r.standalone_question != r.question
                else "",
                t("audit_col_hits"): len(r.hits),
                t("audit_col_tokens"): r.prompt_tokens,
                t("audit_col_answerer"): answerer_label(r.answerer, r.fallback_from),
                t("audit_col_ms"): round(r.timings.get("total_ms", 0.0)),
                t("audit_col_flagged"): r.doubtful,
                t("audit_col_feedback"): feedback_text(r),
                t("audit_col_error"): model_error_text(r.error, r.error_kind),
            }
            for r in records
        ]
    )


def _text_px(text: str) -> float:
    # The grid's 14 px font: a CJK character is about a square, a Latin one about half.
    return sum(14.0 if unicodedata.east_asian_width(c) in "WF" else 7.6 for c in text)


def _column_px(header: str, values: Iterable[Any]) -> int:
    longest = max([_text_px(header) + 24, *(_text_px(str(v)) for v in values)])
    return int(min(MAX_COLUMN_PX, max(56, longest + 28)))


def column_config(table: pd.DataFrame) -> dict[str, Any]:
    """Each column as wide as its longest cell (the grid sizes columns by their first rows
    only: a follow-up's 理解为 further down was cut), at most ``MAX_COLUMN_PX``; the long text
    columns say where their whole text is."""
    full = {
        t("audit_col_question"),
        t("audit_col_standalone"),
        t("audit_col_feedback"),
        t("audit_col_error"),
    }
    helps = {name: t("audit_full_text_help") for name in full}
    helps[t("audit_col_flagged")] = t("audit_flagged_help")
    return {
        name: st.column_config.Column(
            width=_column_px(str(name), table[name]), help=helps.get(str(name))
        )
        for name in table.columns
    }


def csv_bytes(table: pd.DataFrame) -> bytes:
    # utf-8-sig: Excel opens the Chinese columns right only with the byte-order mark
    return table.to_csv(index=False).encode("utf-8-sig")


def table_key(records: list[AuditRecord]) -> str:
    """The records table's widget key: one per list of records shown. A keyed table keeps its
    selection as row positions whatever rows it holds next: under a new filter the ticked
    position was another record, or past the list's end (an IndexError). A new list is a new
    table, ticked again by the open record's id (``opened``)."""
    ids = ",".join(str(r.id) for r in records)
    return "audit_table_" + hashlib.blake2b(ids.encode(), digest_size=8).hexdigest()


def ticked(records: list[AuditRecord]) -> dict[str, Any] | None:
    """The table's first selection: the open record's row, when this list holds it."""
    wanted = st.session_state.get("audit_open")
    rows = [n for n, r in enumerate(records) if r.id == wanted]
    return {"selection": {"rows": rows}} if rows else None


def opened(records: list[AuditRecord], chosen: list[int]) -> AuditRecord | None:
    """The record ticked in the table, remembered by its id: a filter that hides it keeps it,
    to be ticked again when a filter shows it; unticked, it is closed."""
    if chosen:
        st.session_state["audit_open"] = records[chosen[0]].id
        return records[chosen[0]]
    if ticked(records):  # in this list, so ticked in the last run: unticked since
        st.session_state["audit_open"] = None
    return None


# the open record ----------------------------------------------------------------------------
def render_record(record: AuditRecord) -> None:
    """The open record: its question and how it was understood, the provider's error, the
    answer with its citation check and flagged sentences, its hits and timings. A record
    written before the answer was kept shows what it has."""
    answer = record.restored_answer()
    with st.container(border=True, key="audit_record"):
        st.markdown(f"**{escape_label(record.question)}**")
        _render_understood(record, answer)
        if record.feedback is not None:
            who = record.feedback.user or "local"
            st.info(t("audit_feedback_by", who=who, text=escape_label(feedback_text(record))))
        if record.error:
            text = model_error_text(record.error, record.error_kind)
            if record.fallback_from:
                text += " · " + t("audit_answered_offline", answerer=t("answerer_offline_name"))
            st.warning(escape_label(text), icon="⚠️")
        if record.answer.strip():
            st.markdown(f"**{t('audit_answer')}**")
            if record.finding and not quotes_sources(answer):
                st.info(record.finding, icon="🔎")
            with st.container(key=f"answer_{PREFIX}"):
                st.markdown(
                    answer_markdown(
                        answer.text, answer.citations, PREFIX, literal=quotes_sources(answer)
                    )
                )
        _render_check(answer)
        _render_doubtful(record, answer)
        _render_hits(record)
        st.caption("⏱ " + timings_line(record.timings))


def _render_understood(record: AuditRecord, answer: Answer) -> None:
    understood = answer.understood
    if understood is not None and (understood.rewritten or understood.note):
        render_understood(worded(answer))  # a failed rewrite's note in the UI's language
    elif record.standalone_question != record.question:  # a record without how it was made
        st.caption("🔁 " + t("understood_as", question=escape_label(record.standalone_question)))


def _render_check(answer: Answer) -> None:
    """Each checked line with its verdict (supported, about the question), open, as the Ask
    page's citation check shows it when opened."""
    report: Any = answer.citations
    if report is None or not report.sentences:
        return
    lines = checked_lines(answer)
    summary = check_summary(answer, lines)[1]
    st.markdown(
        f'<span class="rag-anchor" id="{PREFIX}-check"></span>'
        f"<b>{escape_text(t('citation_check'))}</b> · {escape_text(summary)}",
        unsafe_allow_html=True,
    )
    if report.dangling:
        st.warning(t("dangling", numbers=", ".join(str(n) for n in report.dangling)))
    with st.container(key=f"{PREFIX}_check"):
        st.markdown(check_quotes(answer, lines), unsafe_allow_html=True)


def _render_doubtful(record: AuditRecord, answer: Answer) -> None:
    """The sentences the table's flagged count counts, each with why."""
    if not record.doubtful:
        return
    st.markdown(f"**{t('audit_doubtful', n=record.doubtful)}**")
    if record.sentences:
        for s in getattr(answer.citations, "sentences", ()):
            if not s.factual or (not s.flagged and s.relevant):
                continue
            why = []
            if s.flagged:
                why.append(
                    t("unsupported_mark", reason=reason_text(s.reasons, s.reason))
                    if s.cited
                    else t("uncited_mark")
                )
            if not s.relevant:
                off = off_question_text(s) or s.off_subject
                why.append(relevance_text("off_question_mark", reason=off))
            st.caption(f"⚠️ {escape_label(s.text)} — {escape_label(' · '.join(why))}")
        return
    for text in record.flagged:  # a record written before the verdicts were kept
        st.caption(f"⚠️ {escape_label(text)} — {escape_label(t('audit_flagged'))}")
    for entry in record.off_question:
        text, _, off = entry.rpartition(": ")
        if text not in record.flagged:
            mark = relevance_text("off_question_mark", reason=off)
            st.caption(f"⚠️ {escape_label(text or entry)} — {escape_label(mark)}")


def _render_hits(record: AuditRecord) -> None:
    if not record.hits:
        return
    numbers = {s.chunk_id: s.number for s in record.sources}
    # a sub-table hit is in the prompt as part of its joined table's source
    numbers |= {part: s.number for s in record.sources for part in s.part_ids}
    st.markdown(f"**{t('audit_hits')}**")
    st.dataframe(
        pd.DataFrame(
            [
                {
                    "#": n,
                    t("audit_col_chunk"): h.chunk_id,
                    t("audit_col_doc"): h.doc_id,
                    t("audit_col_type"): type_label(h.type),
                    t("audit_col_score"): h.score,
                    t("audit_col_strategy"): strategy_label(h.strategy),
                    t("col_in_prompt"): t("source_marker", n=numbers[h.chunk_id])
                    if h.chunk_id in numbers
                    else "",
                }
                for n, h in enumerate(record.hits, 1)
            ]
        ),
        hide_index=True,
        width="stretch",
    )
