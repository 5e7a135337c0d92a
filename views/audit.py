"""审计 / Audit: every answered question (seed 002's audit log), filtered by knowledge base, time,
user and words, one record opened with its answer, citation check, hits and timings, and the
list exported as CSV (the table and the open record: ui/audit_table.py)."""

from __future__ import annotations

from datetime import datetime, timedelta

import streamlit as st

from rag_app.chat.feedback_rows import feedback_rows, jsonl_bytes
from ui import resources, state
from ui.audit_table import (
    column_config,
    csv_bytes,
    opened,
    render_record,
    rows,
    since_iso,
    table_key,
    ticked,
)
from ui.i18n import t
from ui.permissions import visible_records

MAX_ROWS = 2000

log = resources.audit_log()
st.markdown(f"## 🧾 {t('audit_title')}")
if log is None:
    st.error(t("audit_unavailable"))
    st.stop()
st.caption(t("audit_caption", days=resources.settings().audit_retention_days))

# Only the records of the knowledge bases the user may see (issue 28), and only those offered.
kbs = state.visible_kbs(resources.library())
a, b, c, d, e = st.columns([2, 2, 2, 3, 2], vertical_alignment="bottom")
kb = a.selectbox(
    t("audit_kb"),
    options=["", *kbs],
    format_func=lambda k: k or t("audit_all"),
    key="audit_kb",
)
since = b.date_input(
    t("audit_since"), value=datetime.now().date() - timedelta(days=7), key="audit_since"
)
user = c.text_input(t("audit_user"), key="audit_user").strip()
words = d.text_input(t("audit_words"), key="audit_words", placeholder=t("audit_words_hint"))
RATINGS = {"": None, "any": 0, "up": 1, "down": -1}
rated = e.selectbox(
    t("audit_feedback"), list(RATINGS), format_func=lambda r: t(f"audit_feedback_{r or 'all'}")
)

records = visible_records(
    log,
    kbs if state.access().enforced else None,
    kb=kb or None,
    since=since_iso(since),
    user=user or None,
    contains=words.strip(),
    limit=MAX_ROWS,
    rated=RATINGS[rated],
)
table = rows(records)
st.caption(t("audit_count", n=len(records)))
if records:
    picked = st.dataframe(
        table,
        hide_index=True,
        width="stretch",
        column_config=column_config(table),
        on_select="rerun",
        selection_mode="single-row",
        selection_default=ticked(records),
        key=table_key(records),
    )
    st.download_button(
        t("audit_export"),
        data=csv_bytes(table),
        file_name=f"audit-{datetime.now():%Y%m%d-%H%M}.csv",
        mime="text/csv",
        icon="⬇️",
    )
    rated_rows = feedback_rows(records, resources.library().chunks)
    if rated_rows:  # the rated answers as questions `rag-app eval` reads
        st.download_button(
            t("audit_eval_rows", n=len(rated_rows)),
            data=jsonl_bytes(rated_rows),
            file_name=f"feedback-{datetime.now():%Y%m%d-%H%M}.jsonl",
            mime="application/json",
            icon="🧪",
        )
    record = opened(records, picked.selection.rows if picked is not None else [])
    if record is not None:
        render_record(record)
else:
    st.info(t("audit_empty"))
