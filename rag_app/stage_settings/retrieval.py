"""Retrieval's knobs (``StrategyOptions``) and smart mode's routing cues (``RoutingCues``)."""

from __future__ import annotations

from dataclasses import dataclass, field

from rag_app.text.lexicon import keyed_groups

_CUES = keyed_groups("routing_cues.txt")
EXPLICIT_CUES: dict[str, tuple[str, ...]] = {
    kind: _CUES[f"explicit {kind}"] for kind in ("table", "image", "text")
}
IMPLICIT_CUES: dict[str, tuple[str, ...]] = {
    kind: _CUES[f"implicit {kind}"] for kind in ("table", "image", "text")
}


@dataclass(frozen=True)
class RoutingCues:
    """The cue lists in use; extendable from settings."""

    # (type, cues) pairs rather than dicts, so settings holding them stay hashable.
    explicit_cues: tuple[tuple[str, tuple[str, ...]], ...] = tuple(EXPLICIT_CUES.items())
    implicit_cues: tuple[tuple[str, tuple[str, ...]], ...] = tuple(IMPLICIT_CUES.items())

    @property
    def explicit(self) -> dict[str, tuple[str, ...]]:
        """Per content type, the cues that name it outright."""
        return dict(self.explicit_cues)

    @property
    def implicit(self) -> dict[str, tuple[str, ...]]:
        """Per content type, the cues that only lean towards it."""
        return dict(self.implicit_cues)

    def extended(
        self,
        extra_explicit: dict[str, tuple[str, ...]] | None = None,
        extra_implicit: dict[str, tuple[str, ...]] | None = None,
    ) -> RoutingCues:
        explicit = {
            k: v + tuple((extra_explicit or {}).get(k, ())) for k, v in self.explicit.items()
        }
        implicit = {
            k: v + tuple((extra_implicit or {}).get(k, ())) for k, v in self.implicit.items()
        }
        return RoutingCues(tuple(explicit.items()), tuple(implicit.items()))

    def with_pairs(
        self,
        explicit: tuple[tuple[str, str], ...] = (),
        implicit: tuple[tuple[str, str], ...] = (),
    ) -> RoutingCues:
        """These cues plus (type, cue) pairs, as settings give them; unknown types are refused."""
        for kind, cue in (*explicit, *implicit):
            if kind not in self.explicit:
                raise ValueError(
                    f"routing cue {cue!r}: unknown type {kind!r}; use text/table/image"
                )

        def grouped(pairs: tuple[tuple[str, str], ...]) -> dict[str, tuple[str, ...]]:
            out: dict[str, tuple[str, ...]] = {}
            for kind, cue in pairs:
                if cue.strip():
                    out[kind] = (*out.get(kind, ()), cue.strip().lower())
            return out

        return self.extended(grouped(explicit), grouped(implicit))


@dataclass(frozen=True)
class StrategyOptions:
    """Knobs of the strategies; each can be turned off for the ablation."""

    # Candidates each signal contributes before fusion.
    candidates: int = 50
    # From this many chunks on, a type making at least ``overfetch_min_share`` of the library is
    # searched without Chroma's type filter (whose cost grows with the type's chunks: 184 ms at
    # 100k against 0.3 ms unfiltered, docs/SCALE.md) for ``candidates`` / share x
    # ``overfetch_margin`` hits, its own kept; too few of them and the filtered search runs.
    overfetch_from_chunks: int = 20_000
    overfetch_min_share: float = 0.2
    overfetch_margin: float = 2.0
    type_weights: tuple[tuple[str, float], ...] = (
        ("text", 0.4),
        ("table", 0.3),
        ("image", 0.3),
        ("qa", 0.3),
    )
    # Signal weights, measured with `make eval` (dev sets; see docs/EVALUATION.md):
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
    # retrieved once per named report and the results interleaved (``per_subject_trace``).
    use_subjects: bool = True
    # Smart mode prefers a type at or above this confidence of the learned router
    # (rag_app/retrieve/router.py): the lowest at which 5-fold wrong-type routes stay under 5%
    # on every source (tatqa 0.035, broker 0.017; at 0.7 tatqa's are 0.088): docs/ROUTING.md.
    smart_threshold: float = 0.8
    # The fitted constants' threshold (another embedder than the router's).
    constants_threshold: float = 0.8
    # Routing constants: weights of (explicit cue, implicit cue, caption match, first-look share,
    # first-look top hit) and per-type bias, fitted by ``fit_routing`` (L2 0.01) on
    # assets/broker_eval/routing_labels.jsonl, pooled and per-document first looks
    # (`python -m rag_app.evaluation.suite --fit-routing`; docs/ROUTING.md; refit when cues change).
    routing_weights: tuple[float, ...] = (1.582, 1.557, 0.994, 0.361, 1.862)
    routing_bias: tuple[tuple[str, float], ...] = (
        ("text", 0.474),
        ("table", -0.105),
        ("image", -0.369),
    )
    # Hits of the first look (the hybrid answer) whose types are routing evidence.
    routing_look: int = 10
    # Smart mode is hybrid plus a preference: a routed question's hybrid ranking and the routed
    # type's own ranking are fused by reciprocal rank (k = smart_rrf_k), the routed list
    # weighted smart_preference x the router's confidence (docs/ROUTING.md, measured per set).
    smart_preference: float = 0.5
    smart_rrf_k: int = 10
    # The learned router (rag_app/retrieve/data/router.json) decides when the question's
    # embedding comes from the model it was trained with; else the constants above.
    learned_router: bool = True
    # Another router file than the one shipped (held-out evaluation: rag_app/evaluation/router_fit.py).
    router_path: str = ""
    cues: RoutingCues = field(default_factory=RoutingCues)

    def weight_of(self, chunk_type: str) -> float:
        """The type's weight in ``type_weights``; 0.3 for a type not listed."""
        return dict(self.type_weights).get(chunk_type, 0.3)
