"""``rag-app eval --answers``: each question's offline answer, its short answer and scale
(``rag_app.answer.short``), scored against the gold answer with TAT-QA's exact match and F1
(``tatqa_metric``), overall and per answer type."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence

from rag_app.answer.short import short_answer
from rag_app.evaluation.tatqa_metric import score
from rag_app.models import Chunk
from rag_app.understand.analysis import QueryAnalysis

AnswerFn = Callable[[QueryAnalysis, Sequence[tuple[int, Chunk]], str], str]


class AnswerScores:
    """Collects the answers of one run and their scores."""

    def __init__(self, answer: AnswerFn) -> None:
        self.answer = answer
        self.scores: dict[str, list[tuple[float, float]]] = defaultdict(list)

    def row(
        self,
        query: QueryAnalysis,
        sources: Sequence[tuple[int, Chunk]],
        gold: Sequence[str],
        answer_type: str,
        gold_scale: str,
        declined: bool = False,
    ) -> dict[str, object]:
        """The ``answer`` of a per-question row: text, short, scale, and em / f1 when the
        question has a gold answer; a declined question's answer is empty."""
        lang = "en" if query.language == "en" else "zh"
        text = "" if declined else self.answer(query, sources, lang)
        short = short_answer(text, sources, query)
        value = list(short.value) if isinstance(short.value, tuple) else short.value
        out: dict[str, object] = {"text": text, "short": value, "scale": short.scale}
        if gold and answer_type:
            got = score(short.value, short.scale, list(gold), answer_type, gold_scale)
            out["em"], out["f1"] = got.exact_match, got.f1
            self.scores[answer_type].append((got.exact_match, got.f1))
        return out

    def summary(self) -> dict[str, object]:
        """EM and F1 in percent over every scored question, and per answer type."""
        every = [s for scores in self.scores.values() for s in scores]
        if not every:
            return {}

        def mean(scores: list[tuple[float, float]]) -> dict[str, object]:
            return {
                "n": len(scores),
                "em": round(100 * sum(e for e, _ in scores) / len(scores), 2),
                "f1": round(100 * sum(f for _, f in scores) / len(scores), 2),
            }

        return {
            **mean(every),
            "by_type": {kind: mean(s) for kind, s in sorted(self.scores.items())},
        }
