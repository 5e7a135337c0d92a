"""The Audit page's table: one row per record (the columns shown and exported as CSV), its
widget key per list of records, the record opened by ticking its row (kept by its id across
filters), and that record's hits and timings."""

from __future__ import annotations

import hashlib
from datetime import UTC, date, datetime, time
from typing import Any

import pandas as pd
import streamlit as st

from rag_app.chat.audit import AuditRecord
from ui.i18n import t


def _local(iso: str) -> str:
    try:
        return datetime.fromisoformat(iso).astimezone().strftime("%Y-%m-%d %H:%M:%S")
    except ValueError:
        return iso


def since_iso(since: date | None) -> str | None:
    """The start of the day ``since`` (local time) as the log's UTC ISO time."""
    return datetime.combine(since, time.min).astimezone(UTC).isoformat() if since else None


def rows(records: list[AuditRecord]) -> pd.DataFrame:
    """One row per record, in the columns the table shows and the CSV holds."""
    return pd.DataFrame(
        [
            {
                t("audit_col_time"): _local(r.time),
                t("audit_col_user"): r.user,
                t("audit_col_kb"): r.kb,
                t("audit_col_client"): r.client,
                t("audit_col_mode"): r.mode,
                t("audit_col_question"): r.question,
                t("audit_col_standalone"): r.standalone_question
                if r.standalone_question != r.question
                else "",
                t("audit_col_hits"): len(r.hits),
                t("audit_col_tokens"): r.prompt_tokens,
                t("audit_col_answerer"): r.answerer
                + (f" ← {r.fallback_from}" if r.fallback_from else ""),
                t("audit_col_ms"): round(r.timings.get("total_ms", 0.0)),
                t("audit_col_flagged"): len(r.flagged),
                t("audit_col_error"): r.error,
            }
            for r in records
        ]
    )


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


def render_record(record: AuditRecord) -> None:
    """The open record: its question, error, hits, timings and flagged sentences."""
    with st.container(border=True):
        st.markdown(f"**{record.question}**")
        if record.error:
            st.warning(f"{record.error_kind}: {record.error}")
        st.dataframe(
            pd.DataFrame(
                [
                    {
                        "#": n,
                        "chunk": h.chunk_id,
                        t("audit_col_doc"): h.doc_id,
                        t("audit_col_type"): h.type,
                        t("audit_col_score"): h.score,
                        t("audit_col_strategy"): h.strategy,
                    }
                    for n, h in enumerate(record.hits, 1)
                ]
            ),
            hide_index=True,
            width="stretch",
        )
        st.caption(" · ".join(f"{k} {v:.0f}" for k, v in record.timings.items()))
        for sentence in record.flagged:
            st.caption(f"⚠️ {t('audit_flagged')}: {sentence}")
