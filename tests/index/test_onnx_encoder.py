"""The ONNX Runtime encoder: which runtime the settings pick, the fallback to torch, and (slow)
the real export agreeing with torch on Chinese and English texts."""

from __future__ import annotations

import json
import logging
import threading
from pathlib import Path

import numpy as np
import pytest

from rag_app.config import DEFAULT_EMBEDDING_MODEL, Settings, load_settings
from rag_app.encoder.e5_build import build_e5_small, ensure_onnx_encoders
from rag_app.encoder.e5_folder import FORMAT_VERSION, MARKER_FILE
from rag_app.encoder.onnx_build import (
    FILES,
    ONNX_DIR,
    ONNX_FORMAT_VERSION,
    ONNX_MARKER,
    build_onnx,
    onnx_is_built,
)
from rag_app.encoder.onnx_encoder import OnnxEmbedder
from rag_app.index.embedder import SentenceTransformerEmbedder, load_embedder
from tests.conftest import REAL_CACHE_DIR
from tests.index.test_contracts import EmbedderContract

TEXTS = [
    "中芯国际2023年营业收入为452亿元，同比下降8.6%。",
    "今天天气很好，我们去公园散步。",
    "公司毛利率提升主要受益于产品结构优化。",
    "Revenue grew 12% year over year to $4.5 billion in fiscal 2024.",
    "The weather is nice today.",
    "净利润",
]
QUERY = "中芯国际的营收是多少"


def _fake_model(cache: Path, *, with_onnx: bool) -> Path:
    """A folder that passes the build checks (markers only): enough to test the choice."""
    model = cache / "models" / DEFAULT_EMBEDDING_MODEL
    model.mkdir(parents=True)
    (model / MARKER_FILE).write_text(json.dumps({"format_version": FORMAT_VERSION}))
    if with_onnx:
        (model / ONNX_DIR).mkdir()
        for name in FILES.values():
            (model / ONNX_DIR / name).write_bytes(b"")
        (model / ONNX_DIR / ONNX_MARKER).write_text(
            json.dumps({"format_version": ONNX_FORMAT_VERSION})
        )
    return model


# ----------------------------------------------------------------------------------------------
# Choosing the runtime (fast: nothing loads)


def test_runtime_setting_from_environment() -> None:
    assert load_settings(env={}).encoder_runtime == "onnx-int8"
    assert load_settings(env={"RAG_APP_ENCODER_RUNTIME": " Torch "}).encoder_runtime == "torch"


@pytest.mark.parametrize(
    "runtime, file", [("onnx-int8", "model_int8.onnx"), ("onnx", "model.onnx")]
)
def test_onnx_runtimes_are_chosen_when_built(tmp_path: Path, runtime: str, file: str) -> None:
    model = _fake_model(tmp_path, with_onnx=True)
    embedder = load_embedder(Settings(cache_dir=tmp_path, encoder_runtime=runtime))
    assert isinstance(embedder, OnnxEmbedder)
    assert embedder.onnx_file == model / ONNX_DIR / file
    assert embedder.runtime == runtime
    # The model's name, whatever the runtime: a library built by torch stays searchable.
    assert embedder.name == DEFAULT_EMBEDDING_MODEL


def test_torch_runtime_stays_selectable(tmp_path: Path) -> None:
    _fake_model(tmp_path, with_onnx=True)
    embedder = load_embedder(Settings(cache_dir=tmp_path, encoder_runtime="torch"))
    assert isinstance(embedder, SentenceTransformerEmbedder)
    assert embedder.name == DEFAULT_EMBEDDING_MODEL


def test_missing_onnx_falls_back_to_torch_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    _fake_model(tmp_path, with_onnx=False)
    with caplog.at_level(logging.WARNING, logger="rag_app.index.embedder"):
        embedder = load_embedder(Settings(cache_dir=tmp_path, encoder_runtime="onnx-int8"))
    assert isinstance(embedder, SentenceTransformerEmbedder)
    assert "rag-app setup" in caplog.text and "torch" in caplog.text


def test_unknown_runtime_is_refused(tmp_path: Path) -> None:
    _fake_model(tmp_path, with_onnx=True)
    with pytest.raises(ValueError, match="onnx-int8, onnx, torch"):
        load_embedder(Settings(cache_dir=tmp_path, encoder_runtime="tensorrt"))


def test_an_outdated_or_partial_export_does_not_count(tmp_path: Path) -> None:
    model = _fake_model(tmp_path, with_onnx=True)
    assert onnx_is_built(model)
    (model / ONNX_DIR / FILES["onnx-int8"]).unlink()
    assert not onnx_is_built(model)


def test_a_failed_export_leaves_torch_and_says_so(tmp_path: Path) -> None:
    lines: list[str] = []
    assert not ensure_onnx_encoders(tmp_path, progress=lines.append)  # no model there
    assert any("torch runtime still works" in line for line in lines)
    assert not (tmp_path / ONNX_DIR).exists()
    assert not list(tmp_path.glob(".onnx.building-*"))  # the staging folder is cleaned up


# ----------------------------------------------------------------------------------------------
# The real export: the model `rag-app setup` built (make test sets up first), else one built
# here into a temporary folder (slow: about 45 s on 2 cores, and 0.5 GB to delete afterwards)


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    built = REAL_CACHE_DIR / "models" / DEFAULT_EMBEDDING_MODEL
    if onnx_is_built(built):
        return built
    folder = build_e5_small(tmp_path_factory.mktemp("cache") / "models" / DEFAULT_EMBEDDING_MODEL)
    lines: list[str] = []
    assert ensure_onnx_encoders(folder, progress=lines.append), lines
    return folder


@pytest.fixture(scope="module")
def torch_vectors(model_dir: Path) -> tuple[np.ndarray, np.ndarray]:
    torch = SentenceTransformerEmbedder(str(model_dir))
    return torch.embed_passages(TEXTS), torch.embed_queries([QUERY] + TEXTS)


def _onnx(model_dir: Path, runtime: str) -> OnnxEmbedder:
    settings = Settings(cache_dir=model_dir.parent.parent, encoder_runtime=runtime)
    embedder = load_embedder(settings)
    assert isinstance(embedder, OnnxEmbedder)
    return embedder


@pytest.mark.slow
def test_build_is_idempotent(model_dir: Path) -> None:
    assert onnx_is_built(model_dir)
    before = {p.name: p.stat().st_mtime_ns for p in (model_dir / ONNX_DIR).iterdir()}
    lines: list[str] = []
    build_onnx(model_dir, progress=lines.append)
    assert lines == [f"ONNX encoders already built: {model_dir / ONNX_DIR}"]
    assert before == {p.name: p.stat().st_mtime_ns for p in (model_dir / ONNX_DIR).iterdir()}


@pytest.mark.slow
@pytest.mark.parametrize("runtime, floor", [("onnx", 0.999), ("onnx-int8", 0.98)])
def test_onnx_agrees_with_torch(
    model_dir: Path, torch_vectors: tuple[np.ndarray, np.ndarray], runtime: str, floor: float
) -> None:
    # Measured here: fp32 1.0000 on every text; int8 (per channel) 0.994-0.999 (docs/ENCODER.md).
    embedder = _onnx(model_dir, runtime)
    passages, queries = torch_vectors
    got_p = embedder.embed_passages(TEXTS)
    got_q = embedder.embed_queries([QUERY] + TEXTS)
    assert got_p.shape == passages.shape and got_p.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(got_p, axis=1), 1.0, atol=1e-5)
    assert ((got_p * passages).sum(axis=1) > floor).all()
    assert ((got_q * queries).sum(axis=1) > floor).all()
    # The order of a batch does not change a vector (batches are sorted by length inside).
    np.testing.assert_allclose(embedder.embed_passages(TEXTS[::-1])[::-1], got_p, atol=1e-5)
    # It still ranks: the query's own report before the weather.
    scores = got_p @ got_q[0]
    assert scores[0] > scores[1] and scores[0] > scores[4]


@pytest.mark.slow
def test_empty_input_and_concurrent_use(model_dir: Path) -> None:
    embedder = _onnx(model_dir, "onnx-int8")
    assert embedder.embed_queries([]).shape == (0, 384)
    expected = embedder.embed_queries([QUERY])
    results: list[np.ndarray] = []

    def work() -> None:
        embedder.warm_up()
        results.append(embedder.embed_queries([QUERY]))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 4
    for got in results:
        np.testing.assert_allclose(got, expected, atol=1e-5)


# ----------------------------------------------------------------------------------------------
# The shared Embedder contract, against both ONNX runtimes of the real export


@pytest.mark.slow
class TestOnnxFp32Embedder(EmbedderContract):
    @pytest.fixture(scope="class")  # its session made once (half a second), not per test
    def embedder(self, model_dir: Path) -> OnnxEmbedder:
        return _onnx(model_dir, "onnx")


@pytest.mark.slow
class TestOnnxInt8Embedder(EmbedderContract):
    @pytest.fixture(scope="class")
    def embedder(self, model_dir: Path) -> OnnxEmbedder:
        return _onnx(model_dir, "onnx-int8")
