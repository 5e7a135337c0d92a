"""Per-user state (one per session); the resources every session shares (the Settings, the
Library, the start-up work) are ``ui.resources``.

In ``st.session_state``: the language, the chosen knowledge base and modes, the conversation,
the provider settings and a typed API key. Settings live in plain (non-widget) keys, because
Streamlit drops a widget's value when its page is left; ``bound`` connects a widget to such a
key. The saved conversations and choices are kept per user in the conversation store.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import streamlit as st

from rag_app.access import LOCAL, Access, Principal, Role
from rag_app.answer import OpenAIChatLLM, ProviderSettings
from rag_app.chat.conversations import SavedTurn
from rag_app.config import PROVIDER_VARIABLES, ProviderEnv, read_provider_env
from rag_app.index.library import Library
from rag_app.models import Answer, AskOptions
from rag_app.pipeline.ask import Pipeline
from rag_app.prompt import MODES, Turn
from ui import resources
from ui.i18n import LANGUAGES
from ui.permissions import GROUPS_CLAIM_SETTING, groups_from_claims
from ui.resources import SAMPLE_KB, audit_log, conversation_store, library, settings


# per-user state ------------------------------------------------------------------------------
def _provider_env() -> tuple[ProviderEnv, ProviderEnv]:
    """The provider as st.secrets names it, and as the environment does (secrets win), both read
    by ``read_provider_env``, the provider variables' one reader."""
    secrets = {name: _secret(name) for name in PROVIDER_VARIABLES}
    return read_provider_env(secrets), read_provider_env()


def _secret(name: str) -> str:
    try:
        if not st.secrets.load_if_toml_exists():
            return ""
        value = st.secrets.get(name)
    except Exception:  # noqa: BLE001 - a malformed secrets file means no secret, not a crash
        return ""
    return str(value) if value else ""


def _defaults() -> dict[str, Any]:
    current = settings()
    secrets, environ = _provider_env()
    return {
        "lang": "zh",
        "kb": None,
        "mode": "smart",
        "prompt_mode": "advanced",
        "doc_filter": {},  # knowledge base -> selected doc ids
        "turns": [],  # ChatTurn, oldest first
        "conversation": None,  # the id of the open saved conversation (None: not saved yet)
        "compare": None,  # the last comparison: {"question", "kb", "smart", "hybrid"}
        "provider": {
            "base_url": secrets.base_url or environ.base_url,
            "model": secrets.model or environ.model,
            "temperature": ProviderSettings.temperature,
            "max_tokens": current.prompt.answer_reserve,
            "timeout_s": ProviderSettings.timeout_s,
        },
        "api_key_typed": "",
        "retrieval": {
            "top_k": current.top_k,
            "context_budget": current.prompt.context_budget,
            "system_prompt": "",
        },
        "ingest_results": [],
    }


def init_session() -> None:
    for key, value in _defaults().items():
        if key not in st.session_state:
            st.session_state[key] = copy.deepcopy(value)
    if not st.session_state.get("_restored"):
        st.session_state["_restored"] = True
        restore_session()


def current_kb(lib: Library) -> str | None:
    """The user's knowledge base, falling back to 示例 or the first one when it is gone (or no
    longer theirs to see)."""
    kbs = visible_kbs(lib)
    chosen = st.session_state.get("kb")
    if chosen not in kbs:
        chosen = SAMPLE_KB if SAMPLE_KB in kbs else (kbs[0] if kbs else None)
        st.session_state["kb"] = chosen
    return chosen


def set_kb(kb: str | None) -> None:
    """Choose ``kb`` as its selectboxes do: they show it, and it is remembered across a reload
    (a knowledge base created on the Library page was not, and a reload showed 示例)."""
    choose("kb", kb)


def choose(store: str, value: Any, field: str | None = None, widget_key: str = "") -> None:
    """Store a choice in ``store`` (or ``store[field]``): the widgets bound to it other than
    ``widget_key`` are reset to show it, and a choice in ``PREFERENCES`` is saved."""
    name = f"{store}.{field}" if field else store
    current = st.session_state.get(store) or {}
    st.session_state[store] = {**current, field: value} if field else value
    for other in [k for k in st.session_state if str(k).startswith(f"_w_{name}__")]:
        if other != widget_key:
            del st.session_state[other]
    if store in PREFERENCES:
        save_preferences()


def bound(
    widget: Callable[..., Any],
    label: str,
    store: str,
    *,
    where: str = "main",
    field: str | None = None,
    **kwargs: Any,
) -> Any:
    """Render ``widget`` bound to the plain session key ``store`` (or ``store[field]``).

    The widget gets its own key (``_w_<store>__<where>``), initialised from the stored value
    whenever it is (re)created; a change is written back to the store by a callback. Other
    widgets bound to the same value are reset, so two controls of one setting agree.
    """
    name = f"{store}.{field}" if field else store
    widget_key = f"_w_{name}__{where}"

    def read() -> Any:
        value = st.session_state.get(store)
        return (value or {}).get(field) if field else value

    def write() -> None:
        choose(store, st.session_state[widget_key], field, widget_key)

    if widget_key not in st.session_state:
        st.session_state[widget_key] = read()
    return widget(label, key=widget_key, on_change=write, **kwargs)


# provider ------------------------------------------------------------------------------------
def api_key() -> tuple[str, str]:
    """(key, where it came from): typed in this session, st.secrets, or the environment."""
    typed = st.session_state.get("api_key_typed", "")
    if typed:
        return typed, "typed"
    secrets, environ = _provider_env()
    if secrets.api_key:
        return secrets.api_key, "secrets"
    if environ.api_key:
        return environ.api_key, f"env:{environ.api_key_name}"
    return "", ""


def provider_settings(values: dict[str, Any] | None = None) -> ProviderSettings | None:
    """The user's provider, or None when no model is set (the offline answerer is used)."""
    values = values if values is not None else st.session_state.get("provider", {})
    model = str(values.get("model") or "").strip()
    if not model:
        return None
    return ProviderSettings(
        base_url=str(values.get("base_url") or "").strip(),
        model=model,
        api_key=api_key()[0],
        temperature=float(values.get("temperature", ProviderSettings.temperature)),
        max_tokens=int(values.get("max_tokens", ProviderSettings.max_tokens)),
        timeout_s=float(values.get("timeout_s", ProviderSettings.timeout_s)),
    )


def llm() -> OpenAIChatLLM | None:
    """This user's client (kept in the session so its connection pool is reused)."""
    provider = provider_settings()
    if provider is None:
        return None
    cached = st.session_state.get("_llm")
    if isinstance(cached, OpenAIChatLLM) and cached.settings == provider:
        return cached
    client = OpenAIChatLLM(provider, token_counter=library().counter)
    st.session_state["_llm"] = client
    return client


def pipeline() -> Pipeline:
    return Pipeline(settings(), library(), llm(), audit=audit_log(), client="app")


def ask_options(kb: str, mode: str | None = None) -> AskOptions:
    retrieval = st.session_state.get("retrieval", {})
    doc_ids = tuple(st.session_state.get("doc_filter", {}).get(kb, []))
    return AskOptions(
        kb=kb,
        mode=mode or st.session_state.get("mode", "smart"),  # type: ignore[arg-type]
        doc_ids=doc_ids,
        prompt_mode=st.session_state.get("prompt_mode", "advanced"),
        top_k=retrieval.get("top_k") or None,
        context_budget=retrieval.get("context_budget") or None,
        system_prompt=(retrieval.get("system_prompt") or "").strip() or None,
        user=current_user(),
    )


def current_user() -> str:
    """The signed-in user's e-mail (or name) when Streamlit authentication is configured; ""
    (the one local user) otherwise."""
    try:
        if not getattr(st.user, "is_logged_in", False):
            return ""
        return str(st.user.get("email") or st.user.get("name") or st.user.get("sub") or "")
    except Exception:  # noqa: BLE001 - no auth configured: the local user
        return ""


# knowledge-base permissions (issue 28; ui/permissions.py) --------------------------------------
def sign_in_configured() -> bool:
    """Whether Streamlit's sign-in is configured: permissions are enforced exactly then."""
    try:
        return "is_logged_in" in st.user.to_dict()  # added only when [auth] is configured
    except Exception:  # noqa: BLE001 - no script context (a bare import): the local user
        return False


def principal() -> Principal:
    """Who this session is to the permissions: the local owner without sign-in; a visitor
    (no name) before signing in; else the user's e-mail and the groups of their claims."""
    if not sign_in_configured():
        return LOCAL
    name = current_user()
    if not name:
        return Principal("")
    claim = _secret(GROUPS_CLAIM_SETTING) or os.environ.get(GROUPS_CLAIM_SETTING, "")
    return Principal(name, groups_from_claims(st.user.to_dict(), claim))


def access() -> Access:
    return resources.access(enforced=sign_in_configured())


def visible_kbs(lib: Library) -> list[str]:
    """The knowledge bases this user may see, in the library's order."""
    return access().visible(lib.knowledge_bases(), principal())


def may_see(kb: str) -> bool:
    return access().role(kb, principal()) is not None


def allows(kb: str, need: Role) -> bool:
    return access().allows(kb, principal(), need)


# saved conversations and choices (rag_app/chat/conversations.py) --------------------------------
# The choices remembered per user: the language and the Ask page's.
PREFERENCES = ("lang", "mode", "prompt_mode", "kb", "doc_filter")


def conversation_owner() -> str | None:
    """Whose saved conversations and choices this session sees: the signed-in user when
    Streamlit authentication is configured, "" (the one local user) when it is not, and None
    for a visitor who has not signed in (nothing is saved or shown: a visitor must not see the
    local user's conversations)."""
    try:
        info = st.user.to_dict()
    except Exception:  # noqa: BLE001 - no script context (a bare import): the local user
        return ""
    if "is_logged_in" not in info:  # Streamlit adds it only when [auth] is configured
        return ""
    return (current_user() or None) if info.get("is_logged_in") else None


def save_preferences() -> None:
    owner, store = conversation_owner(), conversation_store()
    if owner is None or store is None:
        return
    values = {key: st.session_state.get(key) for key in PREFERENCES}
    try:
        store.save_preferences(owner, values)
    except Exception:  # noqa: BLE001 - a choice not remembered is no reason to fail the page
        pass


def restore_session() -> None:
    """At a session's start: the user's remembered choices, and the conversation the page's
    address names (``?c=<id>``), if it is theirs; an unknown id leaves a note and a new chat."""
    owner, store = conversation_owner(), conversation_store()
    if owner is None or store is None:
        return
    try:
        chosen = store.preferences(owner)
    except Exception:  # noqa: BLE001 - the defaults then
        chosen = {}
    valid = {
        "lang": lambda v: v in LANGUAGES,
        "mode": lambda v: v in ("smart", "hybrid"),
        "prompt_mode": lambda v: v in MODES,
        "kb": lambda v: isinstance(v, str) and bool(v),
        "doc_filter": lambda v: isinstance(v, dict),
    }
    for key, check in valid.items():
        if key in chosen and check(chosen[key]):
            st.session_state[key] = chosen[key]
    wanted = st.query_params.get("c")
    if wanted:
        try:
            conversation = store.get(owner, wanted)
        except Exception:  # noqa: BLE001 - an unreadable file: said as for an unknown id
            conversation = None
        if conversation is None or not may_see(conversation.info.kb):
            st.session_state["_conversation_note"] = "conv_not_found"
            del st.query_params["c"]
        else:
            open_conversation(conversation.info.id, conversation.turns, conversation.info.kb)


def open_conversation(
    conversation_id: str | None, saved: Sequence[SavedTurn] = (), kb: str = ""
) -> None:
    """Show a saved conversation (its turns as stored), or a new, empty one (None); a saved
    one's knowledge base (``kb``) becomes the current one, so its next question goes there."""
    if kb and kb in visible_kbs(library()) and st.session_state.get("kb") != kb:
        set_kb(kb)
    st.session_state["conversation"] = conversation_id
    st.session_state["turns"] = [
        ChatTurn(s.question, s.options, None, s.failure, saved=s) for s in saved
    ]


def save_turn(turn: ChatTurn) -> str | None:
    """Store the newest turn in the open conversation, starting one (titled by its first
    question) when none is open or it was deleted meanwhile; the conversation's id, or None
    when nothing is saved (a visitor not signed in, or the file cannot be written)."""
    owner, store = conversation_owner(), conversation_store()
    if owner is None or store is None or turn.saved is None:
        return None
    try:
        current = st.session_state.get("conversation")
        if current and store.append(owner, current, turn.saved):
            return str(current)
        turns: list[ChatTurn] = st.session_state.get("turns", [])
        first = turns[0] if turns else turn
        created = store.create(owner, first.question, first.options.kb)
        for each in [*[x for x in turns if x is not turn], turn]:
            if each.saved is not None:
                store.append(owner, created.id, each.saved)
    except Exception:  # noqa: BLE001 - the answer stays on screen; the note says it is unsaved
        st.session_state["_conversation_note"] = "conv_save_failed"
        return None
    st.session_state["conversation"] = created.id
    return created.id


@dataclass(frozen=True)
class ChatTurn:
    """One exchange on screen: the question, the options it was asked with, the Answer (None
    when the pipeline failed before answering), a failure message, and the names of the
    answer's documents as they were when it was asked ((doc id, name) pairs: a document another
    user deletes meanwhile keeps its name on the answer's cards)."""

    question: str
    options: AskOptions
    answer: Answer | None
    failure: str = ""
    doc_names: tuple[tuple[str, str], ...] = ()
    # Its stored form: all a turn restored from a saved conversation has (``answer`` is None).
    saved: SavedTurn | None = None


# a conversation's history --------------------------------------------------------------------
def conversation_history(turns: Sequence[ChatTurn] | None = None) -> list[Turn]:
    """The open conversation's answered turns (restored ones too), as the pipeline's history:
    a follow-up asked on the Ask page or the Compare page is understood from it."""
    if turns is None:
        turns = st.session_state.get("turns", [])
    out = []
    for turn in turns:
        text = (
            turn.answer.text
            if turn.answer is not None
            else (turn.saved.answer if turn.saved is not None else "")
        )
        if text.strip():
            out.append(Turn(turn.question, text))
    return out
