"""文档库 / Library: knowledge bases, uploads with per-file progress and results, the document
table, a chunk preview, and deletion with confirmation."""

from __future__ import annotations

import math
from datetime import datetime

import pandas as pd
import streamlit as st

from rag_app.ingest.loader import SUPPORTED
from rag_app.models import IngestReport, Progress
from ui import ingestion, resources, sample_progress, state
from ui.i18n import t, type_label
from ui.render_hits import TYPE_ICONS
from ui.render_sources import page_label, render_chunk

PREVIEW_PAGE_SIZE = 10
MB = 1024 * 1024
UPLOAD_TYPES = [suffix.lstrip(".") for suffix in SUPPORTED]


def _size(n: int) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024  # type: ignore[assignment]
    return f"{n} B"


def _megabytes(n: int) -> str:
    return f"{n / MB:g} MB"


def _date(iso: str) -> str:
    try:
        return datetime.fromisoformat(iso).astimezone().strftime("%Y-%m-%d %H:%M")
    except ValueError:
        return iso


def _counts(type_counts) -> str:  # type: ignore[no-untyped-def]
    return " · ".join(f"{type_label(k)} {v}" for k, v in type_counts)


def _stage_text(progress: Progress) -> str:
    if progress.stage == "embed":
        return t("ingest_stage_embed", done=progress.done, total=progress.total)
    if progress.stage == "index" and progress.total and progress.done >= progress.total:
        return t("ingest_stage_done")
    return t(f"ingest_stage_{progress.stage}") if progress.stage in ("chunk", "index") else ""


def result_lines(name: str, reports: list[IngestReport]) -> list[tuple[str, str]]:
    """(level, message) per report of one uploaded file; level is success/info/error/warning."""
    lines = []
    for report in reports:
        label = name if "kept beside" in report.message else (report.name or name)
        if report.status == "ingested":
            message = t(
                "ingested", name=label, n=report.n_chunks, counts=_counts(report.type_counts)
            )
            message += "".join(f" · {note}" for note in _notes(report))
            lines.append(("success", message))
        elif report.status == "duplicate":
            key = "duplicate_pair" if "content list is kept" in report.message else "duplicate"
            lines.append(("info", t(key, name=label, doc=report.doc_id)))
        elif report.status == "conflict":
            lines.append(("warning", t("conflict", name=label, doc=report.doc_id)))
        else:
            lines.append(("error", t("rejected", name=label, reason=report.message)))
        for warning in report.warnings:
            lines.append(("warning", t("ingest_warning", name=label, warning=warning)))
    return lines


def _notes(report: IngestReport) -> list[str]:
    """What the library said beyond the count: what was replaced and what changed, or the id a
    file was kept under beside a document of the same name."""
    notes = []
    if "replaced" in report.message:
        notes.append(t("replaced"))
    for part in report.message.split("; ")[1:]:
        if part.startswith("kept beside"):
            notes.append(t("kept_beside", doc=report.doc_id))
        elif ": " in part:
            notes.append(t("changed", what=part.split(": ", 1)[1]))
    return notes


def resolve_conflict(kb: str, name: str, on_conflict: str) -> None:
    """Ingest a file held back by a conflict again, replacing or keeping both as chosen."""
    held = st.session_state.get("ingest_held") or {}
    data = held.pop(name, None)
    results = st.session_state.get("ingest_results") or []
    if data is None:
        st.session_state["flash"] = ("info", t("conflict_gone"))
        return
    (outcome,) = ingestion.ingest_files(
        resources.library(), kb, [(name, data)], on_conflict=on_conflict
    )
    st.session_state["ingest_results"] = [outcome if r[0] == name else r for r in results]


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


def ask_confirm(kind: str, target: str) -> None:
    st.session_state["confirm_delete"] = (kind, target)


def cancel_confirm() -> None:
    st.session_state.pop("confirm_delete", None)


def create_kb() -> None:
    name = (st.session_state.get("new_kb_name") or "").strip()
    if not name:
        return
    lib = resources.library()
    if name in lib.knowledge_bases():
        st.session_state["flash"] = ("info", t("kb_exists", kb=name))
    else:
        try:
            lib.create_kb(name)
        except ValueError as exc:
            st.session_state["flash"] = ("error", str(exc))
            return
        st.session_state["flash"] = ("success", t("kb_created", kb=name))
    state.set_kb(name)
    st.session_state["new_kb_name"] = ""


def delete_kb(kb: str) -> None:
    resources.library().delete_kb(kb)
    st.session_state.pop("confirm_delete", None)
    st.session_state["flash"] = ("success", t("kb_deleted", kb=kb))
    st.session_state["turns"] = [x for x in st.session_state["turns"] if x.options.kb != kb]
    state.set_kb(None)


def delete_doc(kb: str, doc_id: str, name: str) -> None:
    found = resources.library().delete_document(kb, doc_id)
    st.session_state.pop("confirm_delete", None)
    # Another session may have deleted it a moment before: say so rather than claim it.
    st.session_state["flash"] = (
        ("success", t("doc_deleted", name=name)) if found else ("info", t("doc_gone", name=name))
    )
    st.session_state.pop("preview_doc", None)


def confirm_box(message: str, on_confirm, args: tuple) -> None:  # type: ignore[no-untyped-def]
    with st.container(border=True):
        st.warning(message, icon="🗑️")
        a, b, _ = st.columns([1, 1, 4])
        a.button(
            t("confirm"),
            type="primary",
            key="confirm_yes",
            on_click=on_confirm,
            args=args,
            width="stretch",
        )
        b.button(t("cancel"), key="confirm_no", on_click=cancel_confirm, width="stretch")


lib = resources.library()
kb = state.current_kb(lib)

st.markdown(f"## 📚 {t('library_title')}")
st.caption(t("library_caption"))

flash = st.session_state.pop("flash", None)
if flash:
    getattr(st, flash[0])(flash[1])

confirm = st.session_state.get("confirm_delete")

# knowledge bases -----------------------------------------------------------------------------
with st.container(border=True):
    st.markdown(f"**{t('kb_section')}**")
    left, middle, right = st.columns([3, 3, 1.4], vertical_alignment="bottom")
    kbs = lib.knowledge_bases()
    with left:
        if kbs:
            state.bound(st.selectbox, t("kb_current"), "kb", where="library", options=kbs)
    with middle:
        st.text_input(t("kb_new"), key="new_kb_name", placeholder=t("kb_new_placeholder"))
    with right:
        st.button(t("kb_create"), icon="➕", on_click=create_kb, width="stretch")
    kb = state.current_kb(lib)
    if kb:
        docs = lib.documents(kb)
        if confirm == ("kb", kb):
            confirm_box(t("kb_delete_confirm", kb=kb, n=len(docs)), delete_kb, (kb,))
        else:
            st.button(
                t("kb_delete"), icon="🗑️", type="tertiary", on_click=ask_confirm, args=("kb", kb)
            )


def upload_section(kb: str) -> None:
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
            zip=_megabytes(limits.max_zip_bytes),
            file=_megabytes(limits.max_file_bytes),
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
            resources.wait_for_model()
            rows = [st.progress(0.0, text=f"{u.name} · {t('ingest_waiting')}") for u in files]

            def on_progress(position: int, progress: Progress) -> None:
                text = f"{files[position].name} · {_stage_text(progress)}"
                rows[position].progress(ingestion.progress_fraction(progress), text=text)

            payload = [(upload.name, upload.getvalue()) for upload in files]
            try:
                results = ingestion.ingest_files(lib, kb, payload, on_progress)
            except Exception as exc:  # noqa: BLE001
                st.error(t("ingest_error", error=exc))
                results = []
            for bar, (name, reports) in zip(rows, results, strict=True):
                statuses = {r.status for r in reports}
                outcome = "ingest_outcome_" + next(
                    (k for k in ("ingested", "conflict", "duplicate") if k in statuses),
                    "rejected",
                )
                bar.progress(1.0, text=f"{name} · {t(outcome)}")
            st.session_state["ingest_results"] = results
            # A file asked about keeps its bytes in this session until the user chooses.
            sent = dict(payload)
            st.session_state["ingest_held"] = {
                name: sent[name]
                for name, reports in results
                if any(r.status == "conflict" for r in reports)
            }

    results = st.session_state.get("ingest_results") or []
    if results:
        st.markdown(f"**{t('ingest_results')}**")
        for name, reports in results:
            for level, message in result_lines(name, reports):
                getattr(st, level)(message)
            conflict_buttons(kb, name, reports)


def documents_section(kb: str) -> None:
    docs = lib.documents(kb)
    st.markdown(f"#### 🗂️ {t('docs_section', n=len(docs))}")
    if not docs:
        st.caption(t("no_docs"))
        return
    rows = []
    for doc in docs:
        counts = dict(doc.type_counts)
        rows.append(
            {
                t("col_name"): doc.name,
                t("col_format"): doc.source_format,
                f"{TYPE_ICONS['text']} {type_label('text')}": counts.get("text", 0),
                f"{TYPE_ICONS['table']} {type_label('table')}": counts.get("table", 0),
                f"{TYPE_ICONS['image']} {type_label('image')}": counts.get("image", 0),
                t("col_chunks"): doc.n_chunks,
                t("col_pages"): doc.pages,
                t("col_size"): _size(doc.size_bytes),
                t("col_date"): _date(doc.ingested_at),
            }
        )
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")

    st.markdown(f"#### 🔍 {t('preview_section')}")
    names = {doc.doc_id: doc.name for doc in docs}
    if st.session_state.get("preview_doc") not in names:
        st.session_state["preview_doc"] = docs[0].doc_id
    left, right = st.columns([3, 4], vertical_alignment="bottom")
    doc_id = left.selectbox(
        t("preview_doc"),
        options=list(names),
        key="preview_doc",
        format_func=lambda d: names.get(d, d),
    )
    chunks = lib.chunks(kb, doc_id)
    present = [k for k in ("text", "table", "image", "qa") if any(c.type == k for c in chunks)]
    types = right.pills(
        t("preview_types"),
        options=present,
        selection_mode="multi",
        default=present,
        format_func=lambda k: f"{TYPE_ICONS[k]} {type_label(k)}",
        key=f"preview_types_{doc_id}",
    )
    # Under the pickers, like the knowledge base's own delete button: in a third column the
    # English label was cut ("Delete this do…" at 1280 px).
    st.button(
        t("doc_delete"),
        icon="🗑️",
        type="tertiary",
        on_click=ask_confirm,
        args=("doc", doc_id),
        key="delete_doc",
    )
    if confirm == ("doc", doc_id):
        confirm_box(
            t("doc_delete_confirm", name=names[doc_id]), delete_doc, (kb, doc_id, names[doc_id])
        )
    shown = [c for c in chunks if c.type in (types or present)]
    pages = max(1, -(-len(shown) // PREVIEW_PAGE_SIZE))
    a, b = st.columns([1, 3], vertical_alignment="bottom")
    page = a.number_input(
        t("preview_page", n=PREVIEW_PAGE_SIZE),
        min_value=1,
        max_value=pages,
        value=1,
        step=1,
        key=f"preview_page_{doc_id}",
    )
    b.caption(t("preview_count", n=len(shown)))
    start = (int(page) - 1) * PREVIEW_PAGE_SIZE
    for offset, chunk in enumerate(shown[start : start + PREVIEW_PAGE_SIZE]):
        with st.container(border=True):
            meta = [
                f"#{start + offset + 1}",
                f"{TYPE_ICONS.get(chunk.type, '')} {type_label(chunk.type)}",
            ]
            if page_label(chunk):
                meta.append(page_label(chunk))
            if chunk.subtable_count:
                meta.append(t("subtable", i=chunk.subtable_index, n=chunk.subtable_count))
            meta.append(f"`{chunk.chunk_id.replace('`', '')}`")
            st.caption(" · ".join(meta))
            render_chunk(chunk, lib, kb)


if kb:
    # The sample's background import (ui/startup.py): its progress until it is in.
    sample = resources.sample_status()
    if kb == resources.SAMPLE_KB and sample.importing:
        sample_progress.progress_bar(sample)
    elif kb == resources.SAMPLE_KB and sample.state == "failed" and not lib.documents(kb):
        sample_progress.failure(sample)
    upload_section(kb)
    documents_section(kb)
else:
    st.info(t("no_kb"), icon="📚")
