"""The parts of the keyword index: immutable segments of postings, merged as they accumulate.

A segment holds the term frequencies of a batch of chunks (term-major, like a Lucene segment):
for each of its terms the chunks holding it and how often. BM25 statistics (document count,
average length, document frequencies) are not stored: they are counted over the live postings
of every segment at query time, so adding or deleting chunks never rewrites what is there.
Segments are written once (``seg-<name>.npz``) and never changed on disk.
"""

from __future__ import annotations

import json
import os
import uuid
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

# What a chunk without tokens is indexed as (bm25s cannot index an empty document; the old
# index used this placeholder, which counts one token towards the average length).
EMPTY_TOKEN = "<empty>"


@dataclass(frozen=True)
class Segment:
    """Postings of ``ids`` (local doc n = ids[n]): for term ``terms[t]`` its postings are
    ``docs[indptr[t]:indptr[t + 1]]`` (ascending) with frequencies ``tfs`` alike."""

    name: str
    ids: tuple[str, ...]
    lengths: np.ndarray  # int64, tokens per chunk
    terms: dict[str, int]
    indptr: np.ndarray  # int64, len(terms) + 1
    docs: np.ndarray  # int32
    tfs: np.ndarray  # float32
    _where: dict[str, int] = field(default_factory=dict, compare=False, repr=False)

    def local(self, chunk_id: str) -> int | None:
        """The local position of ``chunk_id`` in this segment, None when it is not here."""
        if not self._where and self.ids:
            self._where.update((c, n) for n, c in enumerate(self.ids))
        return self._where.get(chunk_id)

    @property
    def size(self) -> int:
        return len(self.ids)

    def postings(self, term: str) -> tuple[np.ndarray, np.ndarray] | None:
        row = self.terms.get(term)
        if row is None:
            return None
        start, end = self.indptr[row], self.indptr[row + 1]
        return self.docs[start:end], self.tfs[start:end]


def build_segment(ids: Sequence[str], tokens: Sequence[Sequence[str]]) -> Segment:
    """A segment over ``ids`` and their analyzer tokens (an empty list as ``EMPTY_TOKEN``)."""
    terms: dict[str, int] = {}
    rows: list[int] = []
    freqs: list[int] = []
    counts: list[int] = []
    lengths = np.zeros(len(ids), dtype=np.int64)
    for n, toks in enumerate(tokens):
        toks = list(toks) or [EMPTY_TOKEN]
        lengths[n] = len(toks)
        counter = Counter(toks)
        counts.append(len(counter))
        for term, tf in counter.items():
            rows.append(terms.setdefault(term, len(terms)))
            freqs.append(tf)
    row_arr = np.asarray(rows, dtype=np.int64)
    doc_arr = np.repeat(np.arange(len(ids), dtype=np.int32), counts)
    return _from_triples(
        tuple(ids), lengths, terms, row_arr, doc_arr, np.asarray(freqs, dtype=np.float32)
    )


def _from_triples(
    ids: tuple[str, ...],
    lengths: np.ndarray,
    terms: dict[str, int],
    rows: np.ndarray,
    docs: np.ndarray,
    tfs: np.ndarray,
) -> Segment:
    # Postings arrive in document order; a stable sort by term keeps them ascending per term.
    order = np.argsort(rows, kind="stable")
    indptr = np.zeros(len(terms) + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=len(terms)), out=indptr[1:])
    return Segment(
        name=uuid.uuid4().hex[:16],
        ids=ids,
        lengths=lengths,
        terms=terms,
        indptr=indptr,
        docs=docs[order].astype(np.int32, copy=False),
        tfs=tfs[order].astype(np.float32, copy=False),
    )


def merge_segments(parts: Sequence[tuple[Segment, np.ndarray]]) -> Segment:
    """One segment holding the live chunks of ``parts`` (segment, its live mask), in order."""
    terms: dict[str, int] = {}
    ids: list[str] = []
    lengths: list[np.ndarray] = []
    rows: list[np.ndarray] = []
    docs: list[np.ndarray] = []
    tfs: list[np.ndarray] = []
    for segment, live in parts:
        new_doc = np.full(segment.size, -1, dtype=np.int64)
        kept = np.flatnonzero(live)
        new_doc[kept] = np.arange(len(ids), len(ids) + len(kept))
        ids.extend(segment.ids[i] for i in kept)
        lengths.append(segment.lengths[kept])
        remap = np.fromiter(
            (terms.setdefault(t, len(terms)) for t in segment.terms),
            dtype=np.int64,
            count=len(segment.terms),
        )
        seg_rows = np.repeat(remap, np.diff(segment.indptr))
        seg_docs = new_doc[segment.docs]
        keep = seg_docs >= 0
        rows.append(seg_rows[keep])
        docs.append(seg_docs[keep])
        tfs.append(segment.tfs[keep])
    # A term whose every posting was dropped keeps its (empty) row: harmless, it scores nothing.
    return _from_triples(
        tuple(ids),
        np.concatenate(lengths) if lengths else np.zeros(0, dtype=np.int64),
        terms,
        np.concatenate(rows) if rows else np.zeros(0, dtype=np.int64),
        np.concatenate(docs) if docs else np.zeros(0, dtype=np.int64),
        np.concatenate(tfs) if tfs else np.zeros(0, dtype=np.float32),
    )


def save_segment(folder: Path, segment: Segment) -> None:
    """Write a segment once (written beside, then renamed: a crash leaves no half file)."""
    path = folder / f"seg-{segment.name}.npz"
    if path.exists():
        return
    tmp = folder / f"seg-{segment.name}.tmp.npz"
    meta = json.dumps({"ids": list(segment.ids), "terms": list(segment.terms)}, ensure_ascii=False)
    np.savez(
        tmp,
        lengths=segment.lengths,
        indptr=segment.indptr,
        docs=segment.docs,
        tfs=segment.tfs,
        meta=np.frombuffer(meta.encode("utf-8"), dtype=np.uint8),
    )
    os.replace(tmp, path)


def load_segment(folder: Path, name: str) -> Segment:
    """The segment ``name`` saved in ``folder``; raises OSError / ValueError / KeyError."""
    with np.load(folder / f"seg-{name}.npz") as data:
        meta = json.loads(data["meta"].tobytes().decode("utf-8"))
        terms = meta["terms"]
        return Segment(
            name=name,
            ids=tuple(meta["ids"]),
            lengths=data["lengths"],
            terms={t: n for n, t in enumerate(terms)},
            indptr=data["indptr"],
            docs=data["docs"],
            tfs=data["tfs"],
        )


def segment_files(folder: Path) -> dict[str, Path]:
    """Saved segment names in ``folder`` with their files (names ending ``.tmp`` left out)."""
    try:
        found = list(folder.glob("seg-*.npz"))
    except OSError:
        return {}
    return {p.name[4:-4]: p for p in found if not p.name.endswith(".tmp.npz")}
