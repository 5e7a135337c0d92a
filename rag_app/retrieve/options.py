"""How settings fill in the strategies' knobs (``options_from``; the knobs themselves,
``StrategyOptions``, live with the other stages' in ``rag_app.stage_settings``).

Every recall, scoring and routing stage of the smart and hybrid strategies reads its numbers
from one ``StrategyOptions``; each knob can be turned off for the ablation in ``make eval``.
"""

from __future__ import annotations

from dataclasses import replace

from rag_app.config import Settings
from rag_app.stage_settings import StrategyOptions

__all__ = ["StrategyOptions", "options_from"]


def options_from(settings: Settings | None, **overrides: object) -> StrategyOptions:
    """``settings.retrieval`` (the defaults without settings) with the settings' extra routing
    cues added, then ``overrides`` (field name -> value) applied.

    Raises TypeError for an override that names no field.
    """
    base = StrategyOptions()
    if settings is not None:
        base = replace(
            settings.retrieval,
            cues=settings.retrieval.cues.with_pairs(
                settings.extra_explicit_cues, settings.extra_implicit_cues
            ),
        )
    return replace(base, **overrides) if overrides else base  # type: ignore[arg-type]
