"""The Settings page's boxes that show more than bound widgets: the language model provider
(its form, where the key in use comes from, masked, and the connection test) and the embedding
model in use (the callbacks: ui/settings_actions.py)."""

from __future__ import annotations

from typing import Any

import streamlit as st

from rag_app.answer import mask_key
from rag_app.config import Settings
from rag_app.index.library import Library
from ui import resources, state
from ui.i18n import t
from ui.settings_actions import forget_key, save_provider, test_connection


def _key_source(source: str) -> str:
    if source == "typed":
        return t("key_source_typed")
    if source == "secrets":
        return t("key_source_secrets")
    return t("key_source_env", name=source.split(":", 1)[-1])


def provider_section(provider: dict[str, Any]) -> None:
    """The provider box: the form (the key field always empty), the key and provider in use,
    and the connection test with its result."""
    with st.container(border=True):
        st.markdown(f"#### 🤖 {t('provider_section')}")
        st.caption(t("provider_caption"))
        _provider_form(provider)
        key, source = state.api_key()
        if key:
            st.caption("🔑 " + t("key_status", masked=mask_key(key), source=_key_source(source)))
        else:
            st.caption("🔑 " + t("key_none"))
        active = state.provider_settings()
        if active is None:
            st.caption("📴 " + t("answerer_offline_here"))
        else:
            where = active.base_url or "https://api.openai.com/v1"
            st.caption("✅ " + t("provider_active", name=f"`{active.model}` @ `{where}`"))
        left, right, _ = st.columns([1.2, 1.6, 3])
        testing = left.button(t("test_connection"), icon="🔌", width="stretch")
        if source == "typed":
            right.button(t("key_clear"), icon="🧹", on_click=forget_key, width="stretch")
        if testing:
            with st.spinner(t("test_connection") + "…"):
                test_connection()
        result = st.session_state.get("test_result")
        if result:
            getattr(st, result[0])(result[1])


def _provider_form(provider: dict[str, Any]) -> None:
    with st.form("provider_form", border=False):
        a, b = st.columns(2)
        a.text_input(
            t("base_url"),
            value=provider["base_url"],
            key="_f_base_url",
            placeholder="https://api.openai.com/v1",
            help=t("base_url_help"),
        )
        b.text_input(t("model"), value=provider["model"], key="_f_model", help=t("model_help"))
        c, d, e = st.columns(3)
        c.slider(
            t("temperature"),
            0.0,
            2.0,
            value=float(provider["temperature"]),
            step=0.05,
            key="_f_temperature",
        )
        d.number_input(
            t("max_tokens"),
            16,
            32768,
            value=int(provider["max_tokens"]),
            step=64,
            key="_f_max_tokens",
        )
        e.number_input(
            t("timeout"), 1.0, 600.0, value=float(provider["timeout_s"]), step=5.0, key="_f_timeout"
        )
        st.text_input(
            t("api_key"),
            type="password",
            key="_f_api_key",
            placeholder=t("api_key_placeholder"),
            help=t("api_key_help"),
            autocomplete="off",
        )
        st.form_submit_button(t("save"), type="primary", icon="💾", on_click=save_provider)


def embedding_section(lib: Library, settings: Settings) -> None:
    """The embedding model's name, path and dimension, the token counter and the data dir."""
    with st.container(border=True):
        st.markdown(f"#### 🧬 {t('embedding_section')}")
        from rag_app.index.embedder import resolve_model

        try:
            path = resolve_model(settings)
        except Exception as exc:  # noqa: BLE001 - shown, with the fix the message names
            path = ""
            st.error(t("model_missing", error=exc))
        # Asking a model still loading for its dimension would hold this page until it has
        # loaded.
        try:
            dimension = (
                str(lib.embedder.dimension)
                if path and resources.model_ready()
                else t("embedding_not_loaded")
            )
        except Exception:  # noqa: BLE001
            dimension = t("embedding_not_loaded")
        rows = [
            (t("embedding_name"), settings.embedding_model),
            (t("embedding_path"), path or "–"),
            (t("embedding_dim"), dimension),
            (t("counter"), getattr(lib.counter, "name", "")),
            (t("data_dir"), str(settings.data_dir)),
        ]
        st.markdown("  \n".join(f"{name}{t('colon')}`{value}`" for name, value in rows))
