"""What a question asks to be done with the values it names: read one (``value``: an amount,
a rate, a date; ``span``: words), list several (``multi-span``), count them, or compute (``diff``,
``change_ratio``, ``average``, ``sum``, ``divide`` a ratio, ``share`` a part as a percentage of
its whole, ``cagr`` a compound annual growth rate, ``other``). Read by a model learned from data, not from word lists: a logistic
regression over the question's words and word pairs (``features``) and, when the
question was embedded by the encoder it was fitted with (multilingual-e5-small, the "query: "
vector dense retrieval computes anyway, ``QueryAnalysis.embedding``), over that embedding too.
Both are fitted by ``rag_app.evaluation.operations_fit`` on the TAT-QA dev questions of half its
documents (the labels from their answer types and derivations) and authored Chinese rows, and
reported on the other half (docs/EVALUATION.md, sessions 14, 15 and 17). The embedding carries a
phrasing the words never saw (most of them English) and reads the held-out half better.

Weights are data: ``data/operations_embedding.json`` (words and the embedding) and
``data/operations.json`` (words alone: the read of a question with no embedding, or one by
another embedder, such as the tests' hash embedder). Without them every question reads as
``span``. Inference is numpy and pure Python; nothing is downloaded."""

from __future__ import annotations

import functools
import json
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from rag_app.text.analyzer import cut
from rag_app.text.phrasing import asks_for_superlative, asks_which_period

MODEL_PATH = Path(__file__).with_name("data") / "operations.json"
EMBEDDING_MODEL_PATH = Path(__file__).with_name("data") / "operations_embedding.json"
_WORD = re.compile(r"\w")
COMPUTED = ("diff", "change_ratio", "average", "sum", "divide", "share", "cagr", "other")


def features(question: str) -> list[str]:
    """The question's words as segmented, function words kept (了, 和, 比, the, between: they
    say which operation) and a number as "#", and its pairs of neighbouring words. Not the
    keyword index's tokens: their stopwords go, and their character pairs across words ("了多"
    of 卖了多少) read 一共卖了多少台 as a difference (session 23)."""
    words = []
    for token in cut(question.lower()):
        token = token.strip()
        if token and _WORD.search(token):
            words.append("#" if any(ch.isdigit() for ch in token) else token)
    return words + [f"{a} {b}" for a, b in zip(words, words[1:])]


@dataclass(frozen=True)
class OperationModel:
    """A softmax over ``classes``: ``bias`` plus the weights of the question's word features
    and, when ``encoder`` names the embedder of the question's vector, ``embed_weights`` times
    that vector scaled by ``embed_scale`` (the scale it was fitted at)."""

    classes: tuple[str, ...]
    vocabulary: dict[str, int]
    weights: tuple[tuple[float, ...], ...]  # per feature, one weight per class
    bias: tuple[float, ...]
    encoder: str = ""  # the embedding model ``embed_weights`` read; "" for words alone
    embed_scale: float = 1.0
    embed_weights: tuple[tuple[float, ...], ...] = ()  # per class, one weight per dimension

    def reads(self, encoder: str, vector: np.ndarray | None) -> bool:
        """Whether the embedding term applies to ``vector``, embedded by ``encoder``: the
        encoder it was fitted on, a vector of its dimension."""
        return (
            vector is not None
            and bool(self.embed_weights)
            and encoder == self.encoder
            and vector.shape[-1] == len(self.embed_weights[0])
        )

    @functools.cached_property
    def _embed_matrix(self) -> np.ndarray:
        return np.asarray(self.embed_weights, dtype=np.float32) * np.float32(self.embed_scale)

    def probabilities(
        self, question: str, vector: np.ndarray | None = None, encoder: str = ""
    ) -> dict[str, float]:
        """Each class's probability for ``question``, reading ``vector`` (its query embedding
        by ``encoder``) when the model reads that encoder's embeddings, else its words alone."""
        z = [b + w for b, w in zip(self.bias, self._word_scores(question))]
        if self.reads(encoder, vector):
            assert vector is not None
            added = self._embed_matrix @ np.asarray(vector, dtype=np.float32)
            z = [a + float(b) for a, b in zip(z, added)]
        top = max(z)
        exps = [math.exp(v - top) for v in z]
        total = sum(exps)
        return {c: e / total for c, e in zip(self.classes, exps)}

    def leans(self, term: str) -> tuple[str, float]:
        """The operation the weights of ``term``'s own words lean to most, and by how much above
        their mean over the operations ("", 0.0 when the model holds none of its words)."""
        z = self._word_scores(term)
        top = max(range(len(z)), key=z.__getitem__)
        lean = z[top] - sum(z) / len(z)
        return (self.classes[top], lean) if lean > 0 else ("", 0.0)

    def _word_scores(self, text: str) -> list[float]:
        """Each class's summed weights over ``text``'s word features (no bias)."""
        z = [0.0] * len(self.classes)
        for feature in set(features(text)):
            row = self.vocabulary.get(feature)
            if row is not None:
                z = [a + b for a, b in zip(z, self.weights[row])]
        return z

    def to_json(self) -> dict[str, object]:
        ordered = sorted(self.vocabulary, key=self.vocabulary.__getitem__)
        out: dict[str, object] = {
            "classes": list(self.classes),
            "features": ordered,
            "weights": [[round(w, 4) for w in row] for row in self.weights],
            "bias": [round(b, 4) for b in self.bias],
        }
        if self.embed_weights:
            out["encoder"] = self.encoder
            out["embed_scale"] = self.embed_scale
            out["embed_weights"] = [[round(w, 4) for w in row] for row in self.embed_weights]
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> OperationModel:
        names = [str(f) for f in data["features"]]
        return cls(
            classes=tuple(str(c) for c in data["classes"]),
            vocabulary={f: i for i, f in enumerate(names)},
            weights=tuple(tuple(float(w) for w in row) for row in data["weights"]),
            bias=tuple(float(b) for b in data["bias"]),
            encoder=str(data.get("encoder", "")),
            embed_scale=float(data.get("embed_scale", 1.0)),
            embed_weights=tuple(
                tuple(float(w) for w in row) for row in data.get("embed_weights", ())
            ),
        )


@functools.lru_cache(maxsize=2)
def load_model(path: Path = MODEL_PATH) -> OperationModel | None:
    """The words model shipped (or the one at ``path``); None when missing or unreadable."""
    try:
        return OperationModel.from_json(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def term_operation(term: str, min_lean: float) -> str:
    """The operation ``term``'s own words name (复合增长率 cagr, 平均 average), by the shipped
    words model's weights leaning to it at least ``min_lean`` above their mean; "" for none."""
    model = load_model()
    if model is None:
        return ""
    name, lean = model.leans(term)
    return name if lean >= min_lean else ""


def load_embedding_model() -> OperationModel | None:
    """The shipped model of words and the question's embedding, None when missing."""
    return load_model(EMBEDDING_MODEL_PATH)


def reads_embedding(encoder: str) -> bool:
    """Whether the shipped model reads the question embeddings of ``encoder`` (an embedder's
    name): a caller embeds the question for it only then."""
    model = load_embedding_model()
    return model is not None and bool(model.embed_weights) and model.encoder == encoder


@dataclass(frozen=True)
class Operation:
    name: str  # one of the model's classes; "span" without a model
    confidence: float
    runner_up: str = ""  # the class the model reads next most likely ("" without a model)


def asked_operation(
    question: str,
    model: OperationModel | None = None,
    vector: np.ndarray | None = None,
    encoder: str = "",
) -> Operation:
    """The operation the question asks for, with the model's probability of it.

    ``vector`` is the question's query embedding by the embedder named ``encoder``: the shipped
    model of words and embedding reads it when it was fitted on that encoder, else the words
    model reads the question (``model``, when given, is used either way, with the vector when
    it reads it)."""
    if model is None:
        embedding_model = load_embedding_model() if vector is not None else None
        if embedding_model is not None and embedding_model.reads(encoder, vector):
            model = embedding_model
        else:
            model = load_model()
    if model is None:
        return Operation("span", 0.0)
    probabilities = _of_periods(question, model.probabilities(question, vector, encoder))
    name, second = sorted(probabilities, key=probabilities.__getitem__, reverse=True)[:2]
    return Operation(name, probabilities[name], second)


def _of_periods(question: str, probabilities: dict[str, float]) -> dict[str, float]:
    """A question asking which period stands out ("2024年哪个季度毛利率最低") is answered by a
    period: of the model's readings only the largest or the smallest period's cell, as it
    weighs the two. However little weight it gives them (a year before "哪个季度" leans it to a
    change; "Which quarter of 2024…" to a value), it weighs the two apart by their word:
    "highest" 3.9e-4 against 2.0e-6, "lowest" 4.0e-6 against 6.3e-7."""
    extremes = ("year_max", "year_min")
    weight = sum(probabilities.get(name, 0.0) for name in extremes)
    if not weight or not (asks_which_period(question) and asks_for_superlative(question)):
        return probabilities
    return {k: (v / weight if k in extremes else 0.0) for k, v in probabilities.items()}
