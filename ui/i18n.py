"""Every label of the UI in Chinese and English: ``t(key, **values)`` in the user's language.

The language is per user (``st.session_state["lang"]``, ``zh`` or ``en``); Chinese is the
default. The labels are data, one table per area of the UI in ``ui/strings_*.py``, composed here
into ``TEXTS``. A missing key is a bug, caught by a test that renders every page in both
languages.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import streamlit as st

from ui.strings_answer import ANSWER_TEXTS, RELEVANCE_TEXTS
from ui.strings_app import APP_TEXTS
from ui.strings_ask import ASK_TEXTS
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
    APP_TEXTS, ASK_TEXTS, ANSWER_TEXTS, LIBRARY_TEXTS, SETTINGS_TEXTS
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


def relevance_text(key: str, **values: object) -> str:
    """The relevance check's (and self-RAG's) label ``key`` in the user's language."""
    zh, en = RELEVANCE_TEXTS[key]
    return (en if lang() == "en" else zh).format(**values)


def ms(value: float | None) -> str:
    if value is None:
        return "–"
    return t("seconds", v=value / 1000) if value >= 1000 else t("ms", v=value)
