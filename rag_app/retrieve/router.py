"""Smart mode's learned router: which content type (text, table, image) holds a question's
answer, with a calibrated probability.

A multinomial logistic regression (``rag_app/evaluation/router_fit.py`` trains it; docs/ROUTING.md
reports it on sets it was not fitted on) over, per type, the analysis' evidence
(``routing.routing_features``): the type named, leaning words, a caption covering the question,
the type's share of the first look and its top hit. It can also read the question's e5
embedding (``--embedding``; then only for the embedder it was trained with), but the shipped
model does not: the embedding told the training sets apart (Chinese news questions are all
answered by text) and routed questions of other reports wrong. The model is data
(``data/router.json``), loaded once.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from rag_app.retrieve.routing import FEATURES, TYPES

MODEL_PATH = Path(__file__).with_name("data") / "router.json"
# The scalar features in the model's order: each of FEATURES for each type.
SCALAR_NAMES = tuple(f"{t}:{f}" for t in TYPES for f in FEATURES)


@dataclass(frozen=True)
class RouterModel:
    """Weights of the router: ``classes`` x (embedding, scalar features) and a bias."""

    classes: tuple[str, ...]
    embedder: str  # the embedding model the weights were trained on ("" = no embedding term)
    embed_scale: float
    embed_weights: np.ndarray  # (classes, dim); empty when trained without the embedding
    scalar_weights: np.ndarray  # (classes, len(SCALAR_NAMES))
    bias: np.ndarray  # (classes,)
    temperature: float = 1.0  # calibration: logits are divided by it

    def to_json(self) -> dict[str, object]:
        return {
            "classes": list(self.classes),
            "embedder": self.embedder,
            "embed_scale": self.embed_scale,
            "scalar_names": list(SCALAR_NAMES),
            "embed_weights": np.round(self.embed_weights, 5).tolist(),
            "scalar_weights": np.round(self.scalar_weights, 5).tolist(),
            "bias": np.round(self.bias, 5).tolist(),
            "temperature": round(self.temperature, 4),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> RouterModel:
        names = tuple(str(n) for n in data["scalar_names"])  # type: ignore[attr-defined]
        if names != SCALAR_NAMES:
            raise ValueError(f"router features {names} are not {SCALAR_NAMES}: retrain it")
        return cls(
            classes=tuple(data["classes"]),  # type: ignore[arg-type]
            embedder=str(data["embedder"]),
            embed_scale=float(data["embed_scale"]),  # type: ignore[arg-type]
            embed_weights=np.asarray(data["embed_weights"], dtype=np.float32),
            scalar_weights=np.asarray(data["scalar_weights"], dtype=np.float32),
            bias=np.asarray(data["bias"], dtype=np.float32),
            temperature=float(data.get("temperature", 1.0)),  # type: ignore[arg-type]
        )

    def uses_embedding(self, embedder: str, vector: np.ndarray | None) -> bool:
        return (
            vector is not None
            and self.embed_weights.size > 0
            and embedder == self.embedder
            and vector.shape[-1] == self.embed_weights.shape[1]
        )

    def logits(
        self,
        scalars: Sequence[float],
        vector: np.ndarray | None = None,
        embedder: str = "",
    ) -> np.ndarray:
        z = self.bias + self.scalar_weights @ np.asarray(scalars, dtype=np.float32)
        if self.uses_embedding(embedder, vector):
            assert vector is not None
            z = z + self.embed_weights @ (vector.astype(np.float32) * self.embed_scale)
        return z / self.temperature

    def probabilities(
        self,
        scalars: Sequence[float],
        vector: np.ndarray | None = None,
        embedder: str = "",
        available: Sequence[str] = TYPES,
    ) -> dict[str, float]:
        """Softmax over the ``available`` types (a type the library lacks cannot win)."""
        z = self.logits(scalars, vector, embedder)
        kept = {c: float(v) for c, v in zip(self.classes, z) if c in available}
        if not kept:
            return {}
        top = max(kept.values())
        exps = {c: math.exp(v - top) for c, v in kept.items()}
        total = sum(exps.values())
        return {c: e / total for c, e in exps.items()}


@dataclass(frozen=True)
class RouterInput:
    """The router and one question's embedding, as ``detect_query_type`` takes them."""

    model: RouterModel
    vector: np.ndarray
    embedder: str

    @property
    def reads_question(self) -> bool:
        return self.model.uses_embedding(self.embedder, self.vector)

    def probabilities(
        self, features: Mapping[str, Sequence[float]], available: Sequence[str]
    ) -> dict[str, float]:
        return self.model.probabilities(
            scalar_vector(features), self.vector, self.embedder, available
        )


# What an evidence-only router is handed for a question's embedding it does not read.
_NO_VECTOR = np.zeros(0, dtype=np.float32)


def router_input(vector: np.ndarray | None, embedder: str, path: str = "") -> RouterInput | None:
    """The shipped router (or the one at ``path``) for a question embedded by ``embedder``, or
    None when there is no model, or when the model reads embeddings and there is no vector or
    it comes from another embedding model (its weights would read noise): the fitted constants
    then decide. A model of the evidence alone (``embedder`` "") serves any library."""
    model = load_router(Path(path)) if path else load_router()
    if model is None:
        return None
    if model.embed_weights.size == 0:
        return RouterInput(model, _NO_VECTOR if vector is None else vector, embedder)
    if vector is None or not model.uses_embedding(embedder, vector):
        return None
    return RouterInput(model, vector, embedder)


def scalar_vector(features: Mapping[str, Sequence[float]]) -> list[float]:
    """Per-type features (``routing_features``) flattened in ``SCALAR_NAMES`` order."""
    return [float(v) for t in TYPES for v in features[t]]


@lru_cache(maxsize=4)
def load_router(path: Path = MODEL_PATH) -> RouterModel | None:
    """The router model shipped with the package, or None when the file is missing."""
    if not path.exists():
        return None
    return RouterModel.from_json(json.loads(path.read_text(encoding="utf-8")))
