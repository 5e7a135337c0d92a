"""Semantic matching: the answer's sentences and the sources' best units embedded in batches,
and the cosine between them rescaled from the embedder's band to [0, 1] (e5 puts even unrelated
Chinese sentences above 0.8; ``rag_app.cite.settings`` has the measurements)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from rag_app.cite.evidence import Features, clip
from rag_app.protocols import Embedder
from rag_app.stage_settings import (
    DEFAULT_BAND,
    E5_CHINESE_BAND,
    E5_CROSS_LANGUAGE_BAND,
    E5_ENGLISH_BAND,
    CiteSettings,
)
from rag_app.text.language import cjk_share, detect_language


def semantic_bands(
    embedder: Embedder | None, settings: CiteSettings
) -> tuple[tuple[float, float], ...]:
    """(Chinese, English, cross-language) cosine bands mapped onto [0, 1] for ``embedder``."""
    if settings.semantic_bands is not None:
        return settings.semantic_bands
    name = str(getattr(embedder, "name", "")).lower()
    if "e5" in name:
        return E5_CHINESE_BAND, E5_ENGLISH_BAND, E5_CROSS_LANGUAGE_BAND
    return DEFAULT_BAND, DEFAULT_BAND, DEFAULT_BAND


class SemanticMatcher:
    """The vectors embedded so far for one answer, and the rescaled similarity between a
    sentence and source units. Without an embedder nothing is embedded and nothing matches."""

    def __init__(self, embedder: Embedder | None, settings: CiteSettings) -> None:
        self.embedder = embedder
        self.bands = semantic_bands(embedder, settings)
        self.max_unit_chars = settings.max_unit_chars
        self.chinese: dict[str, bool] = {}
        self.vectors: dict[str, np.ndarray] = {}
        self.embedded_texts = 0
        self.calls = 0

    def has(self, text: str) -> bool:
        return text in self.vectors

    def _language(self, text: str) -> bool:
        if text not in self.chinese:
            # Chinese as the one language detector reads it; a text with no words is not.
            self.chinese[text] = cjk_share(text) is not None and detect_language(text) == "zh"
        return self.chinese[text]

    def best_match(self, claim: Features, units: Sequence[Features]) -> tuple[float, bool] | None:
        """(rescaled similarity to the best of ``units``, whether that unit is in another
        language), or None when the claim or every unit is not embedded."""
        sentence = self.vectors.get(claim.text)
        if sentence is None:
            return None
        best: tuple[float, bool] | None = None
        for unit in units:
            vector = self.vectors.get(clip(unit.text, self.max_unit_chars))
            if vector is None:
                continue
            chinese = self._language(claim.text)
            cross = chinese != self._language(unit.text)
            low, high = self.bands[2] if cross else self.bands[0] if chinese else self.bands[1]
            score = min(1.0, max(0.0, (float(sentence @ vector) - low) / (high - low)))
            if best is None or score > best[0]:
                best = (score, cross)
        return best

    def embed(self, texts: list[str]) -> None:
        """Embed ``texts`` (new ones, deduplicated by the caller) in one ``embed_queries`` call;
        nothing without an embedder or texts. Raises what the embedder raises."""
        if self.embedder is None or not texts:
            return
        vectors = np.asarray(self.embedder.embed_queries(texts), dtype=np.float32)
        self.vectors.update(zip(texts, vectors, strict=True))
        self.embedded_texts += len(texts)
        self.calls += 1
