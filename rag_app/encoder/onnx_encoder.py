"""multilingual-e5-small on ONNX Runtime: the exported graph (``onnx_build``), the model's own
``tokenizer.json`` through the ``tokenizers`` package, mean pooling and normalising in numpy.

The same computation as the sentence-transformers folder (prefixes ``query: `` / ``passage: ``,
truncation at 512 tokens, mean over non-padding tokens, L2 norm), so fp32 vectors agree with
torch's to cosine 1.000 and int8's to about 0.98 (docs/ENCODER.md).

Two ONNX Runtime sessions over one file: queries run on one thread (on 2 shared cores a second
thread costs more than it gains, RECIPES "Threads"), ingestion on ``ingest_threads``. The query
session loads at ``warm_up``; the ingestion one on the first passages. Loading
holds a lock; encoding does not, so a query is not queued behind an ingestion batch.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from rag_app.encoder.e5_folder import MAX_SEQ_LENGTH, PROMPTS

# int8 runs one text per batch. Its activations are quantised with one scale per batch
# (DynamicQuantizeLinear), so in a batch a text's vector would depend on its batchmates (up to
# 0.015 per component, failing the Embedder contract); alone it is the same every time. It was
# also the fastest here: 26-30 passages/s at 1 vs 17-18 at 32 (293 tatqa_dev chunks, 2 threads).
INT8_BATCH_SIZE = 1


class OnnxEmbedder:
    """An ``Embedder`` running an exported e5 graph with ONNX Runtime; loads lazily, once.

    ``name`` is the model's (the folder name), not the runtime's: the runtimes compute the same
    vectors to within quantisation noise, so a library built by one is searched by another
    (docs/ENCODER.md, "Switching runtimes"). ``runtime`` tells them apart.
    """

    def __init__(
        self,
        model_dir: Path,
        onnx_file: Path,
        *,
        runtime: str,
        batch_size: int = 32,
        query_threads: int = 1,
        ingest_threads: int = 2,
    ) -> None:
        self.model_dir = Path(model_dir)
        self.onnx_file = Path(onnx_file)
        self.name = self.model_dir.name
        self.runtime = runtime
        self.batch_size = INT8_BATCH_SIZE if runtime == "onnx-int8" else max(1, batch_size)
        self.query_threads = max(1, query_threads)
        self.ingest_threads = max(1, ingest_threads)
        self._lock = threading.Lock()
        self._tokenizer: Any = None
        self._sessions: dict[int, Any] = {}
        self._dimension: int | None = None

    # -- loading ---------------------------------------------------------------------------

    def _session(self, threads: int) -> Any:
        """The session running on ``threads`` intra-op threads (made once; call under the lock)."""
        session = self._sessions.get(threads)
        if session is None:
            import onnxruntime as ort

            options = ort.SessionOptions()
            options.intra_op_num_threads = threads
            options.inter_op_num_threads = 1
            options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
            # The graph was fused offline (onnx_build); basic optimisation is enough at load.
            options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
            # Do not busy-wait between runs: the cores are shared with the UI and other work.
            options.add_session_config_entry("session.intra_op.allow_spinning", "0")
            session = ort.InferenceSession(
                str(self.onnx_file), options, providers=["CPUExecutionProvider"]
            )
            self._sessions[threads] = session
        return session

    def _load_tokenizer(self) -> Any:
        if self._tokenizer is None:
            from tokenizers import Tokenizer

            tokenizer = Tokenizer.from_file(str(self.model_dir / "tokenizer.json"))
            tokenizer.enable_truncation(max_length=MAX_SEQ_LENGTH)
            self._tokenizer = tokenizer
            config = json.loads((self.model_dir / "config.json").read_text(encoding="utf-8"))
            self._dimension = int(config["hidden_size"])
        return self._tokenizer

    def _ready(self, threads: int) -> tuple[Any, Any]:
        """The tokenizer and the session for ``threads``, loaded once under the lock; running
        them needs no lock (both are safe to call from several threads)."""
        with self._lock:
            return self._load_tokenizer(), self._session(threads)

    def warm_up(self) -> None:
        """Load the tokenizer and the query session and run one query; later calls are free."""
        if self.query_threads in self._sessions:
            return
        self._run(["warm up"], PROMPTS["query"], self.query_threads)

    @property
    def dimension(self) -> int:
        if self._dimension is None:
            with self._lock:
                self._load_tokenizer()
        return int(self._dimension or 0)

    # -- encoding --------------------------------------------------------------------------

    def _run(self, texts: Sequence[str], prefix: str, threads: int) -> np.ndarray:
        """Tokenise, batch by length (less padding), run, mean-pool, normalise, unsort.

        Texts one at a time (the int8 model's batch) on several threads go as that many
        one-thread runs side by side, not one run spread over the threads: a short run leaves
        intra-op threads idle, and side by side was 2.3x the throughput here (two cores, 240
        tatqa chunks, the same vectors to the bit: each text runs alone either way)."""
        if threads > 1 and self.batch_size == 1 and len(texts) > 1:
            from concurrent.futures import ThreadPoolExecutor

            shards = [list(range(len(texts)))[i::threads] for i in range(threads)]
            with ThreadPoolExecutor(threads, thread_name_prefix="rag-encode") as pool:
                parts = list(
                    pool.map(lambda rows: self._run([texts[i] for i in rows], prefix, 1), shards)
                )
            out = np.zeros((len(texts), parts[0].shape[1]), dtype=np.float32)
            for rows, part in zip(shards, parts, strict=True):
                out[rows] = part
            return out
        tokenizer, session = self._ready(threads)
        encodings = tokenizer.encode_batch([prefix + t for t in texts], add_special_tokens=True)
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        out = np.zeros((len(texts), int(self._dimension or 0)), dtype=np.float32)
        for start in range(0, len(order), self.batch_size):
            rows = order[start : start + self.batch_size]
            width = max(len(encodings[i].ids) for i in rows)
            ids = np.ones((len(rows), width), dtype=np.int64)  # 1 = <pad> (XLM-R); masked anyway
            mask = np.zeros((len(rows), width), dtype=np.int64)
            for r, i in enumerate(rows):
                n = len(encodings[i].ids)
                ids[r, :n] = encodings[i].ids
                mask[r, :n] = 1
            (hidden,) = session.run(None, {"input_ids": ids, "attention_mask": mask})
            weights = mask[:, :, None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
            norms = np.linalg.norm(pooled, axis=1, keepdims=True)
            out[rows] = pooled / np.maximum(norms, 1e-12)
        return out

    def _encode(self, texts: Sequence[str], prefix: str, threads: int) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return self._run(list(texts), prefix, threads)

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        return self._encode(texts, PROMPTS["passage"], self.ingest_threads)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._encode(texts, PROMPTS["query"], self.query_threads)
