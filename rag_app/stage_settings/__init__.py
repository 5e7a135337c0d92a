"""Each stage's own knobs, one frozen object per stage, nested in ``config.Settings``: retrieval
(``StrategyOptions``, with smart mode's ``RoutingCues``), the prompt (``PromptSettings``), the
citation check (``CiteSettings``), the offline answerer (``OfflineSettings``), follow-ups
(``FollowUpSettings``), the query rewrites (``RewriteSettings``), the library (``IndexSettings``)
and what a file meets while it is read (``InputLimits``), one module per stage. Every field says
where its value comes from. A foundation like ``config``: it imports only the word
lists of ``rag_app.text``, so building a ``Settings`` loads no stage.
"""

from __future__ import annotations

from rag_app.stage_settings.answer import FollowUpSettings, OfflineSettings, RewriteSettings
from rag_app.stage_settings.cite import (
    DEFAULT_BAND,
    DEFAULT_CITE_SETTINGS,
    E5_CHINESE_BAND,
    E5_CROSS_LANGUAGE_BAND,
    E5_ENGLISH_BAND,
    CiteSettings,
)
from rag_app.stage_settings.index import IndexSettings
from rag_app.stage_settings.ingest import DEFAULT_INPUT_LIMITS, InputLimits
from rag_app.stage_settings.prompt import (
    DEFAULT_PROMPT_SETTINGS,
    MODES,
    LanguageChoice,
    Mode,
    PromptSettings,
)
from rag_app.stage_settings.retrieval import (
    EXPLICIT_CUES,
    IMPLICIT_CUES,
    RoutingCues,
    StrategyOptions,
)
from rag_app.stage_settings.words import BIGRAM_WEIGHT
from rag_app.text.language import Language

__all__ = [
    "BIGRAM_WEIGHT",
    "DEFAULT_BAND",
    "DEFAULT_CITE_SETTINGS",
    "DEFAULT_INPUT_LIMITS",
    "DEFAULT_PROMPT_SETTINGS",
    "E5_CHINESE_BAND",
    "E5_CROSS_LANGUAGE_BAND",
    "E5_ENGLISH_BAND",
    "EXPLICIT_CUES",
    "IMPLICIT_CUES",
    "MODES",
    "CiteSettings",
    "FollowUpSettings",
    "IndexSettings",
    "InputLimits",
    "Language",
    "LanguageChoice",
    "Mode",
    "OfflineSettings",
    "PromptSettings",
    "RewriteSettings",
    "RoutingCues",
    "StrategyOptions",
]
