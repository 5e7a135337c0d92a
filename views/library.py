"""文档库 / Library: knowledge bases, uploads with per-file progress and results, the document
table, a chunk preview, deletion with confirmation, and with sign-in the members (the parts:
ui/render_library.py, ui/render_upload.py, ui/library_actions.py, ui/render_members.py)."""

from __future__ import annotations

import streamlit as st

from ui import resources, sample_progress, state
from ui.i18n import t
from ui.render_library import documents_section, kb_section, show_flash
from ui.render_members import members_section
from ui.render_upload import upload_section

lib = resources.library()
state.current_kb(lib)  # one gone meanwhile: the fallback, before its selectbox

st.markdown(f"## 📚 {t('library_title')}")
st.caption(t("library_caption"))
show_flash()

confirm = st.session_state.get("confirm_delete")
kb = kb_section(lib, confirm)

if kb:
    members_section(kb)  # with sign-in only (issue 28)
    # The sample's background import (ui/startup.py): its progress until it is in.
    sample = resources.sample_status()
    if kb == resources.SAMPLE_KB and sample.importing:
        sample_progress.progress_bar(sample)
    elif kb == resources.SAMPLE_KB and sample.state == "failed" and not lib.documents(kb):
        sample_progress.failure(sample)
    upload_section(lib, kb)
    documents_section(lib, kb, confirm)
else:
    st.info(t("no_kb"), icon="📚")
