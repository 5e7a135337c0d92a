"""What a question asks to be done with the values it names: read one (``value``: an amount,
a rate, a date; ``span``: words), list several (``multi-span``), count them, or compute (``diff``, ``change_ratio``, ``average``, ``sum``,
``divide`` a ratio, ``share`` a part as a percentage of its whole, ``other``). Read by a model learned from data, not from word lists: a logistic
regression over the question's words and word pairs (``rag_app.text.analyzer``), fitted by
``rag_app.evaluation.operations_fit`` on the TAT-QA dev questions of half its documents (the
labels from their answer types and derivations) and reported on the other half
(docs/EVALUATION.md). Its weights are ``data/operations.json``; without them every question
reads as ``span``."""

from __future__ import annotations

import functools
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rag_app.text.analyzer import index_tokens

MODEL_PATH = Path(__file__).with_name("data") / "operations.json"
COMPUTED = ("diff", "change_ratio", "average", "sum", "divide", "share", "other")


def features(question: str) -> list[str]:
    """The question's words (numbers and years aside) and its pairs of neighbouring words."""
    words = [t for t in index_tokens(question) if not any(ch.isdigit() for ch in t)]
    return words + [f"{a} {b}" for a, b in zip(words, words[1:])]


@dataclass(frozen=True)
class OperationModel:
    classes: tuple[str, ...]
    vocabulary: dict[str, int]
    weights: tuple[tuple[float, ...], ...]  # per feature, one weight per class
    bias: tuple[float, ...]

    def probabilities(self, question: str) -> dict[str, float]:
        z = list(self.bias)
        for feature in set(features(question)):
            row = self.vocabulary.get(feature)
            if row is not None:
                z = [a + b for a, b in zip(z, self.weights[row])]
        top = max(z)
        exps = [math.exp(v - top) for v in z]
        total = sum(exps)
        return {c: e / total for c, e in zip(self.classes, exps)}

    def to_json(self) -> dict[str, object]:
        ordered = sorted(self.vocabulary, key=self.vocabulary.__getitem__)
        return {
            "classes": list(self.classes),
            "features": ordered,
            "weights": [[round(w, 4) for w in row] for row in self.weights],
            "bias": [round(b, 4) for b in self.bias],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> OperationModel:
        names = [str(f) for f in data["features"]]
        return cls(
            classes=tuple(str(c) for c in data["classes"]),
            vocabulary={f: i for i, f in enumerate(names)},
            weights=tuple(tuple(float(w) for w in row) for row in data["weights"]),
            bias=tuple(float(b) for b in data["bias"]),
        )


@functools.lru_cache(maxsize=1)
def load_model(path: Path = MODEL_PATH) -> OperationModel | None:
    try:
        return OperationModel.from_json(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError):
        return None


@dataclass(frozen=True)
class Operation:
    name: str  # one of the model's classes; "span" without a model
    confidence: float


def asked_operation(question: str, model: OperationModel | None = None) -> Operation:
    """The operation the question asks for, with the model's probability of it."""
    model = model or load_model()
    if model is None:
        return Operation("span", 0.0)
    probabilities = model.probabilities(question)
    name = max(probabilities, key=probabilities.__getitem__)
    return Operation(name, probabilities[name])
