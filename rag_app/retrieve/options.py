"""The strategies' knobs (``StrategyOptions``) and how settings fill them in (``options_from``).

Every recall, scoring and routing stage of the smart and hybrid strategies reads its numbers
from one ``StrategyOptions``; each knob can be turned off for the ablation in ``make eval``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from rag_app.config import Settings
from rag_app.retrieve.routing import RoutingCues


@dataclass(frozen=True)
class StrategyOptions:
    """Knobs of the strategies; each can be turned off for the ablation."""

    # Candidates each signal contributes before fusion.
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
    # Smart mode: route to one content type at or above this confidence (seed 000's 0.7).
    smart_threshold: float = 0.7
    cues: RoutingCues = field(default_factory=RoutingCues)

    def weight_of(self, chunk_type: str) -> float:
        """The type's weight in ``type_weights``; 0.3 for a type not listed."""
        return dict(self.type_weights).get(chunk_type, 0.3)


def options_from(settings: Settings | None, **overrides: object) -> StrategyOptions:
    """``settings.retrieval`` (the defaults without settings) with the settings' extra routing
    cues added, then ``overrides`` (field name -> value) applied.

    Raises TypeError for an override that names no field.
    """
    base = StrategyOptions()
    if settings is not None:
        base = replace(
            settings.retrieval,
            cues=settings.retrieval.cues.with_pairs(
                settings.extra_explicit_cues, settings.extra_implicit_cues
            ),
        )
    return replace(base, **overrides) if overrides else base  # type: ignore[arg-type]
