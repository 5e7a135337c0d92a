"""Every label of the UI in Chinese and English: ``t(key, **values)`` in the user's language.

The language is per user (``st.session_state["lang"]``, ``zh`` or ``en``); Chinese is the
default. The labels are data, one table per area of the UI in ``ui/strings_*.py``, composed here
into ``TEXTS``. A missing key is a bug, caught by a test that renders every page in both
languages.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, get_args

import streamlit as st

from rag_app.answer.base import ErrorKind, LLMError
from ui.strings_access import ACCESS_TEXTS
from ui.strings_answer import ANSWER_TEXTS, RELEVANCE_TEXTS
from ui.strings_app import APP_TEXTS
from ui.strings_ask import ASK_TEXTS
from ui.strings_audit import AUDIT_TEXTS
from ui.strings_evaluate import EVALUATE_TEXTS
from ui.strings_library import LIBRARY_TEXTS
from ui.strings_reasons import REASONS_ZH
from ui.strings_settings import SETTINGS_TEXTS

LANGUAGES = {"zh": "中文", "en": "English"}
DEFAULT_LANGUAGE = "zh"


def _merged(*tables: dict[str, tuple[str, str]]) -> dict[str, tuple[str, str]]:
    # One key, one label: a key in two tables would silently take the later one's wording.
    out: dict[str, tuple[str, str]] = {}
    for table in tables:
        twice = out.keys() & table.keys()
        if twice:
            raise ValueError(f"labels defined twice: {sorted(twice)}")
        out.update(table)
    return out


# key -> (Chinese, English), every label of the UI; the tables live by area in ui/strings_*.py.
TEXTS: dict[str, tuple[str, str]] = _merged(
    APP_TEXTS,
    ASK_TEXTS,
    ANSWER_TEXTS,
    LIBRARY_TEXTS,
    SETTINGS_TEXTS,
    AUDIT_TEXTS,
    EVALUATE_TEXTS,
    ACCESS_TEXTS,
)


_UNITS_ZH = {"table rows": "行", "sentences": "句"}


def reason_text(reasons: Sequence[Any], english: str) -> str:
    """The core's ``reasons`` (keys and values) in the user's language; ``english`` is the
    core's wording, used in English and for any key without a Chinese wording."""
    if lang() == "en" or not reasons:
        return english
    parts = []
    for reason in reasons:
        template = REASONS_ZH.get(reason.key)
        if template is None:
            return english
        values = dict(reason.values)
        if "type" in values:
            values["type"] = type_label(values["type"])
        if "mode" in values and f"pmode_{values['mode']}" in TEXTS:
            values["mode"] = t(f"pmode_{values['mode']}")
        if "unit" in values:
            values["unit"] = _UNITS_ZH.get(values["unit"], values["unit"])
        values = {k: v.replace(", ", "、") for k, v in values.items()}
        parts.append(template.format_map(_Missing(values)))
    return t("reason_separator").join(parts)


class _Missing(dict):  # type: ignore[type-arg]
    def __missing__(self, key: str) -> str:
        return ""


def layer_reason(step: Any) -> str:
    """Why a layer of layered recall did or did not run, in the user's language."""
    if lang() == "en" or not step.reason:
        return str(step.reason)
    if step.layer == "fill":
        return REASONS_ZH["layer_fill"]
    if not step.ran:
        return REASONS_ZH["layer_enough"].format(total=step.total)
    return str(step.reason)


def lang() -> str:
    value = st.session_state.get("lang", DEFAULT_LANGUAGE)
    return value if value in LANGUAGES else DEFAULT_LANGUAGE


def t(key: str, **values: object) -> str:
    """The label ``key`` in the current user's language, formatted with ``values``."""
    zh, en = TEXTS[key]
    text = en if lang() == "en" else zh
    return text.format(**values) if values else text


def labelled(key: str, value: str) -> str:
    """``label: value`` with the label ``key``, in the language's own colon (``依据：…``,
    ``Evidence: …``)."""
    return t(key) + t("colon") + value


def type_label(chunk_type: str) -> str:
    key = f"type_{chunk_type}"
    return t(key) if key in TEXTS else chunk_type


def strategy_label(name: str) -> str:
    """A recall layer's or retrieval strategy's label (``Hit.strategy``, ``LayerStep.layer``):
    ``semantic`` -> 语义, ``keyword (fill)`` -> 关键词（补足）, ``hyde + multi_query`` each
    worded; an unknown name as is."""
    if " + " in name:
        return " + ".join(strategy_label(part) for part in name.split(" + "))
    if name.endswith(" (fill)"):
        return t("strategy_fill_of", layer=strategy_label(name.removesuffix(" (fill)")))
    key = f"strategy_{name}"
    return t(key) if key in TEXTS else name


def model_error_text(error: str, kind: str = "") -> str:
    """A model's failure as the core reports it (``LLMError.user_message``: Chinese / English
    and a technical detail; ``Answer.error`` and ``error_kind``) in the user's language, worded
    from its kind; text of any other form as is."""
    kinds = [kind] if kind else []
    kinds += [k for k in (*get_args(ErrorKind), "") if k != kind]
    for each in kinds:
        for partial in (False, True):
            whole = LLMError(each, partial=partial).user_message  # type: ignore[arg-type]
            detail = ""
            if error.startswith(whole + " (") and error.endswith(")"):
                detail = error[len(whole) + 2 : -1]
            elif error != whole:
                continue
            key = f"llm_error_{each}"
            text = t(key) if key in TEXTS else t("llm_error_unknown")
            if partial:
                text = t("llm_error_partial", error=text)
            if _CLASS_NAME.fullmatch(detail):
                detail = ""  # the exception's class is for the log, not the reader
            return t("llm_error_detail", error=text, detail=detail) if detail else text
    return error


# A detail that is only an exception's class (``ConnectError``, ``RemoteProtocolError``,
# ``ValueError``: what the client gives when the failure has no words of its own).
_CLASS_NAME = re.compile(r"(?:[A-Za-z_][\w]*\.)*[A-Z][A-Za-z0-9]*(?:Error|Exception|Timeout|Exit)")


# Why the model's rewrite of a follow-up was not used (rag_app.answer.rewrite.RewriteFailed):
# its fixed sentences, each a key.
_REWRITE_NOTES = {
    "the model returned nothing": "rewrite_empty",
    "the model returned no usable line": "rewrite_no_line",
    "the model returned more than one line": "rewrite_lines",
    "the model answered instead of rewriting": "rewrite_answered",
    "the model's rewrite is longer than the questions it came from": "rewrite_too_long",
}


def rewrite_note_text(note: str) -> str:
    """Why a model rewrite was not used (``Understood.note``), in the user's language; a note
    of any other form as is."""
    if note in _REWRITE_NOTES:
        return t(_REWRITE_NOTES[note])
    if note.startswith("the model failed: "):
        return t("rewrite_model_failed", error=model_error_text(note.split(": ", 1)[1]))
    timeout = re.fullmatch(r"no reply within (\S+) s", note)
    return t("rewrite_timeout", s=timeout.group(1)) if timeout else note


def relevance_text(key: str, **values: object) -> str:
    """The relevance check's (and self-RAG's) label ``key`` in the user's language."""
    zh, en = RELEVANCE_TEXTS[key]
    return (en if lang() == "en" else zh).format(**values)


def ms(value: float | None) -> str:
    if value is None:
        return "–"
    return t("seconds", v=value / 1000) if value >= 1000 else t("ms", v=value)
