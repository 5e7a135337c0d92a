"""Smart and hybrid retrieval over all content types, with layered recall (seeds 000, 003, 004).

How a query is answered:
1. Signals are computed once: the query vector, BM25 over every chunk, and the synonym
   expansion (finance terms).
2. Per type (text / table / image / qa), in parallel, layered recall admits candidates: text =
   semantic, then keyword, then expansion; tables and figures = structure (caption, headers, row
   labels, document title), then semantic, keyword, expansion. A layer runs only while the type
   has fewer candidates than its target, and thresholds fall back 0.7 -> 0.6 -> 0.5 (seed 003)
   on *normalised* scores: e5 similarities sit in a narrow band (0.78-0.93 here), so a raw 0.7
   would admit everything. Each score is rescaled per query to [0, 1] between the weakest and the
   best candidate of that signal over all types, which is model-independent.
3. Every admitted candidate is scored on all signals (exact dense similarity, BM25, structure,
   expansion), not only the one that found it, and the weighted sum ranks it: layers decide who
   is considered, the fused score decides the order.
4. Across types: per-type weights (seed 000: text 0.4, table 0.3, image 0.3) damp a type's
   score mildly, each type with a strong candidate keeps at least one place in the top k, and
   duplicates (same source items) are removed.
Smart mode detects the query's type first and, at or above the threshold, searches that type
alone, falling back to hybrid when that type finds too little.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar, cast

import numpy as np

from rag_app.config import Settings
from rag_app.index.keywords import tokenize
from rag_app.index.library import Library, Snapshot
from rag_app.ingest.tables import column_labels, parse_table
from rag_app.models import (
    NO_FILTER,
    Chunk,
    Hit,
    LayerStep,
    RetrievalTrace,
    Routing,
    SearchFilter,
    Signal,
)
from rag_app.retrieve.expansion import FINANCE_SYNONYMS
from rag_app.retrieve.routing import RoutingCues, detect_query_type
from rag_app.terms import document_subjects, named_subjects

LAYERS = {
    "text": ("semantic", "keyword", "expansion"),
    "table": ("structure", "semantic", "keyword", "expansion"),
    "image": ("structure", "semantic", "keyword", "expansion"),
    "qa": ("semantic", "keyword", "expansion"),
}
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*%?")


@dataclass(frozen=True)
class StrategyOptions:
    """Knobs of the strategies; each can be turned off for the ablation."""

    candidates: int = 50
    type_weights: tuple[tuple[str, float], ...] = (
        ("text", 0.4),
        ("table", 0.3),
        ("image", 0.3),
        ("qa", 0.3),
    )
    # Signal weights, measured with `make eval` (dev sets; see README "Retrieval quality"):
    # keywords carry more than e5-small similarity on both Chinese news and English reports
    # (dense alone: r@5 0.84 / 0.69; bm25 alone 0.93 / 0.74), yet dense still adds what
    # keywords miss on English tables.
    dense_weight: float = 0.3
    bm25_weight: float = 0.7
    structure_weight: float = 0.4
    expansion_weight: float = 0.15
    # Reranking from signals we have (no cross-encoder ships offline): numbers of the query
    # found in the chunk, and verbatim phrases.
    rerank_weight: float = 0.1
    # Phrase evidence: the share of the query's character trigrams (Chinese) and word bigrams
    # (other scripts) found verbatim in the chunk; exact phrasing is what BM25's bag of words
    # cannot see.
    phrase_weight: float = 1.5
    # A table ranks at least this share of the score of the paragraph that introduces it ("The
    # following table shows ...", "盈利预测见下表"): such a paragraph is short and says in words what
    # the table holds, so it often outranks the table it leads to, whose numbers hold the answer.
    # Measured on tatqa pooled: answer_in_context 0.926 -> 0.938 (0.937 at 0.8 and at 1.0);
    # neutral on crud (no tables) and broker. 0 turns it off.
    intro_weight: float = 0.9
    # Smart mode's single-type search: a hit gains this share of its document's best chunk score
    # over every type (the report a question means is often told by its paragraphs). The same
    # lift in hybrid mode measured no gain (tatqa pooled r@5 0.798 -> 0.796), so it is not used
    # there.
    doc_weight_single: float = 0.5
    # How strongly the type weights damp scores: 0 = not at all, 1 = multiply by w/max(w).
    # Off by default: damping tables and figures against text cost r@1 on every dev set
    # (tatqa doc 0.911 -> 0.896); the weights still order the quotas.
    type_weight_strength: float = 0.3
    thresholds: tuple[float, ...] = (0.7, 0.6, 0.5)
    # Seed 004: a layer starts only while the type has fewer than this share of its target.
    layer_targets: tuple[float, ...] = (0.8, 0.7, 0.6)
    # Candidates each type's layered recall aims for, as a multiple of k (at least 10): the
    # layers stop early only once the type has this many, so a strong first layer cannot
    # crowd out what the keyword layer would add.
    recall_factor: float = 3.0
    use_layers: bool = True
    use_structure: bool = True
    use_expansion: bool = True
    use_type_weights: bool = False
    use_quotas: bool = True
    use_rerank: bool = True
    # A question naming two or more reports' subjects ("中芯国际和华虹半导体的毛利率") is
    # retrieved once per named report and the results interleaved (``per_subject_hits``).
    use_subjects: bool = True
    smart_threshold: float = 0.7
    cues: RoutingCues = field(default_factory=RoutingCues)

    def weight_of(self, chunk_type: str) -> float:
        return dict(self.type_weights).get(chunk_type, 0.3)


def options_from(settings: Settings | None, **overrides: object) -> StrategyOptions:
    base = StrategyOptions()
    if settings is not None:
        base = replace(
            base,
            candidates=settings.candidate_k,
            smart_threshold=settings.smart_threshold,
            cues=RoutingCues().with_pairs(
                settings.extra_explicit_cues, settings.extra_implicit_cues
            ),
        )
    return replace(base, **overrides) if overrides else base  # type: ignore[arg-type]


# ------------------------------------------------------------------------------------------------
# Structure features of tables and figures, computed once per knowledge-base generation.

T = TypeVar("T")
_feature_cache: dict[tuple[str, int, str, int], Any] = {}
_feature_lock = threading.Lock()


def _per_generation(name: str, library: Library, kb: str, build: Callable[[Snapshot], T]) -> T:
    """``build(snapshot)``, computed once per knowledge-base generation and feature ``name``
    (the entries of older generations are dropped when a newer one is built)."""
    snap = library.snapshot(kb)
    key = (name, id(library), kb, snap.generation)
    with _feature_lock:
        if key in _feature_cache:
            return cast(T, _feature_cache[key])
    value = build(snap)
    with _feature_lock:
        for old in [k for k in _feature_cache if k[:3] == key[:3]]:
            del _feature_cache[old]
        _feature_cache[key] = value
    return value


def _doc_titles(chunks: dict[str, Chunk]) -> dict[str, str]:
    titles: dict[str, str] = {}
    for chunk in chunks.values():
        if chunk.doc_id not in titles and chunk.heading_path:
            titles[chunk.doc_id] = chunk.heading_path[0]
    return titles


def structure_tokens(library: Library, kb: str) -> dict[str, frozenset[str]]:
    """Tokens of each table's caption, column headers and row labels, and each figure's caption,
    plus the document title: what a query naming a table or chart matches."""
    return _per_generation("structure", library, kb, _structure_tokens)


def _structure_tokens(snap: Snapshot) -> dict[str, frozenset[str]]:
    titles = _doc_titles(snap.chunks)
    out: dict[str, frozenset[str]] = {}
    for chunk_id, chunk in snap.chunks.items():
        if chunk.type == "table":
            parts = [chunk.caption]
            if chunk.table_html:
                grid = parse_table(chunk.table_html)
                parts.extend(column_labels(grid))
                parts.extend(row[0] for row in grid.data_rows if row)
        elif chunk.type == "image":
            parts = [chunk.caption, chunk.description[:200]]
        else:
            continue
        parts.append(titles.get(chunk.doc_id, ""))
        out[chunk_id] = frozenset(tokenize(" ".join(p for p in parts if p)))
    return out


# How a paragraph that leads to a table ends: a colon, or words pointing at what follows.
_INTRODUCES = re.compile(
    r"[:：]\s*$|如下|下表|见表|详见|表\s*\d|following|below|as follows|table", re.IGNORECASE
)


def introduced_tables(library: Library, kb: str) -> dict[str, tuple[str, ...]]:
    """For each text chunk, the tables it introduces: those whose context paragraph (the one
    just before the table, kept on the table chunk) is part of that text chunk."""
    return _per_generation("introductions", library, kb, _introduced_tables)


def _introduced_tables(snap: Snapshot) -> dict[str, tuple[str, ...]]:
    texts: dict[str, list[Chunk]] = {}
    for chunk in snap.chunks.values():
        if chunk.type == "text":
            texts.setdefault(chunk.doc_id, []).append(chunk)
    found: dict[str, list[str]] = {}
    seen_tables: set[tuple[str, str]] = set()
    for chunk_id, chunk in sorted(snap.chunks.items(), key=lambda p: p[1].subtable_index):
        paragraph = chunk.context.strip() if chunk.type == "table" else ""
        if len(paragraph) < 8 or not _INTRODUCES.search(paragraph[-60:]):
            continue
        if chunk.parent_table_id:
            # A table split by rows is introduced once: its first part carries the lift (the
            # prompt merges whatever parts come back into one table).
            if (chunk.doc_id, chunk.parent_table_id) in seen_tables:
                continue
            seen_tables.add((chunk.doc_id, chunk.parent_table_id))
        paragraph = paragraph.removesuffix("…").strip()
        for text in texts.get(chunk.doc_id, ()):
            if paragraph in text.text:
                found.setdefault(text.chunk_id, []).append(chunk_id)
                break
    return {text_id: tuple(tables) for text_id, tables in found.items()}


# ------------------------------------------------------------------------------------------------
# Per-query signals


@dataclass
class _Signals:
    query: str
    query_tokens: list[str]
    vector: np.ndarray | None
    bm25: dict[str, float]
    bm25_top: float
    expanded_terms: list[str]
    expansion: dict[str, float] = field(default_factory=dict)
    expansion_top: float = 0.0
    dense: dict[str, float] = field(default_factory=dict)
    dense_lists: dict[str, list[tuple[str, float]]] = field(default_factory=dict)
    structure: dict[str, float] = field(default_factory=dict)

    def dense_range(self) -> tuple[float, float]:
        values = [s for lst in self.dense_lists.values() for _, s in lst]
        if not values:
            return 0.0, 1.0
        return min(values), max(values)


def _norm(value: float, low: float, high: float) -> float:
    if high <= low:
        return 1.0 if value >= high else 0.0
    return float(min(1.0, max(0.0, (value - low) / (high - low))))


class _Run:
    """One query's retrieval over one knowledge base."""

    def __init__(
        self,
        library: Library,
        kb: str,
        query: str,
        search_filter: SearchFilter,
        options: StrategyOptions,
        types: Sequence[str],
    ) -> None:
        self.library = library
        self.kb = kb
        self.query = query
        self.filter = search_filter
        self.options = options
        self.snap = library.snapshot(kb)
        self.types = [t for t in types if not search_filter.types or t in search_filter.types]
        self.steps: list[LayerStep] = []
        self.synonyms = FINANCE_SYNONYMS
        self.signals = self._signals()

    def _allowed(self, chunk: Chunk) -> bool:
        return not self.filter.doc_ids or chunk.doc_id in self.filter.doc_ids

    def _signals(self) -> _Signals:
        tokens = tokenize(self.query)
        scores = self.snap.keywords.scores(tokens)
        bm25 = {}
        for chunk_id, score in zip(self.snap.keywords.ids, scores):
            if score > 0:
                chunk = self.snap.chunks.get(chunk_id)
                if chunk is not None and self._allowed(chunk) and chunk.type in self.types:
                    bm25[chunk_id] = float(score)
        expanded = self.synonyms.expand(self.query) if self.options.use_expansion else []
        top = max(bm25.values(), default=0.0)
        signals = _Signals(
            query=self.query,
            query_tokens=tokens,
            vector=None,
            bm25=bm25,
            bm25_top=top,
            expanded_terms=expanded,
        )
        if expanded:
            extra = tokenize(" ".join(expanded))
            exp_scores = self.snap.keywords.scores(tokens + extra)
            for chunk_id, score in zip(self.snap.keywords.ids, exp_scores):
                if score > 0 and chunk_id in self.snap.chunks:
                    chunk = self.snap.chunks[chunk_id]
                    if self._allowed(chunk) and chunk.type in self.types:
                        signals.expansion[chunk_id] = float(score)
            signals.expansion_top = max(signals.expansion.values(), default=0.0)
        if self.snap.chunks:
            signals.vector = self.library.embedder.embed_queries([self.query])[0]
        if self.options.use_structure:
            query_set = set(tokens)
            # Synonyms count half: they widen the match (a query in English meets Chinese
            # captions) but must not outrank the user's own words.
            synonym_set = set(tokenize(" ".join(expanded))) - query_set
            if query_set:
                for chunk_id, words in structure_tokens(self.library, self.kb).items():
                    chunk = self.snap.chunks.get(chunk_id)
                    if chunk is None or not self._allowed(chunk) or chunk.type not in self.types:
                        continue
                    direct = len(query_set & words)
                    unmatched = len(query_set) - direct
                    via_synonyms = min(unmatched, len(synonym_set & words))
                    overlap = direct + 0.5 * via_synonyms
                    if overlap:
                        signals.structure[chunk_id] = overlap / len(query_set)
        return signals

    def dense_for(self, chunk_type: str) -> list[tuple[str, float]]:
        if self.signals.vector is None:
            return []
        found = self.library.store.query(
            self.kb,
            self.signals.vector,
            self.options.candidates,
            SearchFilter(types=(chunk_type,), doc_ids=self.filter.doc_ids),
        )
        return [(i, s) for i, s in found if i in self.snap.chunks]

    # layered recall -----------------------------------------------------------------------------
    def layer_list(self, chunk_type: str, layer: str) -> list[tuple[str, float]]:
        """(chunk id, normalised layer score) of one layer for one type, best first."""
        s = self.signals
        if layer == "semantic":
            low, high = s.dense_range()
            ranked = [(i, _norm(v, low, high)) for i, v in s.dense_lists.get(chunk_type, [])]
        elif layer == "keyword":
            ranked = (
                [
                    (i, v / s.bm25_top)
                    for i, v in s.bm25.items()
                    if self.snap.chunks[i].type == chunk_type
                ]
                if s.bm25_top
                else []
            )
        elif layer == "expansion":
            ranked = (
                [
                    (i, v / s.expansion_top)
                    for i, v in s.expansion.items()
                    if self.snap.chunks[i].type == chunk_type
                ]
                if s.expansion_top
                else []
            )
        elif layer == "structure":
            ranked = [
                (i, v) for i, v in s.structure.items() if self.snap.chunks[i].type == chunk_type
            ]
        else:
            ranked = []
        ranked.sort(key=lambda p: -p[1])
        return ranked[: self.options.candidates]

    def recall(self, chunk_type: str, target: int) -> dict[str, str]:
        """Admitted candidate ids of a type, each with the layer that first found it."""
        layers = [
            layer
            for layer in LAYERS.get(chunk_type, ("semantic", "keyword"))
            if (layer != "structure" or self.options.use_structure)
            and (layer != "expansion" or self.signals.expanded_terms)
        ]
        admitted: dict[str, str] = {}
        lists = {layer: self.layer_list(chunk_type, layer) for layer in layers}
        if not self.options.use_layers:
            for layer in layers:
                for chunk_id, _ in lists[layer]:
                    admitted.setdefault(chunk_id, layer)
            return admitted
        targets = self.options.layer_targets
        for threshold in self.options.thresholds:
            for n, layer in enumerate(layers):
                goal = target * targets[min(n, len(targets) - 1)] if n else target
                if n and len(admitted) >= goal:
                    self.steps.append(
                        LayerStep(
                            chunk_type,
                            layer,
                            threshold,
                            0,
                            len(admitted),
                            False,
                            f"enough candidates ({len(admitted)})",
                        )
                    )
                    continue
                before = len(admitted)
                for chunk_id, score in lists[layer]:
                    if score >= threshold:
                        admitted.setdefault(chunk_id, layer)
                self.steps.append(
                    LayerStep(
                        chunk_type, layer, threshold, len(admitted) - before, len(admitted), True
                    )
                )
            if len(admitted) >= target:
                break
        if len(admitted) < target:
            # Below the lowest threshold: the best remaining candidates, so that a small
            # library still answers. Best by their layer score, whichever layer: taking one
            # layer's whole list first let its weak tail in before another layer's strong head.
            before = len(admitted)
            best: dict[str, tuple[float, int]] = {}  # id -> (best layer score, that layer)
            for n, layer in enumerate(layers):
                for chunk_id, score in lists[layer]:
                    if chunk_id not in admitted and score > best.get(chunk_id, (-1.0, 0))[0]:
                        best[chunk_id] = (score, n)
            # Highest score first; on ties, the earlier layer, then the id (deterministic).
            ranked = sorted(best.items(), key=lambda item: (-item[1][0], item[1][1], item[0]))
            for chunk_id, (_, n) in ranked[: max(0, target - len(admitted))]:
                admitted[chunk_id] = f"{layers[n]} (fill)"
            self.steps.append(
                LayerStep(
                    chunk_type,
                    "fill",
                    0.0,
                    len(admitted) - before,
                    len(admitted),
                    True,
                    "below the lowest threshold",
                )
            )
        return admitted

    # scoring ------------------------------------------------------------------------------------
    def score(self, admitted: dict[str, str]) -> list[Hit]:
        s = self.signals
        o = self.options
        low, high = s.dense_range()
        missing = [i for i in admitted if i not in s.dense]
        if missing and s.vector is not None:
            for chunk_id, vec in self.library.store.vectors(self.kb, missing).items():
                s.dense[chunk_id] = float(np.dot(vec, s.vector))
        dense_rank = {i: r for r, i in enumerate(sorted(s.dense, key=lambda i: -s.dense[i]), 1)}
        bm25_rank = {i: r for r, i in enumerate(sorted(s.bm25, key=lambda i: -s.bm25[i]), 1)}
        numbers = set(_NUMBER.findall(self.query))
        phrases = query_phrases(self.query)
        max_weight = max(w for _, w in o.type_weights)
        hits = []
        for chunk_id, layer in admitted.items():
            chunk = self.snap.chunks[chunk_id]
            signals: dict[str, Signal] = {}
            dense_n = _norm(s.dense.get(chunk_id, low), low, high)
            bm25_n = s.bm25.get(chunk_id, 0.0) / s.bm25_top if s.bm25_top else 0.0
            total = o.dense_weight * dense_n + o.bm25_weight * bm25_n
            if chunk_id in s.dense:
                signals["dense"] = Signal(s.dense[chunk_id], dense_rank.get(chunk_id, 0))
            if chunk_id in s.bm25:
                signals["bm25"] = Signal(s.bm25[chunk_id], bm25_rank.get(chunk_id, 0))
            if o.use_structure and chunk_id in s.structure:
                total += o.structure_weight * s.structure[chunk_id]
                signals["structure"] = Signal(s.structure[chunk_id], 0)
            if s.expansion_top and chunk_id in s.expansion and o.use_expansion:
                exp_n = s.expansion[chunk_id] / s.expansion_top
                total += o.expansion_weight * max(0.0, exp_n - bm25_n)
                signals["expansion"] = Signal(s.expansion[chunk_id], 0)
            if o.use_rerank and o.phrase_weight and phrases:
                text = chunk.search_text.lower()
                share = sum(1 for p in phrases if p in text) / len(phrases)
                total += o.phrase_weight * share
                signals["phrase"] = Signal(share, 0)
            if o.use_rerank and numbers:
                found = sum(1 for n in numbers if n in chunk.search_text)
                bonus = found / len(numbers)
                total += o.rerank_weight * bonus
                signals["numbers"] = Signal(bonus, 0)
            weight = o.weight_of(chunk.type)
            if o.use_type_weights:
                total *= 1.0 - o.type_weight_strength * (1.0 - weight / max_weight)
            hits.append(
                Hit(
                    chunk=chunk,
                    score=round(total, 6),
                    strategy=layer,
                    signals=tuple(sorted(signals.items())),
                    weight=weight,
                    note=f"{chunk.type} · {layer}",
                )
            )
        hits.sort(key=lambda h: (-h.score, h.chunk.chunk_id))
        return hits


_CJK_RUN = re.compile(r"[\u4e00-\u9fff]{3,}")
_WORD = re.compile(r"[a-z0-9]+")


def query_phrases(query: str) -> list[str]:
    """Character trigrams of the query's Chinese runs and bigrams of its other words."""
    lowered = query.lower()
    out = [run[i : i + 3] for run in _CJK_RUN.findall(lowered) for i in range(len(run) - 2)]
    words = [w for w in _WORD.findall(lowered) if w not in _PHRASE_STOP]
    out += [f"{a} {b}" for a, b in zip(words, words[1:])]
    return list(dict.fromkeys(out))


_PHRASE_STOP = frozenset("what is the of a an in to for was were how much did does".split())


def _lift_introduced(run: _Run, hits: list[Hit]) -> list[Hit]:
    """Each table scores at least ``intro_weight`` times the paragraph introducing it, and is
    brought in when that paragraph is a hit and the table is not (layer "introduced")."""
    weight = run.options.intro_weight
    if not weight or "table" not in run.types:
        return hits
    introduced = introduced_tables(run.library, run.kb)
    by_id = {h.chunk.chunk_id: h for h in hits}
    lifts: dict[str, tuple[float, Hit]] = {}
    for hit in hits:
        for table_id in introduced.get(hit.chunk.chunk_id, ()):
            score = round(weight * hit.score, 6)
            if score > lifts.get(table_id, (0.0, hit))[0]:
                lifts[table_id] = (score, hit)
    new = [i for i in lifts if i not in by_id and run._allowed(run.snap.chunks[i])]
    scored = {h.chunk.chunk_id: h for h in run.score(dict.fromkeys(new, "introduced"))}
    changed = False
    for table_id, (score, intro) in lifts.items():
        table = by_id.get(table_id) or scored.get(table_id)
        if table is None or table.score >= score:
            continue
        by_id[table_id] = replace(
            table,
            score=score,
            signals=(*table.signals, ("introduced_by", Signal(intro.score, 0))),
            note=f"{table.note} · introduced by {intro.chunk.chunk_id}",
        )
        changed = True
    if not changed:
        return hits
    out = list(by_id.values())
    out.sort(key=lambda h: (-h.score, h.chunk.chunk_id))
    return out


def _dedupe(hits: Sequence[Hit]) -> list[Hit]:
    seen: set[tuple[str, tuple[int, ...], str]] = set()
    out = []
    for hit in hits:
        key = (
            hit.chunk.doc_id,
            hit.chunk.item_indices,
            hit.chunk.parent_table_id and str(hit.chunk.subtable_index),
        )
        if key in seen:
            continue
        seen.add(key)
        out.append(hit)
    return out


def _apply_quotas(hits: list[Hit], k: int, types: Sequence[str]) -> list[Hit]:
    """Each type whose best hit is strong (>= half the overall best) keeps a place in the top k."""
    if not hits:
        return hits
    best = hits[0].score
    top = hits[:k]
    rest = hits[k:]
    for chunk_type in types:
        if any(h.chunk.type == chunk_type for h in top):
            continue
        candidate = next((h for h in rest if h.chunk.type == chunk_type), None)
        if candidate is None or candidate.score < 0.5 * best or len(top) < k:
            continue
        # Replace the weakest hit of a type that has more than one place.
        counts: dict[str, int] = {}
        for h in top:
            counts[h.chunk.type] = counts.get(h.chunk.type, 0) + 1
        for i in range(len(top) - 1, -1, -1):
            if counts[top[i].chunk.type] > 1:
                dropped = top.pop(i)
                rest.remove(candidate)
                top.append(replace(candidate, note=candidate.note + " · quota"))
                rest.insert(0, dropped)
                break
    top.sort(key=lambda h: (-h.score, h.chunk.chunk_id))
    return top + rest


def _finalise(hits: list[Hit], k: int) -> tuple[Hit, ...]:
    return tuple(replace(h, rank=r) for r, h in enumerate(hits[:k], start=1))


def hybrid_hits(run: _Run, k: int, types: Sequence[str]) -> list[Hit]:
    target = max(10, int(k * run.options.recall_factor))
    with ThreadPoolExecutor(max_workers=min(4, len(types)) or 1) as pool:
        dense_lists = dict(zip(types, pool.map(run.dense_for, types)))
    run.signals.dense_lists = dense_lists
    for lst in dense_lists.values():
        run.signals.dense.update(lst)
    admitted: dict[str, str] = {}
    for chunk_type in types:
        for chunk_id, layer in run.recall(chunk_type, target).items():
            admitted.setdefault(chunk_id, layer)
    hits = _dedupe(_lift_introduced(run, run.score(admitted)))
    if run.options.use_quotas:
        hits = _apply_quotas(hits, k, types)
    return hits


def single_type_hits(run: _Run, k: int, chunk_type: str, types: Sequence[str]) -> list[Hit]:
    """Hits of one type, ranked with their document's evidence from every type.

    The answer is wanted from (say) a table, but which report's table is often told by its
    paragraphs: "the table" of a question names no report. Each hit of the type gains
    ``doc_weight_single`` times the best score any chunk of its document reached.
    """
    everything = hybrid_hits(run, max(k * 3, 30), types)
    best: dict[str, float] = {}
    for hit in everything:
        best[hit.chunk.doc_id] = max(best.get(hit.chunk.doc_id, 0.0), hit.score)
    weight = run.options.doc_weight_single
    ranked = [
        replace(
            h,
            score=round(h.score + weight * best[h.chunk.doc_id], 6),
            signals=h.signals + (("document", Signal(best[h.chunk.doc_id], 0)),),
        )
        for h in everything
        if h.chunk.type == chunk_type
    ]
    ranked.sort(key=lambda h: (-h.score, h.chunk.chunk_id))
    return ranked


def _types_present(library: Library, kb: str) -> tuple[str, ...]:
    present = {c.type for c in library.snapshot(kb).chunks.values()}
    return tuple(t for t in ("text", "table", "image", "qa") if t in present)


def caption_matches(run: _Run, minimum: float = 0.6) -> dict[str, list[str]]:
    """Captions (tables, figures) that cover most of the query's words: routing evidence."""
    out: dict[str, list[str]] = {}
    for chunk_id, share in sorted(run.signals.structure.items(), key=lambda p: -p[1]):
        chunk = run.snap.chunks[chunk_id]
        if share >= minimum and chunk.caption and len(run.signals.query_tokens) >= 2:
            cap_tokens = set(tokenize(chunk.caption))
            if len(cap_tokens & set(run.signals.query_tokens)) >= 2:
                out.setdefault(chunk.type, []).append(chunk.caption)
    return out


def subjects_by_document(library: Library, kb: str) -> dict[str, frozenset[str]]:
    """What each document is about (the leading name of its title: 中芯国际 of
    "中芯国际（688981.SH）深度报告"), per knowledge-base generation; documents without one are
    left out."""

    def build(snap: Snapshot) -> dict[str, frozenset[str]]:
        return {d: w for d, w in document_subjects(snap.chunks.values()).items() if w}

    return _per_generation("subjects", library, kb, build)


def _interleave(per_subject: Sequence[tuple[str, Sequence[Hit]]], k: int) -> list[Hit]:
    """The subjects' hits taking turns (first of each, then second of each, ...), so neither
    named report fills the top. A turn is one source of the prompt: the other retrieved parts of
    a split table come with its first part (the prompt merges them back). Scores are each
    subject's scaled so its best equals the overall best, then capped to never rise down the
    list (the prompt takes sources by score). A chunk found for two subjects keeps its first
    place."""
    lists = [(subject, list(hits)) for subject, hits in per_subject if hits and hits[0].score > 0]
    if not lists:
        return []
    best = max(hits[0].score for _, hits in lists)
    out: list[Hit] = []
    seen: set[str] = set()
    ceiling = best
    cursors = [0] * len(lists)
    while any(cursors[i] < len(hits) for i, (_, hits) in enumerate(lists)):
        for i, (subject, hits) in enumerate(lists):
            while cursors[i] < len(hits) and hits[cursors[i]].chunk.chunk_id in seen:
                cursors[i] += 1
            if cursors[i] >= len(hits):
                continue
            first = hits[cursors[i]]
            table = (first.chunk.doc_id, first.chunk.parent_table_id)
            turn = [first]
            if first.chunk.parent_table_id:
                turn += [
                    h
                    for h in hits[cursors[i] + 1 :]
                    if (h.chunk.doc_id, h.chunk.parent_table_id) == table
                    and h.chunk.chunk_id not in seen
                ]
            for hit in turn:
                seen.add(hit.chunk.chunk_id)
                ceiling = min(ceiling, hit.score * best / hits[0].score)
                note = (f"{hit.note}; " if hit.note else "") + f"retrieved for {subject}"
                out.append(replace(hit, score=ceiling, note=note))
    return out[:k]


def per_subject_trace(
    library: Library,
    kb: str,
    query: str,
    mode: str,
    k: int,
    search_filter: SearchFilter,
    settings: Settings | None,
    options: StrategyOptions,
    named: dict[str, tuple[str, ...]],
) -> RetrievalTrace:
    """Retrieval for a query naming several reports: once per named subject, within that
    subject's documents and without the other names (they only pull the search towards the
    other report), the results interleaved."""
    started = time.perf_counter()
    single = replace(options, use_subjects=False)
    traces = []
    for subject, doc_ids in named.items():
        sub_query = query
        for other in named:
            if other != subject:
                sub_query = sub_query.replace(other, " ")
        sub_filter = replace(search_filter, doc_ids=doc_ids)
        trace = retrieve(library, kb, sub_query, mode, k, sub_filter, settings, single)
        traces.append((subject, trace))
    hits = _interleave([(subject, t.hits) for subject, t in traces], k)
    first = traces[0][1]
    note = f"named reports {', '.join(named)}: retrieved for each separately and interleaved"
    return RetrievalTrace(
        query=query,
        mode=mode,
        hits=_finalise(hits, k),
        routing=first.routing,
        layers=tuple(step for _, t in traces for step in t.layers),
        notes=(note, *(n for _, t in traces for n in t.notes)),
        expanded_terms=first.expanded_terms,
        ms=(time.perf_counter() - started) * 1000,
    )


def retrieve(
    library: Library,
    kb: str,
    query: str,
    mode: str = "hybrid",
    k: int = 10,
    search_filter: SearchFilter = NO_FILTER,
    settings: Settings | None = None,
    options: StrategyOptions | None = None,
) -> RetrievalTrace:
    """Retrieve the top ``k`` hits of all types (hybrid) or of the detected type (smart).

    Raises ValueError for an unknown mode or an empty query.
    """
    if not query.strip():
        raise ValueError("the query is empty")
    if mode not in ("smart", "hybrid"):
        raise ValueError(f"unknown mode {mode!r}; use smart or hybrid")
    options = options or options_from(settings)
    if options.use_subjects:
        named = named_subjects(query, subjects_by_document(library, kb), search_filter.doc_ids)
        if len(named) >= 2:
            return per_subject_trace(
                library, kb, query, mode, k, search_filter, settings, options, named
            )
    started = time.perf_counter()
    types = _types_present(library, kb)
    if search_filter.types:
        types = tuple(t for t in types if t in search_filter.types)
    if not types:
        return RetrievalTrace(
            query=query, mode=mode, hits=(), notes=("the knowledge base has no documents",)
        )
    run = _Run(library, kb, query, search_filter, options, types)
    routing: Routing | None = None
    notes: list[str] = []
    hits: list[Hit]
    if mode == "smart":
        routing = detect_query_type(
            query, options.smart_threshold, options.cues, caption_matches(run), available=types
        )
        if routing.single_type:
            single = single_type_hits(run, k, routing.detected_type, types)
            strong = [h for h in single if h.score >= 0.3]
            if len(strong) >= min(3, k):
                hits = single
                notes.append(f"smart: {routing.detected_type} only")
            else:
                notes.append(
                    f"smart: {routing.detected_type} found {len(strong)} strong hits; "
                    "fell back to hybrid"
                )
                run.steps.clear()
                hits = hybrid_hits(run, k, types)
        else:
            hits = hybrid_hits(run, k, types)
    else:
        hits = hybrid_hits(run, k, types)
    return RetrievalTrace(
        query=query,
        mode=mode,
        hits=_finalise(hits, k),
        routing=routing,
        layers=tuple(run.steps),
        notes=tuple(notes),
        expanded_terms=tuple(run.signals.expanded_terms),
        ms=(time.perf_counter() - started) * 1000,
    )


@dataclass
class StrategyRetriever:
    """Adapter giving smart/hybrid the Retriever interface used by search and eval."""

    library: Library
    kb: str
    mode: str
    settings: Settings | None = None
    options: StrategyOptions | None = None
    name: str = ""

    def retrieve(self, query: str, k: int, search_filter: SearchFilter = NO_FILTER) -> list[Hit]:
        trace = retrieve(
            self.library, self.kb, query, self.mode, k, search_filter, self.settings, self.options
        )
        return list(trace.hits)
