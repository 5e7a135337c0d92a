"""Support scoring: how well a claim's words, numbers and (when embedded) meaning are found in
a group of sources, as one number in [0, 1]. How the parts combine, and why, is in
``rag_app.cite.check``'s docstring."""

from __future__ import annotations

from collections.abc import Sequence

from rag_app.cite.evidence import Features, SourceEvidence, best_units, coverage
from rag_app.cite.semantic import SemanticMatcher
from rag_app.stage_settings import CiteSettings
from rag_app.text.working import worked_results


class SupportScorer:
    """Scores claims against sources; ``threshold`` is the support a factual sentence needs,
    which planning and verdicts compare scores with."""

    def __init__(self, settings: CiteSettings, threshold: float, matcher: SemanticMatcher) -> None:
        self.settings = settings
        self.threshold = threshold
        self.matcher = matcher

    def missing_numbers(
        self, claim: Features, sources: Sequence[SourceEvidence]
    ) -> tuple[list, list]:
        """(missing numbers other than years, missing years) of the claim in ``sources``; a
        result the claim works out from its own numbers ("12340 - 10115 = 2225") is traced to
        them, not looked for in a source."""
        worked = worked_results(claim.text) if "=" in claim.text else frozenset()
        missing = [
            n
            for n in claim.numbers
            if n.value not in worked and not any(s.has_number(n) for s in sources)
        ]
        return [n for n in missing if not n.year], [n for n in missing if n.year]

    def units(self, claim: Features, sources: Sequence[SourceEvidence]) -> list[Features]:
        """The best units of each source for the claim: what semantic evidence compares."""
        k, weight = self.settings.units_per_source, self.settings.bigram_weight
        return [u for s in sources for u in best_units(claim, s, k, weight)]

    def _semantic(
        self, claim: Features, sources: Sequence[SourceEvidence]
    ) -> tuple[float, bool] | None:
        if not self.matcher.has(claim.text):
            return None  # not embedded: skip ranking the units
        return self.matcher.best_match(claim, self.units(claim, sources))

    def _finish(self, text: float, claim: Features, missing_years: list) -> float:
        if any(not n.year for n in claim.numbers):
            text += (1.0 - text) * self.settings.number_bonus
        if missing_years:
            text *= self.settings.missing_year_factor
        return float(min(1.0, max(0.0, text)))

    def support(
        self, claim: Features, sources: Sequence[SourceEvidence], semantic: bool = True
    ) -> tuple[float, list]:
        """(support, missing non-year numbers) of the claim against ``sources`` together.

        Words and numbers give one score; when semantic evidence was embedded for these
        sources, the blend of both gives another and support is the higher of the two."""
        s = self.settings
        missing, missing_years = self.missing_numbers(claim, sources)
        hard = [n for n in claim.numbers if not n.year]
        if missing:
            return s.missing_number_cap * (len(hard) - len(missing)) / len(hard), missing
        lexical = coverage(claim, sources)
        if lexical is None:
            lexical = 1.0 if hard else 0.0  # only numbers, all found
        score = self._finish(lexical, claim, missing_years)
        semantic_evidence = self._semantic(claim, sources) if semantic else None
        if semantic_evidence is not None:
            sem, cross = semantic_evidence
            if cross:
                blend = sem  # words cannot match across languages; only the embedding speaks
            else:
                strong, weak = max(lexical, sem), min(lexical, sem)
                blend = s.strong_weight * strong + (1 - s.strong_weight) * weak
            score = max(score, self._finish(blend, claim, missing_years))
        return score, []
