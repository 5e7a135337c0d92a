"""设置 / Settings: the language model provider (the key is never shown back), a connection
test, retrieval parameters, the embedding model in use, and the interface language (the parts:
ui/render_settings.py, ui/settings_actions.py)."""

from __future__ import annotations

import streamlit as st

from ui import resources, state
from ui.i18n import LANGUAGES, t
from ui.render_settings import embedding_section, provider_section
from ui.settings_actions import reset_retrieval

lib = resources.library()
settings = resources.settings()

st.markdown(f"## ⚙️ {t('settings_title')}")
flash = st.session_state.pop("settings_flash", None)
if flash:
    st.toast(flash, icon="✅")

provider_section(st.session_state["provider"])

# retrieval -----------------------------------------------------------------------------------
with st.container(border=True):
    st.markdown(f"#### 🔎 {t('retrieval_section')}")
    a, b = st.columns(2)
    with a:
        state.bound(
            st.slider,
            t("top_k"),
            "retrieval",
            field="top_k",
            where="settings",
            min_value=1,
            max_value=30,
            step=1,
        )
    with b:
        state.bound(
            st.number_input,
            t("context_budget"),
            "retrieval",
            field="context_budget",
            where="settings",
            min_value=500,
            max_value=32000,
            step=250,
            help=t("context_budget_help"),
        )
    state.bound(
        st.text_area,
        t("system_prompt"),
        "retrieval",
        field="system_prompt",
        where="settings",
        help=t("system_prompt_help"),
        height=90,
    )
    st.button(t("reset_defaults"), icon="↩️", type="tertiary", on_click=reset_retrieval)

embedding_section(lib, settings)

# interface -----------------------------------------------------------------------------------
with st.container(border=True):
    st.markdown(f"#### 🌐 {t('interface_section')}")
    state.bound(
        st.radio,
        t("language"),
        "lang",
        where="settings",
        options=list(LANGUAGES),
        format_func=LANGUAGES.get,
        horizontal=True,
    )
