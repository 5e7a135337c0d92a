"""The Settings page's actions, run as its buttons' callbacks: the provider form saved (the key
kept in the session, never shown back), a typed key forgotten, the connection tested, and the
retrieval parameters reset to the Settings' values."""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from rag_app.answer import ChatMessage, GenerationRequest, LLMError, OpenAIChatLLM, collect
from ui import resources, state
from ui.i18n import model_error_text, t


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
    return model_error_text(err.user_message, err.kind)


def test_connection() -> None:
    """Ask the provider for its models (else a one-token chat), without retries; the outcome
    goes to ``test_result`` as (level, message)."""
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
        error = model_error_text(reply.error, reply.error_kind)
        st.session_state["test_result"] = ("error", t("test_failed", error=error))


def reset_retrieval() -> None:
    current = resources.settings()
    st.session_state["retrieval"] = {
        "top_k": current.top_k,
        "context_budget": current.prompt.context_budget,
        "system_prompt": "",
    }
    for key in [k for k in st.session_state if str(k).startswith("_w_retrieval.")]:
        del st.session_state[key]
