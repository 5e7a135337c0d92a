"""设置 / Settings: the language model provider (the key is never shown back), a connection
test, retrieval parameters, the embedding model in use, and the interface language."""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from rag_app.answer import (
    ChatMessage,
    GenerationRequest,
    LLMError,
    OpenAIChatLLM,
    collect,
    mask_key,
)
from ui import resources, state
from ui.i18n import LANGUAGES, lang, t


def _key_source(source: str) -> str:
    if source == "typed":
        return t("key_source_typed")
    if source == "secrets":
        return t("key_source_secrets")
    return t("key_source_env", name=source.split(":", 1)[-1])


def save_provider() -> None:
    ss = st.session_state
    ss["provider"] = {
        "base_url": (ss.get("_f_base_url") or "").strip(),
        "model": (ss.get("_f_model") or "").strip(),
        "temperature": float(ss.get("_f_temperature", 0.1)),
        "max_tokens": int(ss.get("_f_max_tokens", 1024)),
        "timeout_s": float(ss.get("_f_timeout", 60.0)),
    }
    typed = (ss.get("_f_api_key") or "").strip()
    if typed:
        ss["api_key_typed"] = typed
    ss["_f_api_key"] = ""  # the field never holds the key after a save
    ss["settings_flash"] = t("saved")
    ss.pop("test_result", None)


def forget_key() -> None:
    st.session_state["api_key_typed"] = ""
    st.session_state.pop("test_result", None)


def _error_text(err: LLMError) -> str:
    zh, en = err.summary
    text = en if lang() == "en" else zh
    return f"{text} ({err.detail})" if err.detail else text


def test_connection() -> None:
    provider = state.provider_settings()
    if provider is None:
        st.session_state["test_result"] = ("warning", t("test_needs_model"))
        return
    provider = replace(provider, max_retries=0)
    client = OpenAIChatLLM(provider)
    try:
        models = client.list_models()
    except LLMError as err:
        if err.kind not in ("bad_request", "bad_response"):
            st.session_state["test_result"] = ("error", t("test_failed", error=_error_text(err)))
            return
        models = None  # some servers have no /models: try a one-token chat instead
    if models is not None:
        hint = (
            t("test_model_listed", model=provider.model)
            if provider.model in models
            else t("test_model_not_listed", model=provider.model)
        )
        st.session_state["test_result"] = ("success", t("test_ok_models", n=len(models), hint=hint))
        return
    ping = GenerationRequest.from_messages([ChatMessage("user", "ping")])
    reply = collect(OpenAIChatLLM(replace(provider, max_tokens=1)).stream(ping))
    if reply.ok:
        st.session_state["test_result"] = ("success", t("test_ok_chat", model=provider.model))
    else:
        st.session_state["test_result"] = ("error", t("test_failed", error=reply.error))


def reset_retrieval() -> None:
    current = resources.settings()
    st.session_state["retrieval"] = {
        "top_k": current.top_k,
        "context_budget": current.prompt.context_budget,
        "system_prompt": "",
    }
    for key in [k for k in st.session_state if str(k).startswith("_w_retrieval.")]:
        del st.session_state[key]


lib = resources.library()
settings = resources.settings()
provider = st.session_state["provider"]

st.markdown(f"## ⚙️ {t('settings_title')}")
flash = st.session_state.pop("settings_flash", None)
if flash:
    st.toast(flash, icon="✅")

# provider ------------------------------------------------------------------------------------
with st.container(border=True):
    st.markdown(f"#### 🤖 {t('provider_section')}")
    st.caption(t("provider_caption"))
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

# embedding model -----------------------------------------------------------------------------
with st.container(border=True):
    st.markdown(f"#### 🧬 {t('embedding_section')}")
    from rag_app.index.embedder import resolve_model

    try:
        path = resolve_model(settings)
    except Exception as exc:  # noqa: BLE001 - shown, with the fix the message names
        path = ""
        st.error(t("model_missing", error=exc))
    # Asking a model still loading for its dimension would hold this page until it has loaded.
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
