"""The Library page's upload section: the uploader with the core's size limits, one progress
bar per file while they are ingested, and each file's result, with the choice a conflict asks
for (its words: ui/library_text.py; the ingestion itself: ui/ingestion.py). An import empties
the uploader; its results stay until the next import, a deletion or another knowledge base."""

from __future__ import annotations

import math

import streamlit as st
from streamlit.delta_generator import DeltaGenerator
from streamlit.runtime.uploaded_file_manager import UploadedFile

from rag_app.index.library import Library
from rag_app.ingest.loader import SUPPORTED
from rag_app.models import IngestReport, Progress
from ui import ingestion, resources, state
from ui.i18n import t
from ui.library_actions import clear_results, denied, resolve_conflict
from ui.library_text import MB, megabytes, outcome_text, result_lines, stage_text
from ui.permissions import would_deny

UPLOAD_TYPES = [suffix.lstrip(".") for suffix in SUPPORTED]


def upload_section(lib: Library, kb: str) -> None:
    st.markdown(f"#### ⬆️ {t('upload_section')}")
    limits = lib.settings
    picker, button = st.empty(), st.empty()  # emptied once their files are imported
    allowed = state.allows(kb, "editor")  # readers see the documents, editors upload (issue 28)
    files = _uploader(picker, lib, disabled=not allowed)
    if not allowed:
        st.info(would_deny(kb, "upload", "editor"), icon="🔒")
    # Streamlit's own line gives one limit for every file; this one the real limits, in the
    # user's language: only zips may be that large.
    st.caption(
        t(
            "uploader_limits",
            zip=megabytes(limits.max_zip_bytes),
            file=megabytes(limits.max_file_bytes),
        )
    )
    if files and allowed:
        if button.button(
            t("ingest_button_one", kb=kb)
            if len(files) == 1
            else t("ingest_button", n=len(files), kb=kb),
            type="primary",
            icon="📥",
        ):
            if denied(kb, "editor", "upload"):  # revoked since the page was drawn
                st.error(st.session_state.pop("flash")[1])
                return
            _ingest(lib, kb, files)
            # Imported: an empty uploader in its place (under a new key: Streamlit keeps a
            # widget's files under its key and has no call to clear them), no import button.
            # Drawn in this run, so that each file's progress bar stays with its outcome.
            st.session_state["upload_round"] = st.session_state.get("upload_round", 0) + 1
            _uploader(picker, lib)
            button.empty()

    if st.session_state.get("ingest_kb") != kb:
        clear_results()  # another knowledge base chosen (here or on another page)
    results = st.session_state.get("ingest_results") or []
    if results:
        # Documents named as the document list names them (their file's name, not their id).
        names = {doc.doc_id: doc.name for doc in lib.documents(kb)}
        st.markdown(f"**{t('ingest_results')}**")
        for name, reports in results:
            for level, message in result_lines(name, reports, names):
                getattr(st, level)(message)
            conflict_buttons(kb, name, reports, names)


def _uploader(slot: DeltaGenerator, lib: Library, disabled: bool = False) -> list[UploadedFile]:
    """The file uploader, in ``slot``, under this session's current key (new per import).

    Streamlit 1.67 draws the drop zone's button ("Upload") and its line "200MB per file •
    JSON, MD, …" in English whatever our language: st.file_uploader takes no text for them and
    Streamlit has no locale setting. What it does take is ours: the label, the help and the
    per-widget limit. Rewriting its text with CSS or JS would break with its markup, so the
    caption under it says the limits in the user's language."""
    limits = lib.settings
    return slot.file_uploader(
        t("uploader"),
        type=UPLOAD_TYPES,
        accept_multiple_files=True,
        key=f"uploader_{st.session_state.get('upload_round', 0)}",
        help=t("uploader_help"),
        disabled=disabled,
        # Streamlit's own "… per file" then shows the largest file the core accepts (a zip;
        # config.toml's server.maxUploadSize must be at least as large). One limit per widget:
        # it cannot tell a zip from another file before the upload.
        max_upload_size=math.ceil(max(limits.max_zip_bytes, limits.max_file_bytes) / MB),
    )


def _ingest(lib: Library, kb: str, files: list[UploadedFile]) -> None:
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
    for bar, (name, reports) in zip(rows, results, strict=False):  # none after an error
        bar.progress(1.0, text=outcome_text(name, reports))
    st.session_state["ingest_results"] = results
    st.session_state["ingest_kb"] = kb
    # A file asked about keeps its bytes in this session until the user chooses.
    sent = dict(payload)
    st.session_state["ingest_held"] = {
        name: sent[name]
        for name, reports in results
        if any(r.status == "conflict" for r in reports)
    }


def conflict_buttons(
    kb: str, name: str, reports: list[IngestReport], names: dict[str, str]
) -> None:
    conflict = next((r for r in reports if r.status == "conflict"), None)
    if conflict is None or name not in (st.session_state.get("ingest_held") or {}):
        return
    a, b, _ = st.columns([1.4, 1.4, 3])
    a.button(
        t("conflict_replace", doc=names.get(conflict.doc_id, conflict.doc_id)),
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
