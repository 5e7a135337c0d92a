"""Layered recall: which candidates of a type are considered at all (seeds 003, 004).

Each type runs its layers in order (``LAYERS``); a layer after the first runs only while the type
has fewer candidates than its share of the target (``layer_targets``), and the whole pass repeats
at falling thresholds (``thresholds``) on normalised layer scores until the target is met. Below
the lowest threshold the best remaining candidates fill in, so a small library still answers.
Which candidates rank first is decided later, by the fused score (``scoring``).
"""

from __future__ import annotations

import numpy as np

from rag_app.models import LayerStep
from rag_app.retrieve.signals import Search, Signals, normalise
from rag_app.stage_settings import StrategyOptions

LAYERS = {
    "text": ("semantic", "keyword", "expansion"),
    "table": ("structure", "semantic", "keyword", "expansion"),
    "image": ("structure", "semantic", "keyword", "expansion"),
    "qa": ("semantic", "keyword", "expansion"),
}

Ranking = list[tuple[str, float]]


def recall_layers(chunk_type: str, options: StrategyOptions, signals: Signals) -> list[str]:
    """The layers recall runs for a type, in order: structure only when it is used, expansion
    only when the query has synonyms."""
    return [
        layer
        for layer in LAYERS.get(chunk_type, ("semantic", "keyword"))
        if (layer != "structure" or options.use_structure)
        and (layer != "expansion" or signals.expanded_terms)
    ]


def layer_ranking(search: Search, signals: Signals, chunk_type: str, layer: str) -> Ranking:
    """(chunk id, normalised layer score) of one layer for one type, best first, at most
    ``candidates`` of them; empty for an unknown layer."""
    s = signals
    if layer in ("keyword", "expansion", "structure"):
        if layer not in s.by_type:
            values, top = {
                "keyword": (s.bm25, s.bm25_top),
                "expansion": (s.expansion, s.expansion_top),
                "structure": (s.structure, 1.0),  # shares already in [0, 1]
            }[layer]
            s.by_type[layer] = _per_type(search, values, top)
        return s.by_type[layer].get(chunk_type, [])
    if layer == "semantic":
        low, high = s.dense_range()
        ranked = [(i, normalise(v, low, high)) for i, v in s.dense_lists.get(chunk_type, [])]
    else:
        ranked = []
    ranked.sort(key=lambda p: -p[1])
    return ranked[: search.options.candidates]


def _per_type(search: Search, values: dict[str, float], top: float) -> dict[str, Ranking]:
    """Each type's ranking of ``values`` divided by ``top`` (best first, ties in index order,
    ``candidates`` at most): one pass over the scores for all types."""
    if not top or not values:
        return {}
    chunks = search.snap.chunks
    ids = list(values)
    places = getattr(values, "places", None)
    if places is None:
        position = chunks.position
        places = np.fromiter((position[i] for i in ids), np.int64, len(ids))
    codes = chunks.types[places]
    scaled = np.fromiter(values.values(), float, len(ids)) / top
    out: dict[str, Ranking] = {}
    for code in np.unique(codes).tolist():
        chosen = np.flatnonzero(codes == code)
        order = chosen[np.argsort(-scaled[chosen], kind="stable")][: search.options.candidates]
        out[chunks.type_name(code)] = [
            (ids[j], v) for j, v in zip(order.tolist(), scaled[order].tolist())
        ]
    return out


def admit(
    chunk_type: str, target: int, lists: dict[str, Ranking], options: StrategyOptions
) -> tuple[dict[str, str], list[LayerStep]]:
    """Admitted candidate ids of a type, each with the layer that first found it, and the steps
    recall took. ``lists`` maps each layer to its ranking, in the order the layers run; without
    ``use_layers`` every listed candidate is admitted and no step is recorded."""
    layers = list(lists)
    if not options.use_layers:
        admitted: dict[str, str] = {}
        for layer in layers:
            for chunk_id, _ in lists[layer]:
                admitted.setdefault(chunk_id, layer)
        return admitted, []
    admitted, steps = _admit_by_thresholds(chunk_type, target, lists, options)
    if len(admitted) < target:
        filled = _fill(target, lists, admitted)
        admitted.update(filled)
        steps.append(
            LayerStep(
                chunk_type,
                "fill",
                0.0,
                len(filled),
                len(admitted),
                True,
                "below the lowest threshold",
            )
        )
    return admitted, steps


def _admit_by_thresholds(
    chunk_type: str, target: int, lists: dict[str, Ranking], options: StrategyOptions
) -> tuple[dict[str, str], list[LayerStep]]:
    """The layers at each threshold in turn, until the type has ``target`` candidates."""
    layers = list(lists)
    admitted: dict[str, str] = {}
    steps: list[LayerStep] = []
    targets = options.layer_targets
    for threshold in options.thresholds:
        for n, layer in enumerate(layers):
            goal = target * targets[min(n, len(targets) - 1)] if n else target
            if n and len(admitted) >= goal:
                steps.append(
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
            steps.append(
                LayerStep(chunk_type, layer, threshold, len(admitted) - before, len(admitted), True)
            )
        if len(admitted) >= target:
            break
    return admitted, steps


def _fill(target: int, lists: dict[str, Ranking], admitted: dict[str, str]) -> dict[str, str]:
    """The candidates (id -> "<layer> (fill)") that bring ``admitted`` up to ``target``."""
    # Below the lowest threshold: the best remaining candidates, so that a small
    # library still answers. Best by their layer score, whichever layer: taking one
    # layer's whole list first let its weak tail in before another layer's strong head.
    layers = list(lists)
    best: dict[str, tuple[float, int]] = {}  # id -> (best layer score, that layer)
    for n, layer in enumerate(layers):
        for chunk_id, score in lists[layer]:
            if chunk_id not in admitted and score > best.get(chunk_id, (-1.0, 0))[0]:
                best[chunk_id] = (score, n)
    # Highest score first; on ties, the earlier layer, then the id (deterministic).
    ranked = sorted(best.items(), key=lambda item: (-item[1][0], item[1][1], item[0]))
    return {
        chunk_id: f"{layers[n]} (fill)"
        for chunk_id, (_, n) in ranked[: max(0, target - len(admitted))]
    }
