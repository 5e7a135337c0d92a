"""The Library page's knowledge bases and documents: choosing, creating and deleting a
knowledge base, the document table, a document's chunks previewed page by page, and the box
that confirms a deletion (the actions: ui/library_actions.py; uploads: ui/render_upload.py;
the facts its tables hold: ui/render_facts.py)."""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd
import streamlit as st

from rag_app.index.library import Library
from rag_app.index.profile import DocumentProfile, Entity, Metric, period_range
from rag_app.pipeline.series import library_metrics, library_series
from rag_app.understand.analysis import analyse_query
from ui import state
from ui.i18n import t, type_label
from ui.library_actions import ask_confirm, cancel_confirm, create_kb, delete_doc, delete_kb
from ui.library_text import date_text, format_label, size_text
from ui.permissions import would_deny
from ui.render_facts import render_facts
from ui.render_hits import TYPE_ICONS, fitted_columns
from ui.render_series import render_series
from ui.render_sources import page_label, render_chunk
from ui.sanitize import escape_label

PREVIEW_PAGE_SIZE = 10
# (kind, target) of the deletion waiting for its confirmation: ("kb", name) or ("doc", id).
Confirm = tuple[str, str] | None


def show_flash() -> None:
    """The line an action left for this run (ui/library_actions.py), shown once."""
    flash = st.session_state.pop("flash", None)
    if flash:
        getattr(st, flash[0])(flash[1])


def confirm_box(message: str, on_confirm: Callable[..., None], args: tuple) -> None:  # type: ignore[type-arg]
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


def kb_section(lib: Library, confirm: Confirm) -> str | None:
    """The knowledge-base box; returns the knowledge base chosen (after this run's choice)."""
    with st.container(border=True):
        st.markdown(f"**{t('kb_section')}**")
        left, middle, right = st.columns([3, 3, 1.4], vertical_alignment="bottom")
        kbs = state.visible_kbs(lib)
        with left:
            if kbs:
                state.bound(st.selectbox, t("kb_current"), "kb", where="library", options=kbs)
        with middle:
            st.text_input(t("kb_new"), key="new_kb_name", placeholder=t("kb_new_placeholder"))
        visitor = state.access().enforced and not state.principal().name
        with right:
            st.button(
                t("kb_create"),
                icon="➕",
                on_click=create_kb,
                width="stretch",
                disabled=visitor,  # signed in to own what they make (issue 28)
                help=t("access_sign_in_to_create") if visitor else None,
            )
        kb = state.current_kb(lib)
        if kb:
            admin = state.allows(kb, "admin")
            docs = lib.documents(kb)
            if confirm == ("kb", kb):
                confirm_box(t("kb_delete_confirm", kb=kb, n=len(docs)), delete_kb, (kb,))
            else:
                st.button(
                    t("kb_delete"),
                    icon="🗑️",
                    type="tertiary",
                    on_click=ask_confirm,
                    args=("kb", kb),
                    disabled=not admin,
                    help=None if admin else would_deny(kb, "delete knowledge base", "admin"),
                )
    return kb


def documents_section(lib: Library, kb: str, confirm: Confirm) -> None:
    docs = lib.documents(kb)
    st.markdown(f"#### 🗂️ {t('docs_section', n=len(docs))}")
    if not docs:
        st.caption(t("no_docs"))
        return
    facts = lib.fact_counts(kb)  # the cells its tables hold (rag_app/facts/stored.py)
    rows = []
    for doc in docs:
        counts = dict(doc.type_counts)
        rows.append(
            {
                t("col_name"): doc.name,
                t("col_format"): format_label(doc.source_format),
                f"{TYPE_ICONS['text']} {type_label('text')}": counts.get("text", 0),
                f"{TYPE_ICONS['table']} {type_label('table')}": counts.get("table", 0),
                f"{TYPE_ICONS['image']} {type_label('image')}": counts.get("image", 0),
                t("col_chunks"): doc.n_chunks,
                t("col_facts"): facts.get(doc.doc_id, 0),
                t("col_pages"): doc.pages,
                t("col_size"): size_text(doc.size_bytes),
                t("col_date"): date_text(doc.ingested_at),
            }
        )
    table = pd.DataFrame(rows)
    st.dataframe(
        table,
        hide_index=True,
        width="stretch",
        column_config=fitted_columns(table, (t("col_name"), t("col_format"), t("col_date"))),
    )
    _preview(lib, kb, {doc.doc_id: doc.name for doc in docs}, confirm)
    # After the preview: a section of expanders drawn above it would move its picker and delete
    # button while a user (or a browser test) reaches for them.
    _profiles(lib.profiles(kb), {doc.doc_id: doc.name for doc in docs})
    _series(lib, kb, {doc.doc_id: doc.name for doc in docs})
    render_facts(lib, kb, {doc.doc_id: doc.name for doc in docs}, facts)  # the cells themselves


def _series(lib: Library, kb: str, names: dict[str, str]) -> None:
    """One metric the library's tables report, over periods and documents: picked from the
    profiles' metrics, drawn as under an answer (table, chart, CSV)."""
    metrics = library_metrics(lib, kb)
    if not metrics:
        return
    st.markdown(f"#### 📈 {t('series_section')}")
    metric = st.selectbox(
        t("series_pick"),
        metrics,
        index=None,
        placeholder=t("choose_placeholder"),
        key=f"series_metric_{kb}",
    )
    if metric:
        series = library_series(lib, kb, analyse_query(metric), asked=True)
        if series is None:
            st.caption(t("series_none"))
        render_series(series, f"library_{kb}_", names)


def _profiles(profiles: dict[str, DocumentProfile], names: dict[str, str]) -> None:
    """Per document, one line of what its profile holds; expanded, the lists themselves."""
    st.markdown(f"#### 🧭 {t('profile_section')}")
    for doc_id, profile in profiles.items():
        line = t(
            "profile_line",
            subject=profile.subject or t("profile_no_subject"),
            entities=len(profile.entities),
            metrics=len(profile.metrics),
            periods=period_range(profile.periods) or t("profile_none"),
            tables=len(profile.tables),
            figures=len(profile.figures),
        )
        with st.expander(f"**{escape_label(names.get(doc_id, doc_id))}** · {escape_label(line)}"):
            entities, metrics = st.columns(2)
            entities.markdown(f"**{t('profile_entities')}**")
            entities.markdown(_listed([_entity_text(e) for e in profile.entities]))
            metrics.markdown(f"**{t('profile_metrics')}**")
            metrics.markdown(_listed([_metric_text(m) for m in profile.metrics]))
            st.markdown(f"**{t('profile_periods')}**")
            st.markdown(_listed([", ".join(profile.periods)] if profile.periods else []))
            st.markdown(f"**{t('profile_exhibits')}**")
            exhibits = [
                " · ".join(
                    part
                    for part in (
                        f"{TYPE_ICONS.get(e.kind, '')} {e.caption or e.label}",
                        t("profile_page", n=e.page + 1) if e.page is not None else "",
                    )
                    if part
                )
                for e in profile.exhibits
            ]
            st.markdown(_listed(exhibits))


def _entity_text(entity: Entity) -> str:
    extra = []
    if entity.tickers:
        extra.append(t("profile_tickers", tickers=", ".join(entity.tickers)))
    if entity.aliases:
        extra.append(t("profile_aliases", aliases=", ".join(entity.aliases)))
    return entity.name + (f" ({'; '.join(extra)})" if extra else "")


def _metric_text(metric: Metric) -> str:
    text = metric.name + (f" ({metric.alias})" if metric.alias else "")
    return text + (f" [{metric.unit}]" if metric.unit else "")


def _listed(lines: list[str]) -> str:
    """Markdown bullets of ``lines``, their Markdown characters escaped (names come from
    uploaded documents)."""
    if not lines:
        return t("profile_none")
    return "\n".join(f"- {escape_label(line)}" for line in lines)


def _preview(lib: Library, kb: str, names: dict[str, str], confirm: Confirm) -> None:
    """One document's chunks, of the types picked, a page at a time; its delete button."""
    st.markdown(f"#### 🔍 {t('preview_section')}")
    if st.session_state.get("preview_doc") not in names:
        st.session_state["preview_doc"] = next(iter(names))
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
    editor = state.allows(kb, "editor")
    st.button(
        t("doc_delete"),
        icon="🗑️",
        type="tertiary",
        on_click=ask_confirm,
        args=("doc", doc_id),
        key="delete_doc",
        disabled=not editor,
        help=None if editor else would_deny(kb, "delete document", "editor"),
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
                meta.append(t("preview_table_part", i=chunk.subtable_index, n=chunk.subtable_count))
            # The chunk's id is for developers: on hover, not in the line users read.
            chunk_id = chunk.chunk_id.replace("`", "")
            st.caption(" · ".join(meta), help=t("preview_chunk_help", id=chunk_id))
            render_chunk(chunk, lib, kb)
