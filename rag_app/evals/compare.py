"""Two runs compared: per question what changed (regressions first), and each metric's delta.

Questions are matched by their id (two runs of one set, or of two sets sharing ids). A question
``regressed`` when the first run passed it and the second does not, ``improved`` the other way;
``changed`` when both agree on passing but its rank on the gold or its answer differs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass

from rag_app.evals.scoring import LOWER_IS_BETTER, QuestionResult, RunMetrics
from rag_app.evals.store import EvalStore

ORDER = ("regressed", "improved", "changed", "same")


@dataclass(frozen=True)
class QuestionChange:
    id: str
    question: str
    change: str  # regressed / improved / changed / same
    before: QuestionResult
    after: QuestionResult
    before_position: int = 0
    after_position: int = 0


@dataclass(frozen=True)
class MetricDelta:
    """One metric in both runs; ``better`` is True when the second run's is better, False when
    worse, None when equal or not comparable."""

    name: str
    before: float | None
    after: float | None
    delta: float | None
    better: bool | None


@dataclass(frozen=True)
class RunComparison:
    changes: tuple[QuestionChange, ...]
    metrics: tuple[MetricDelta, ...]
    only_before: tuple[str, ...] = ()
    only_after: tuple[str, ...] = ()

    def count(self, change: str) -> int:
        return sum(1 for c in self.changes if c.change == change)


def compare_results(
    before: Sequence[tuple[int, QuestionResult]],
    after: Sequence[tuple[int, QuestionResult]],
    before_metrics: RunMetrics | None,
    after_metrics: RunMetrics | None,
) -> RunComparison:
    """Compare two runs' (position, result) lists and metrics."""
    by_id = {r.id: (p, r) for p, r in after}
    changes = []
    for position, old in before:
        if old.id not in by_id:
            continue
        new_position, new = by_id[old.id]
        changes.append(
            QuestionChange(
                old.id, old.question, _change(old, new), old, new, position, new_position
            )
        )
    changes.sort(key=lambda c: (ORDER.index(c.change), c.before_position))
    ids_before = {r.id for _, r in before}
    return RunComparison(
        changes=tuple(changes),
        metrics=metric_deltas(before_metrics, after_metrics),
        only_before=tuple(r.id for _, r in before if r.id not in by_id),
        only_after=tuple(r.id for _, r in after if r.id not in ids_before),
    )


def _change(old: QuestionResult, new: QuestionResult) -> str:
    if old.passed and not new.passed:
        return "regressed"
    if new.passed and not old.passed:
        return "improved"
    if old.rank != new.rank or old.answer.strip() != new.answer.strip():
        return "changed"
    return "same"


def metric_deltas(before: RunMetrics | None, after: RunMetrics | None) -> tuple[MetricDelta, ...]:
    """Each metric of the two runs with its delta and direction (latency and errors are better
    lower)."""
    old = asdict(before) if before is not None else {}
    new = asdict(after) if after is not None else {}
    out = []
    for name in asdict(RunMetrics()):
        a, b = old.get(name), new.get(name)
        if a is None and b is None:
            continue
        delta = round(b - a, 4) if a is not None and b is not None else None
        better = None
        if delta and not name.startswith("n"):
            better = (delta < 0) if name in LOWER_IS_BETTER else (delta > 0)
        elif delta and name == "n_errors":
            better = delta < 0
        out.append(MetricDelta(name, a, b, delta, better))
    return tuple(out)


def compare_runs(store: EvalStore, before_id: int, after_id: int) -> RunComparison:
    """The stored runs ``before_id`` and ``after_id`` compared. Raises KeyError for a run that
    is not stored."""
    runs = [store.run(before_id), store.run(after_id)]
    if runs[0] is None or runs[1] is None:
        raise KeyError(before_id if runs[0] is None else after_id)
    before = [(r.position, r.result) for r in store.results(before_id)]
    after = [(r.position, r.result) for r in store.results(after_id)]
    return compare_results(before, after, runs[0].metrics, runs[1].metrics)
