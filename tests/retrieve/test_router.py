"""The learned router: its arithmetic, its file, when it is used, and the model shipped."""

from __future__ import annotations

import json

import numpy as np
import pytest

from rag_app.retrieve.router import (
    MODEL_PATH,
    SCALAR_NAMES,
    RouterModel,
    load_router,
    router_input,
    scalar_vector,
)
from rag_app.retrieve.routing import FEATURES, TYPES, detect_query_type, routing_features
from rag_app.understand.analysis import analyse_query


def _model(embed: np.ndarray | None = None) -> RouterModel:
    scalar = np.zeros((3, len(SCALAR_NAMES)), dtype=np.float32)
    # each type's "explicit" feature votes for that type
    for i, t in enumerate(TYPES):
        scalar[i, SCALAR_NAMES.index(f"{t}:explicit")] = 4.0
    return RouterModel(
        classes=TYPES,
        embedder="e5-test",
        embed_scale=2.0,
        embed_weights=np.zeros((3, 0), dtype=np.float32) if embed is None else embed,
        scalar_weights=scalar,
        bias=np.zeros(3, dtype=np.float32),
    )


def _features(**named: float) -> dict[str, tuple[float, ...]]:
    return {t: (named.get(t, 0.0),) + (0.0,) * (len(FEATURES) - 1) for t in TYPES}


def test_the_probabilities_are_a_softmax_of_the_features() -> None:
    model = _model()
    probs = model.probabilities(scalar_vector(_features(table=1.0)))
    assert max(probs, key=probs.__getitem__) == "table"
    assert probs["table"] == pytest.approx(np.exp(4) / (np.exp(4) + 2))
    assert sum(probs.values()) == pytest.approx(1.0)


def test_a_type_the_library_lacks_cannot_win() -> None:
    probs = _model().probabilities(scalar_vector(_features(image=1.0)), available=("text", "table"))
    assert set(probs) == {"text", "table"} and probs["text"] == pytest.approx(0.5)


def test_the_embedding_counts_only_for_the_model_it_was_trained_with() -> None:
    embed = np.zeros((3, 4), dtype=np.float32)
    embed[TYPES.index("image")] = [1, 0, 0, 0]
    model = _model(embed)
    vector = np.array([3.0, 0, 0, 0], dtype=np.float32)
    scalars = scalar_vector(_features())
    with_vector = model.probabilities(scalars, vector, "e5-test")
    assert max(with_vector, key=with_vector.__getitem__) == "image"  # 3 x 2 (scale) x 1
    assert model.probabilities(scalars, vector, "hash-embedder")["image"] == pytest.approx(1 / 3)
    assert not model.uses_embedding("e5-test", np.zeros(5, dtype=np.float32))  # other width


def test_the_model_file_round_trips_and_names_its_features(tmp_path) -> None:  # type: ignore[no-untyped-def]
    embed = np.arange(12, dtype=np.float32).reshape(3, 4) / 10
    model = _model(embed)
    path = tmp_path / "router.json"
    path.write_text(json.dumps(model.to_json()))
    back = load_router(path)
    assert back is not None and back.classes == TYPES
    np.testing.assert_allclose(back.embed_weights, embed, atol=1e-5)
    data = model.to_json()
    data["scalar_names"] = list(reversed(SCALAR_NAMES))
    with pytest.raises(ValueError, match="retrain"):
        RouterModel.from_json(data)


def test_the_shipped_router_is_small_and_read_by_detect_query_type() -> None:
    assert MODEL_PATH.exists() and MODEL_PATH.stat().st_size < 1_000_000
    model = load_router()
    # It reads the evidence alone (docs/ROUTING.md, session 12): any library, any embedder.
    assert model is not None and model.embed_weights.size == 0 and model.embedder == ""
    for vector in (None, np.zeros(384, dtype=np.float32), np.zeros(7, dtype=np.float32)):
        assert router_input(vector, "another-model") is not None
    learned = router_input(np.zeros(384, dtype=np.float32), "multilingual-e5-small")
    assert learned is not None
    question, look = analyse_query("表6的产线一览"), ("table", "table")
    routing = detect_query_type(question, look=look, learned=learned)
    features, _ = routing_features(question, look=look)
    expected = learned.probabilities(features, TYPES)
    best = max(expected, key=expected.__getitem__)
    assert routing.detected_type == best
    assert routing.confidence == pytest.approx(expected[best], abs=0.001)


def test_a_router_reading_embeddings_needs_its_own_models_vector(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "router.json"
    path.write_text(json.dumps(_model(np.ones((3, 4), dtype=np.float32)).to_json()))
    vector = np.ones(4, dtype=np.float32)
    assert router_input(vector, "e5-test", str(path)) is not None
    assert router_input(None, "e5-test", str(path)) is None
    assert router_input(vector, "another-model", str(path)) is None
    evidence_only = tmp_path / "evidence.json"
    evidence_only.write_text(json.dumps(_model().to_json()))
    assert router_input(None, "another-model", str(evidence_only)) is not None
