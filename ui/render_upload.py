"""The Library page's upload section: the uploader with the core's size limits, one progress
bar per file while they are ingested, and each file's result, with the choice a conflict asks
for (its words: ui/library_text.py; the ingestion itself: ui/ingestion.py)."""

from __future__ import annotations

import math

import streamlit as st

from rag_app.index.library import Library
from rag_app.ingest.loader import SUPPORTED
from rag_app.models import IngestReport, Progress
from ui import ingestion, resources
from ui.i18n import t
from ui.library_actions import resolve_conflict
from ui.library_text import MB, megabytes, outcome_text, result_lines, stage_text

UPLOAD_TYPES = [suffix.lstrip(".") for suffix in SUPPORTED]


def upload_section(lib: Library, kb: str) -> None:
    st.markdown(f"#### ⬆️ {t('upload_section')}")
    limits = lib.settings
    files = st.file_uploader(
        t("uploader"),
        type=UPLOAD_TYPES,
        accept_multiple_files=True,
        key="uploader",
        help=t("uploader_help"),
        # Streamlit's own "Limit … per file" then shows the largest file the core accepts
        # (config.toml's server.maxUploadSize must be at least as large).
        max_upload_size=math.ceil(max(limits.max_zip_bytes, limits.max_file_bytes) / MB),
    )
    # ... and this line the real limits: only zips may be that large.
    st.caption(
        t(
            "uploader_limits",
            zip=megabytes(limits.max_zip_bytes),
            file=megabytes(limits.max_file_bytes),
        )
    )
    if files:
        if st.button(
            t("ingest_button_one", kb=kb)
            if len(files) == 1
            else t("ingest_button", n=len(files), kb=kb),
            type="primary",
            icon="📥",
        ):
            _ingest(lib, kb, files)

    results = st.session_state.get("ingest_results") or []
    if results:
        st.markdown(f"**{t('ingest_results')}**")
        for name, reports in results:
            for level, message in result_lines(name, reports):
                getattr(st, level)(message)
            conflict_buttons(kb, name, reports)


def _ingest(lib: Library, kb: str, files: list) -> None:  # type: ignore[type-arg]
    """Ingest the uploaded files with a progress bar each; the results (and the bytes of a
    file a conflict holds back) stay in the session for the page's next runs."""
    resources.wait_for_model()
    rows = [st.progress(0.0, text=f"{u.name} · {t('ingest_waiting')}") for u in files]

    def on_progress(position: int, progress: Progress) -> None:
        text = f"{files[position].name} · {stage_text(progress)}"
        rows[position].progress(ingestion.progress_fraction(progress), text=text)

    payload = [(upload.name, upload.getvalue()) for upload in files]
    try:
        results = ingestion.ingest_files(lib, kb, payload, on_progress)
    except Exception as exc:  # noqa: BLE001
        st.error(t("ingest_error", error=exc))
        results = []
    for bar, (name, reports) in zip(rows, results, strict=True):
        bar.progress(1.0, text=outcome_text(name, reports))
    st.session_state["ingest_results"] = results
    # A file asked about keeps its bytes in this session until the user chooses.
    sent = dict(payload)
    st.session_state["ingest_held"] = {
        name: sent[name]
        for name, reports in results
        if any(r.status == "conflict" for r in reports)
    }


def conflict_buttons(kb: str, name: str, reports: list[IngestReport]) -> None:
    conflict = next((r for r in reports if r.status == "conflict"), None)
    if conflict is None or name not in (st.session_state.get("ingest_held") or {}):
        return
    a, b, _ = st.columns([1.4, 1.4, 3])
    a.button(
        t("conflict_replace", doc=conflict.doc_id),
        key=f"conflict_replace_{name}",
        on_click=resolve_conflict,
        args=(kb, name, "replace"),
        width="stretch",
    )
    b.button(
        t("conflict_keep_both"),
        key=f"conflict_keep_{name}",
        on_click=resolve_conflict,
        args=(kb, name, "keep_both"),
        width="stretch",
    )
