"""Keyword side of the index: BM25 over the analyzer's tokens
(``rag_app.text.analyzer.index_tokens``), kept in segments that grow with the library.

The scores are bm25s's (method "lucene", k1 1.2, b 0.75), computed the way it computes them (the
same float32/float64 steps, the query's tokens added in order), so rankings did not move when
the index stopped being rebuilt: ``tests/index/test_keywords_incremental.py`` holds every score
equal to a fresh bm25s index over the same chunks. What changed is that the statistics
(document count, average length, document frequencies) are counted at query time over the live
postings, so an upload adds one small segment and a deletion marks chunks dead: nothing is
rebuilt from every chunk. Segments merge when a newer one grows as large as the one before
(a binary counter: O(log n) segments, each chunk merged O(log n) times). Saved beside the
catalogue as immutable segment files and a manifest (``ids.json``: the generation, the chunk
ids in catalogue order, the segments and their dead chunks), so a restart loads it.
"""

from __future__ import annotations

import json
import logging
import math
import os
import re
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from rag_app.index.keyword_segments import (
    Segment,
    build_segment,
    load_segment,
    merge_segments,
    save_segment,
    segment_files,
)
from rag_app.stage_settings import IndexSettings
from rag_app.text.language import CJK_CLASS

_log = logging.getLogger(__name__)
# A Chinese token (a word or a bigram of the index's): the index is of a Chinese library.
_CJK = re.compile(f"[{CJK_CLASS}]")

# BM25's k1 and b: ``IndexSettings.bm25_k1`` / ``bm25_b``, where their values come from.
_SCORING = IndexSettings()
# Version of the saved form; folders of another (the bm25s files before it) are rebuilt.
FORMAT = 2
MANIFEST = "ids.json"


class BM25Index:
    """A BM25 index over chunk ids, scoring with ``k1`` and ``b``; immutable: ``updated``
    returns a new index sharing the unchanged segments, so readers of the old one are never
    disturbed."""

    def __init__(
        self,
        ids: Sequence[str],
        tokens: Sequence[Sequence[str]],
        k1: float = _SCORING.bm25_k1,
        b: float = _SCORING.bm25_b,
    ) -> None:
        segments = [build_segment(ids, tokens)] if len(ids) else []
        self._setup(segments, [np.ones(s.size, dtype=bool) for s in segments], None, k1, b)

    def _setup(
        self,
        segments: list[Segment],
        live: list[np.ndarray],
        order: list[str] | None,
        k1: float,
        b: float,
    ) -> None:
        self.k1, self.b = k1, b
        self._chinese: bool | None = None
        self._segments = segments
        self._live_parts = live
        sizes = [s.size for s in segments]
        self._offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        self._live = np.concatenate(live) if live else np.zeros(0, dtype=bool)
        lengths = [s.lengths for s in segments]
        self._lengths = np.concatenate(lengths) if lengths else np.zeros(0, dtype=np.int64)
        self._n = int(self._live.sum())
        self._total = int(self._lengths[self._live].sum())
        self._ids = order
        if order is None:
            self._order = np.flatnonzero(self._live)
        else:
            where = {
                c: int(off) + n
                for s, off in zip(segments, self._offsets)
                for n, c in enumerate(s.ids)
            }
            try:
                slots = np.fromiter((where[c] for c in order), dtype=np.int64, count=len(order))
            except KeyError as exc:
                raise ValueError(f"chunk {exc} is not in the keyword index") from exc
            if len(slots) != self._n or not self._live[slots].all():
                raise ValueError("the order does not name exactly the live chunks")
            self._order = slots

    @property
    def ids(self) -> list[str]:
        """The live chunk ids, in the order ``scores`` follows (as they came unless ordered)."""
        if self._ids is None:
            self._ids = [
                c
                for s, live in zip(self._segments, self._live_parts)
                for c, alive in zip(s.ids, live.tolist())
                if alive
            ]
        return self._ids

    @classmethod
    def _made(
        cls,
        segments: list[Segment],
        live: list[np.ndarray],
        order: list[str] | None = None,
        k1: float = _SCORING.bm25_k1,
        b: float = _SCORING.bm25_b,
    ) -> BM25Index:
        index = cls.__new__(cls)
        index._setup(segments, live, order, k1, b)
        return index

    @classmethod
    def empty(cls) -> BM25Index:
        return cls._made([], [])

    # changes ------------------------------------------------------------------------------------
    def updated(
        self,
        removed: Collection[str] = (),
        added_ids: Sequence[str] = (),
        added_tokens: Sequence[Sequence[str]] = (),
        order: list[str] | None = None,
    ) -> BM25Index:
        """A new index without the ``removed`` chunks and with the added ones (a new segment),
        its ids in ``order`` when given (else live chunks in the order they came)."""
        segments = list(self._segments)
        live = list(self._live_parts)
        if removed:
            copied: set[int] = set()
            for chunk_id in removed:
                for n, segment in enumerate(segments):
                    local = segment.local(chunk_id)
                    if local is None or not live[n][local]:
                        continue
                    if n not in copied:
                        live[n] = live[n].copy()
                        copied.add(n)
                    live[n][local] = False
            # A segment mostly of deleted chunks is rewritten without them.
            for n in copied:
                if live[n].sum() * 2 < segments[n].size:
                    segments[n] = merge_segments([(segments[n], live[n])])
                    live[n] = np.ones(segments[n].size, dtype=bool)
        if len(added_ids):
            segments.append(build_segment(added_ids, added_tokens))
            live.append(np.ones(len(added_ids), dtype=bool))
        # Merge while the one before is no larger than the newest (counting live chunks).
        while len(segments) >= 2 and int(live[-2].sum()) <= int(live[-1].sum()):
            merged = merge_segments([(segments[-2], live[-2]), (segments[-1], live[-1])])
            segments[-2:] = [merged]
            live[-2:] = [np.ones(merged.size, dtype=bool)]
        kept = [(s, m) for s, m in zip(segments, live) if s.size]
        segments, live = [s for s, _ in kept], [m for _, m in kept]
        return BM25Index._made(segments, live, order, self.k1, self.b)

    def ordered(
        self, order: list[str], k1: float | None = None, b: float | None = None
    ) -> BM25Index:
        """This index with its ids (and scores) in ``order``, scoring with ``k1`` and ``b`` when
        given; raises ValueError unless ``order`` names exactly the live chunks."""
        k1, b = self.k1 if k1 is None else k1, self.b if b is None else b
        return BM25Index._made(self._segments, self._live_parts, order, k1, b)

    @property
    def segments(self) -> int:
        return len(self._segments)

    # scoring ------------------------------------------------------------------------------------
    @property
    def holds_chinese(self) -> bool:
        """Whether any chunk's tokens are Chinese words (read once per index)."""
        if self._chinese is None:
            self._chinese = any(_CJK.match(t) for s in self._segments for t in s.terms)
        return self._chinese

    def holds(self, term: str) -> bool:
        """Whether a chunk's tokens hold ``term`` (a chunk deleted since may still count)."""
        return any(term in segment.terms for segment in self._segments)

    def scores(self, query_tokens: Sequence[str]) -> np.ndarray:
        """BM25 score of every chunk (in ``ids`` order); zeros for an empty index or query."""
        if not self._n or not query_tokens:
            return np.zeros(self._n, dtype=np.float32)
        out = np.zeros(len(self._live), dtype=np.float32)
        n_docs = self._n
        avg_len = self._total / n_docs
        cache: dict[str, tuple[np.ndarray, np.ndarray] | None] = {}
        for token in query_tokens:
            if token not in cache:
                cache[token] = self._term_scores(token, n_docs, avg_len)
            found = cache[token]
            if found is not None:
                np.add.at(out, found[0], found[1])
        return out[self._order]

    def _term_scores(
        self, token: str, n_docs: int, avg_len: float
    ) -> tuple[np.ndarray, np.ndarray] | None:
        """(slots, float32 scores) of a term's live postings; None when no live chunk has it.
        The steps follow bm25s (idf in float64 stored as float32, the tf part in float64)."""
        slot_parts, tf_parts = [], []
        for segment, offset in zip(self._segments, self._offsets):
            found = segment.postings(token)
            if found is not None and len(found[0]):
                slot_parts.append(found[0].astype(np.int64) + offset)
                tf_parts.append(found[1])
        if not slot_parts:
            return None
        slots = np.concatenate(slot_parts)
        tfs = np.concatenate(tf_parts)
        alive = self._live[slots]
        slots, tfs = slots[alive], tfs[alive]
        df = len(slots)
        if not df:
            return None
        idf = np.float32(math.log(1 + (n_docs - df + 0.5) / (df + 0.5)))
        lengths = self._lengths[slots].astype(np.float64)
        tf64 = tfs.astype(np.float64)
        k1, b = self.k1, self.b
        tfc = tf64 / (k1 * ((1 - b) + b * lengths / avg_len) + tf64)
        return slots, (np.float64(idf) * tfc).astype(np.float32)

    def search(
        self, query_tokens: Sequence[str], k: int, allowed: set[str] | None = None
    ) -> list[tuple[str, float]]:
        """Top ``k`` (chunk id, score) with a positive score, among ``allowed`` ids if given."""
        mask = None
        if allowed is not None:
            mask = np.fromiter((i in allowed for i in self.ids), dtype=bool, count=len(self.ids))
        return self.search_mask(query_tokens, k, mask)

    def search_mask(
        self, query_tokens: Sequence[str], k: int, mask: np.ndarray | None = None
    ) -> list[tuple[str, float]]:
        """``search`` with the allowed chunks as a boolean mask over ``ids``."""
        scores = self.scores(query_tokens)
        if mask is not None:
            scores = np.where(mask, scores, 0.0)
        positive = int((scores > 0).sum())
        if not positive:
            return []
        k = min(k, positive)
        top = np.argpartition(-scores, k - 1)[:k]
        top = top[np.argsort(-scores[top], kind="stable")]
        return [(self.ids[i], float(scores[i])) for i in top]

    # on disk ------------------------------------------------------------------------------------
    def save(self, folder: Path, generation: int, extra: Mapping[str, Any] | None = None) -> None:
        """Write the segments not yet on disk and then the manifest (replaced atomically), and
        remove segment files the manifest does not name; ``extra`` is kept in the manifest."""
        folder.mkdir(parents=True, exist_ok=True)
        for segment in self._segments:
            save_segment(folder, segment)
        manifest = {
            **(extra or {}),
            "format": FORMAT,
            "generation": generation,
            "ids": self.ids,
            "segments": [s.name for s in self._segments],
            "dead": {
                s.name: np.flatnonzero(~live).tolist()
                for s, live in zip(self._segments, self._live_parts)
                if not live.all()
            },
        }
        tmp = folder / f"{MANIFEST}.tmp"
        tmp.write_text(json.dumps(manifest, ensure_ascii=False))
        os.replace(tmp, folder / MANIFEST)
        keep = {f"seg-{s.name}.npz" for s in self._segments}
        for path in folder.glob("seg-*.npz"):  # the folder holds others' files too (exact.py)
            if path.name not in keep:
                path.unlink(missing_ok=True)

    @classmethod
    def load(cls, folder: Path, generation: int) -> BM25Index | None:
        """The saved index when it is of ``generation``; None when absent, stale or unreadable."""
        found = cls.load_any(folder)
        if found is None or found[1].get("generation") != generation:
            return None
        return found[0]

    @classmethod
    def load_any(cls, folder: Path) -> tuple[BM25Index, dict[str, Any]] | None:
        """The saved index whatever its generation, with its manifest; None when absent,
        of an older form or unreadable."""
        try:
            meta = json.loads((folder / MANIFEST).read_text())
            if meta.get("format") != FORMAT:
                return None
            files = segment_files(folder)
            segments = [load_segment(folder, n) for n in meta["segments"] if n in files]
            if len(segments) != len(meta["segments"]):
                raise ValueError("a segment file is missing")
            live = []
            for segment in segments:
                mask = np.ones(segment.size, dtype=bool)
                mask[np.asarray(meta["dead"].get(segment.name, []), dtype=np.int64)] = False
                live.append(mask)
            return cls._made(segments, live, list(meta["ids"])), meta
        except (OSError, ValueError, KeyError, TypeError) as exc:
            _log.info("keyword index at %s not loaded (%s); rebuilding", folder, exc)
            return None
