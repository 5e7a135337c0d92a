"""The chunks of a knowledge-base generation as the query path needs them: every chunk id with
its document and type kept compact (numpy codes), the chunks themselves read from the catalogue
when asked for and kept in a bounded cache (chunk ids name their content, so a cached chunk is
never stale).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import chain

import numpy as np

from rag_app.models import CHUNK_TYPES, Chunk

_TYPE_CODES: dict[str, int] = {t: n for n, t in enumerate(CHUNK_TYPES)}


def type_code(chunk_type: str) -> int:
    return _TYPE_CODES.get(chunk_type, len(CHUNK_TYPES))


@dataclass(frozen=True)
class DocBlock:
    """One document's chunk ids (in order) and their type codes."""

    ids: tuple[str, ...]
    types: np.ndarray  # int8


def block_of(ids: Sequence[str], types: Sequence[str]) -> DocBlock:
    return DocBlock(tuple(ids), np.fromiter((type_code(t) for t in types), np.int8, len(types)))


class ChunkCache:
    """A bounded, thread-safe cache of ``size`` parsed chunks (``IndexSettings.cached_chunks``),
    least recently used out first."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[str, Chunk] = OrderedDict()
        self._lock = threading.Lock()

    def get_many(self, ids: Collection[str]) -> dict[str, Chunk]:
        with self._lock:
            out = {}
            for i in ids:
                chunk = self._items.get(i)
                if chunk is not None:
                    self._items.move_to_end(i)
                    out[i] = chunk
            return out

    def put(self, chunks: Collection[Chunk]) -> None:
        with self._lock:
            for chunk in chunks:
                self._items[chunk.chunk_id] = chunk
                self._items.move_to_end(chunk.chunk_id)
            while len(self._items) > self.size:
                self._items.popitem(last=False)


class ChunkMap(Mapping[str, Chunk]):
    """chunk id -> Chunk over one generation, in catalogue order (document id, then position).
    ``load`` reads chunks by id from the store; ids it does not return are absent."""

    def __init__(
        self,
        blocks: Mapping[str, DocBlock],
        load: Callable[[Sequence[str]], list[Chunk]],
        cache: ChunkCache,
    ) -> None:
        self.doc_ids = sorted(blocks)
        ordered = [blocks[d] for d in self.doc_ids]
        self.ids: list[str] = list(chain.from_iterable(b.ids for b in ordered))
        sizes = [len(b.ids) for b in ordered]
        self.types = np.concatenate([b.types for b in ordered]) if ordered else np.zeros(0, np.int8)
        self.docs = np.repeat(np.arange(len(ordered), dtype=np.int32), sizes)
        self._starts = dict(zip(self.doc_ids, np.concatenate([[0], np.cumsum(sizes)]).tolist()))
        self._sizes = dict(zip(self.doc_ids, sizes))
        self._load = load
        self._cache = cache
        self._position: dict[str, int] | None = None
        self._masks: dict[tuple[tuple[str, ...], tuple[str, ...]], np.ndarray] = {}
        self._lock = threading.Lock()

    # the compact side ---------------------------------------------------------------------------
    @property
    def position(self) -> dict[str, int]:
        """chunk id -> its place in ``ids`` (built on first use)."""
        if self._position is None:
            position = {c: n for n, c in enumerate(self.ids)}
            self._position = position
        return self._position

    def type_of(self, chunk_id: str) -> str:
        return self.type_name(int(self.types[self.position[chunk_id]]))

    @staticmethod
    def type_name(code: int) -> str:
        return CHUNK_TYPES[code] if code < len(CHUNK_TYPES) else ""

    def doc_of(self, chunk_id: str) -> str:
        return self.doc_ids[int(self.docs[self.position[chunk_id]])]

    def doc_chunk_ids(self, doc_id: str) -> list[str]:
        start = self._starts.get(doc_id)
        return [] if start is None else self.ids[start : start + self._sizes[doc_id]]

    def types_present(self) -> frozenset[str]:
        codes = np.unique(self.types).tolist()
        return frozenset(CHUNK_TYPES[c] for c in codes if c < len(CHUNK_TYPES))

    def mask(self, types: Collection[str] = (), doc_ids: Collection[str] = ()) -> np.ndarray:
        """Which chunks (in ``ids`` order) are of ``types`` and ``doc_ids`` (all when empty)."""
        key = (tuple(sorted(types)), tuple(sorted(doc_ids)))
        with self._lock:
            found = self._masks.get(key)
        if found is not None:
            return found
        mask = np.ones(len(self.ids), dtype=bool)
        if types:
            mask &= np.isin(self.types, [type_code(t) for t in types])
        if doc_ids:
            wanted = [n for n, d in enumerate(self.doc_ids) if d in set(doc_ids)]
            mask &= np.isin(self.docs, wanted)
        with self._lock:
            if len(self._masks) > 64:
                self._masks.clear()
            self._masks[key] = mask
        return mask

    # chunks -------------------------------------------------------------------------------------
    def get_many(self, ids: Collection[str]) -> dict[str, Chunk]:
        """The chunks of ``ids`` that this generation holds (one store read for those not
        cached)."""
        wanted = [i for i in ids if i in self.position]
        found = self._cache.get_many(wanted)
        missing = [i for i in wanted if i not in found]
        if missing:
            loaded = self._load(missing)
            self._cache.put(loaded)
            found.update((c.chunk_id, c) for c in loaded)
        return found

    def __getitem__(self, chunk_id: str) -> Chunk:
        found = self.get_many((chunk_id,))
        if chunk_id not in found:
            raise KeyError(chunk_id)
        return found[chunk_id]

    def __contains__(self, chunk_id: object) -> bool:
        return chunk_id in self.position

    def __iter__(self) -> Iterator[str]:
        return iter(self.ids)

    def __len__(self) -> int:
        return len(self.ids)

    def values(self) -> list[Chunk]:  # type: ignore[override]
        """Every chunk, in order (reads them all: for whole-library passes only)."""
        found = self.get_many(self.ids) if len(self.ids) <= self._cache.size else self._read_all()
        return [found[i] for i in self.ids if i in found]

    def items(self) -> list[tuple[str, Chunk]]:  # type: ignore[override]
        return [(c.chunk_id, c) for c in self.values()]

    def _read_all(self) -> dict[str, Chunk]:
        return {c.chunk_id: c for c in self._load(self.ids)}
