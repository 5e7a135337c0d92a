"""``check_answer``: which sources an answer cites, and whether each sentence is supported.

Support of a sentence, in [0, 1], from two kinds of evidence:

* lexical: the share of the sentence's content words (jieba; Chinese character bigrams as a
  fallback) found in the source, and its numbers. Every number of the sentence must be in the
  source (as a value: ``1,234.5`` = ``1234.5``, ``20.0%`` = ``20%``, ``63`` = ``63.2`` rounded).
  A missing number other than a year caps support at ``missing_number_cap`` (0.25) times the
  share of numbers found: a changed figure is the commonest hallucination in research answers,
  and no wording makes up for it. A missing year multiplies support by 0.85.
* semantic (when an embedder is given): the cosine between the sentence and the source's best
  units (sentences or table rows, those sharing most words and numbers with it). Raw cosines
  are rescaled linearly from the embedder's band to [0, 1], because e5 puts even unrelated
  Chinese sentences above 0.8: for e5, 0.85 -> 0 and 0.95 -> 1 between Chinese texts, 0.82 ->
  0 and 0.94 -> 1 between English ones, 0.80 -> 0 and 0.86 -> 1 across the two languages
  (``rag_app.cite.settings`` has the measurements).

Words and numbers give one score: the word share, plus, when the sentence has numbers and all
are found, ``0.3`` of the remaining distance to 1. Semantic evidence gives a second opinion:
``0.7 * max(lexical, semantic) + 0.3 * min(...)`` (across languages, where words cannot match,
the semantic score alone), with the same number bonus; support is the higher of the two. So semantic evidence can only raise support (it rescues paraphrases and
translations, which share few words), and it is computed only for sentences that words and
numbers leave below the threshold and that miss no number, in one batched ``embed_queries``
call per answer (often none; a second only to find which other source supports a sentence
whose cited source does not). A sentence supported by words and numbers alone reports that
score.

A cited sentence is checked against its cited sources together (their words and numbers
pooled, the best unit among them); when they fall short the best other sources are checked
too, so the report can say "cited source does not support; Source 1 does". An uncited factual
sentence is checked against the best sources and reported as uncited. Notices, "not found"
replies, headings, questions and short connectives are not factual claims and are never
flagged.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Union

import numpy as np

from rag_app.cite.evidence import (
    Features,
    SourceEvidence,
    best_units,
    clip,
    coverage,
    features,
    source_evidence,
    source_units_from_block,
    source_units_from_chunk,
)
from rag_app.cite.markers import marker_spans, parse_citations, strip_markers
from rag_app.cite.sentences import Segment, segment_sentences
from rag_app.cite.settings import (
    DEFAULT_BAND,
    DEFAULT_CITE_SETTINGS,
    E5_CHINESE_BAND,
    E5_CROSS_LANGUAGE_BAND,
    E5_ENGLISH_BAND,
    CiteSettings,
)
from rag_app.models import Chunk, Hit, Reason
from rag_app.protocols import Embedder
from rag_app.terms import continues

if TYPE_CHECKING:
    from rag_app.prompt.builder import Source

SourceLike = Union["Source", Chunk, Hit]

_NOT_FOUND = re.compile(
    r"未找到|没有找到|找不到|未检索到|没有检索到|未提及|没有提及|未提供|没有提供|未涉及|没有涉及|"
    r"无相关|没有相关|无法回答|无法确定|无法找到|不包含|未包含|没有包含|"
    r"(?:do|does|did) not (?:contain|include|mention|provide|say)|no (?:relevant )?information|"
    r"not (?:found|mentioned|provided|available)|(?:cannot|can't|could not|unable to) (?:find|answer|determine)",
    re.IGNORECASE,
)
_OFFLINE_NOTICE = re.compile(r"^[（(]?\s*(?:离线抽取式回答|Offline extractive answer)", re.I)
_SOFT_END = re.compile(r"[；;]\s*$")


@dataclass(frozen=True)
class Citation:
    """A source the answer cites: where it comes from, how often and where it is first cited
    (character offset of its first marker)."""

    number: int
    chunk_id: str
    doc_id: str
    pages: tuple[int, ...]
    item_indices: tuple[int, ...]
    count: int
    first_position: int


@dataclass(frozen=True)
class SentenceCheck:
    """One sentence of the answer and its verdict.

    ``start``/``end`` span the sentence in the answer, markers included; ``text`` is the
    sentence without its markers; ``cited`` the numbers its markers name (dangling ones
    included; a clause ending in "；" without markers takes the next clause's). ``support`` is
    in [0, 1] (0.0 for sentences that are not factual claims); ``supported`` is True for a
    factual sentence whose support reaches the threshold (against its cited sources, or
    against the best other sources when it cites none), and for every non-factual sentence.
    ``best_source`` is the source that supports it best among those checked; ``reason`` says
    why in a short English phrase, ``reasons`` the same as keys and values.
    """

    start: int
    end: int
    text: str
    cited: tuple[int, ...]
    support: float
    supported: bool
    best_source: int | None
    reason: str
    factual: bool = True
    # The sentence or table row of ``best_source`` that shares most with the claim: what the UI
    # highlights in the source card.
    evidence: str = ""
    # ``reason`` as keys and values, for wording it in the UI's language (see ``english``).
    reasons: tuple[Reason, ...] = ()

    @property
    def uncited(self) -> bool:
        return self.factual and not self.cited

    @property
    def flagged(self) -> bool:
        """What the UI should mark: an unsupported or uncited factual sentence."""
        return self.factual and (not self.supported or not self.cited)


@dataclass(frozen=True)
class CitationReport:
    """The citations of an answer and the check of each sentence.

    ``citations`` are the cited sources that exist, by number; ``dangling`` the cited numbers
    that point to no source; ``cited_sources`` the numbers of ``citations``.
    """

    citations: tuple[Citation, ...]
    sentences: tuple[SentenceCheck, ...]
    dangling: tuple[int, ...]
    unsupported_count: int
    cited_sources: tuple[int, ...]
    uncited_count: int = 0

    @property
    def flagged(self) -> tuple[SentenceCheck, ...]:
        return tuple(s for s in self.sentences if s.flagged)

    def citation(self, number: int) -> Citation | None:
        return next((c for c in self.citations if c.number == number), None)


def _chunk_of(source: Any) -> Chunk:
    if isinstance(source, Chunk):
        return source
    if isinstance(source, Hit):
        return source.chunk
    return source.hit.chunk  # a prompt Source


def _units_of(source: Any) -> list[str]:
    if not isinstance(source, (Chunk, Hit)) and isinstance(getattr(source, "text", None), str):
        return source_units_from_block(source.text)  # what the model saw
    return source_units_from_chunk(_chunk_of(source))


def _as_mapping(sources: Mapping[int, Any] | Sequence[Any]) -> dict[int, Any]:
    if isinstance(sources, Mapping):
        return {int(k): v for k, v in sources.items()}
    return {int(s.number): s for s in sources}  # PromptResult.sources


def semantic_bands(
    embedder: Embedder | None, settings: CiteSettings
) -> tuple[tuple[float, float], ...]:
    """(Chinese, English, cross-language) cosine bands mapped onto [0, 1] for ``embedder``."""
    if settings.semantic_bands is not None:
        return settings.semantic_bands
    name = str(getattr(embedder, "name", "")).lower()
    if "e5" in name:
        return E5_CHINESE_BAND, E5_ENGLISH_BAND, E5_CROSS_LANGUAGE_BAND
    return DEFAULT_BAND, DEFAULT_BAND, DEFAULT_BAND


_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_LATIN_WORD = re.compile(r"[A-Za-z]+")


def _is_chinese(text: str) -> bool:
    # Each CJK character and each Latin word counts one (as the prompt's language detection).
    cjk = len(_CJK.findall(text))
    return cjk > 0 and cjk >= len(_LATIN_WORD.findall(text))


def _non_factual(claim: Features, segment: Segment, settings: CiteSettings) -> str | None:
    """Why the sentence is not a factual claim, or None when it is one."""
    text = claim.text
    hard_numbers = [n for n in claim.numbers if not n.year]
    if not text:
        return "empty"
    if _OFFLINE_NOTICE.search(text):
        return "notice"
    if segment.kind in ("heading", "header"):
        return "heading"
    if _NOT_FOUND.search(text) and not hard_numbers:
        return "not found"
    if hard_numbers:
        return None
    stripped = text.strip("*_ ")
    if text.startswith("**") and text.endswith("**") and len(stripped) <= 40:
        return "heading"
    if text.endswith(("?", "？")):
        return "question"
    if text.endswith((":", "：")):
        return "lead-in"
    if len(claim.words) < settings.min_content_words and not claim.numbers:
        return "connective"
    return None


@dataclass
class _Pending:
    segment: Segment
    text: str
    cited: tuple[int, ...]
    claim: Features | None = None
    kind: str | None = None  # why not factual


def _inherit_citations(pending: list[_Pending], answer: str) -> list[tuple[int, ...]]:
    """Citations per sentence; a clause ending in "；" with none of its own takes those of the
    clause after it on the same line ("A增长20%；B增长15% [Source 1]。"), and so does a sentence
    the next one continues ("Costs rose 6.4%. The increase was due to X [Source 1].")."""
    out = [p.cited for p in pending]
    for i in range(len(pending) - 2, -1, -1):
        current, following = pending[i], pending[i + 1]
        same_line = "\n" not in answer[current.segment.end : following.segment.start]
        joined = _SOFT_END.search(current.text) or continues(following.text)
        if not out[i] and same_line and joined:
            out[i] = out[i + 1]
    return out


def check_answer(
    text: str,
    sources: Mapping[int, SourceLike] | Sequence[Source],
    embedder: Embedder | None,
    *,
    threshold: float | None = None,
    settings: CiteSettings = DEFAULT_CITE_SETTINGS,
) -> CitationReport:
    """Check the citations and the support of every sentence of an answer.

    ``sources`` maps each ``[Source N]`` number to what it stood for: a prompt ``Source`` (its
    ``text``, the block the model saw, is checked), a ``Chunk`` or a ``Hit`` (text, table rows,
    caption, description); ``PromptResult.sources`` may be passed as is. ``embedder`` adds the
    semantic side (one batched ``embed_queries`` call); None checks words and numbers only.
    ``threshold`` overrides ``settings.threshold``. Never raises on odd answer text; an empty
    answer gives an empty report.
    """
    settings_threshold = settings.threshold if threshold is None else float(threshold)
    source_map = _as_mapping(sources)
    refs = parse_citations(text, max_number=max(source_map, default=0) or None)
    spans = marker_spans(refs)

    citations: dict[int, list[int]] = {}
    for ref in refs:
        citations.setdefault(ref.number, []).append(ref.start)
    dangling = tuple(sorted(n for n in citations if n not in source_map))
    citation_rows = []
    for number in sorted(n for n in citations if n in source_map):
        chunk = _chunk_of(source_map[number])
        positions = citations[number]
        citation_rows.append(
            Citation(
                number=number,
                chunk_id=chunk.chunk_id,
                doc_id=chunk.doc_id,
                pages=tuple(chunk.pages),
                item_indices=tuple(chunk.item_indices),
                count=len(positions),
                first_position=min(positions),
            )
        )

    pending: list[_Pending] = []
    for segment in segment_sentences(text):
        inside = [s for s in spans if segment.start <= s[0] < segment.end]
        cited: list[int] = []
        for _, _, numbers in inside:
            cited.extend(n for n in numbers if n not in cited)
        local = [(a - segment.start, b - segment.start, n) for a, b, n in inside]
        sentence = strip_markers(text[segment.start : segment.end], local)
        pending.append(_Pending(segment, sentence, tuple(cited)))
    for item, inherited in zip(pending, _inherit_citations(pending, text), strict=True):
        item.cited = inherited

    for item in pending:
        item.claim = features(item.text)
        item.kind = _non_factual(item.claim, item.segment, settings)

    evidence: dict[int, SourceEvidence] = {}
    if any(p.kind is None for p in pending):
        evidence = {n: source_evidence(n, _units_of(s)) for n, s in sorted(source_map.items())}
    checker = _Checker(evidence, embedder, settings, settings_threshold)
    checks = checker.run(pending)
    unsupported = sum(1 for c in checks if c.factual and not c.supported)
    uncited = sum(1 for c in checks if c.uncited)
    return CitationReport(
        citations=tuple(citation_rows),
        sentences=tuple(checks),
        dangling=dangling,
        unsupported_count=unsupported,
        cited_sources=tuple(c.number for c in citation_rows),
        uncited_count=uncited,
    )


def _why(key: str, **values: object) -> Reason:
    return Reason(key, tuple((name, str(value)) for name, value in values.items()))


def _sources_value(numbers: Sequence[int]) -> str:
    return ", ".join(str(n) for n in numbers)


def english(reason: Reason) -> str:
    """The English wording of one reason of a sentence check."""
    v = reason.value
    many = v("count") not in ("", "1")
    names = f"Source{'s' if many else ''} {v('sources')}"
    if reason.key == "not_factual":
        return f"not a factual claim ({v('kind')})"
    if reason.key == "uncited_supported":
        return f"uncited; Source {v('other')} supports it"
    if reason.key == "uncited_unsupported":
        return "uncited; no source supports it"
    if reason.key == "cites_missing":
        return f"cites {names}, which {'do' if many else 'does'} not exist"
    if reason.key == "other_supports":
        return f"Source {v('other')} supports it"
    if reason.key == "supported_by":
        return f"supported by Source {v('best')}"
    if reason.key == "cited_unsupported_other_does":
        return f"cited source does not support; Source {v('other')} does"
    if reason.key == "numbers_not_found":
        plural = "s" if v("n_numbers") not in ("", "1") else ""
        return f"number{plural} {v('numbers')} not found in {names}"
    if reason.key == "not_supported":
        return f"{names} {'do' if many else 'does'} not support this sentence"
    return reason.key


def _best_first(pair: tuple[float, int]) -> tuple[float, int]:
    return -pair[0], pair[1]  # highest support first; ties go to the lower source number


def _raws(numbers: Sequence[Any]) -> str:
    return ", ".join(dict.fromkeys(n.raw for n in numbers))


class _Checker:
    """Scores the factual sentences of one answer against the sources' evidence."""

    def __init__(
        self,
        evidence: dict[int, SourceEvidence],
        embedder: Embedder | None,
        settings: CiteSettings,
        threshold: float,
    ) -> None:
        self.evidence = evidence
        self.embedder = embedder
        self.settings = settings
        self.threshold = threshold
        self.bands = semantic_bands(embedder, settings)
        self.chinese: dict[str, bool] = {}
        self.vectors: dict[str, np.ndarray] = {}
        self.embedded_texts = 0
        self.calls = 0

    # -- evidence ----------------------------------------------------------------------------

    def _numbers(self, claim: Features, sources: Sequence[SourceEvidence]) -> tuple[list, list]:
        missing = [n for n in claim.numbers if not any(s.has_number(n) for s in sources)]
        return [n for n in missing if not n.year], [n for n in missing if n.year]

    def _units(self, claim: Features, sources: Sequence[SourceEvidence]) -> list[Features]:
        return [u for s in sources for u in best_units(claim, s, self.settings.units_per_source)]

    def _language(self, text: str) -> bool:
        if text not in self.chinese:
            self.chinese[text] = _is_chinese(text)
        return self.chinese[text]

    def _semantic(
        self, claim: Features, sources: Sequence[SourceEvidence]
    ) -> tuple[float, bool] | None:
        """(rescaled similarity to the best unit, whether that unit is in another language)."""
        sentence = self.vectors.get(claim.text)
        if sentence is None:
            return None
        best: tuple[float, bool] | None = None
        for unit in self._units(claim, sources):
            vector = self.vectors.get(clip(unit.text))
            if vector is None:
                continue
            chinese = self._language(claim.text)
            cross = chinese != self._language(unit.text)
            low, high = self.bands[2] if cross else self.bands[0] if chinese else self.bands[1]
            score = min(1.0, max(0.0, (float(sentence @ vector) - low) / (high - low)))
            if best is None or score > best[0]:
                best = (score, cross)
        return best

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
        missing, missing_years = self._numbers(claim, sources)
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

    # -- planning: which sources each sentence is compared with, what to embed --------------

    def _needs_semantic(self, claim: Features, sources: Sequence[SourceEvidence]) -> bool:
        """Semantic evidence can only raise support, so it is asked for only where words and
        numbers fall short and no number is missing (a missing number caps support anyway)."""
        if self.embedder is None or not sources:
            return False
        score, missing = self.support(claim, sources, semantic=False)
        return not missing and score < self.threshold

    def _plan(self, item: _Pending) -> tuple[list[SourceEvidence], list[SourceEvidence]]:
        """(cited sources, other sources worth checking) for a factual sentence."""
        claim = item.claim
        assert claim is not None
        cited = [self.evidence[n] for n in item.cited if n in self.evidence]
        if cited and self.support(claim, cited, semantic=False)[0] >= self.threshold:
            return cited, []
        numbers = {e.number for e in cited}
        others = [e for n, e in self.evidence.items() if n not in numbers]
        ranked = sorted(others, key=lambda e: (-self.support(claim, [e], False)[0], e.number))
        return cited, ranked[: self.settings.alternative_sources]

    def _embed(self, requests: list[tuple[Features, list[SourceEvidence], bool]]) -> None:
        """Embed, in one batched call, each requested sentence and the best units of its
        sources, where words and numbers fall short (or, for a ``compare`` request, wherever no
        number is missing, so that other sources are ranked on equal terms); at most
        ``max_embedded_texts`` new texts, in request order."""
        if self.embedder is None:
            return
        texts: dict[str, None] = {}
        limit = self.settings.max_embedded_texts
        for claim, group, compare in requests:
            if compare:
                if not group or self._numbers(claim, group)[0]:
                    continue
            elif not self._needs_semantic(claim, group):
                continue
            wanted = [claim.text] + [clip(u.text) for u in self._units(claim, group)]
            new = [t for t in dict.fromkeys(wanted) if t not in self.vectors and t not in texts]
            if len(texts) + len(new) > limit:
                break
            texts.update(dict.fromkeys(new))
        if not texts:
            return
        ordered = list(texts)
        vectors = np.asarray(self.embedder.embed_queries(ordered), dtype=np.float32)
        self.vectors.update(zip(ordered, vectors, strict=True))
        self.embedded_texts += len(ordered)
        self.calls += 1

    # -- verdicts ----------------------------------------------------------------------------

    def run(self, pending: list[_Pending]) -> list[SentenceCheck]:
        plans = [(p, *self._plan(p)) for p in pending if p.kind is None and self.evidence]
        # First call: each sentence against its cited sources (the other sources when it cites
        # none that exist). Second call, only if needed: other sources for the sentences their
        # cited sources still do not support, to name the source that does.
        first: list[tuple[Features, list[SourceEvidence], bool]] = []
        for item, cited, others in plans:
            assert item.claim is not None
            if cited:
                first.append((item.claim, cited, False))
            else:
                first.extend((item.claim, [e], True) for e in others)
        self._embed(first)
        second = [
            (item.claim, [e], True)
            for item, cited, others in plans
            if cited
            and item.claim is not None
            and self.support(item.claim, cited)[0] < self.threshold
            for e in others
        ]
        self._embed(second)
        planned = {id(p): (cited, others) for p, cited, others in plans}
        out = []
        for item in pending:
            seg = item.segment
            if item.kind is not None:
                out.append(
                    SentenceCheck(
                        seg.start,
                        seg.end,
                        item.text,
                        item.cited,
                        0.0,
                        True,
                        None,
                        f"not a factual claim ({item.kind})",
                        factual=False,
                        reasons=(_why("not_factual", kind=item.kind),),
                    )
                )
                continue
            cited, others = planned.get(id(item), ([], []))
            out.append(self._verdict(item, cited, others))
        return out

    def _verdict(
        self, item: _Pending, cited: list[SourceEvidence], others: list[SourceEvidence]
    ) -> SentenceCheck:
        claim = item.claim
        assert claim is not None

        def verdict(
            support: float, supported: bool, best: int | None, *reasons: Reason
        ) -> SentenceCheck:
            seg = item.segment
            evidence = ""
            source = self.evidence.get(best) if best is not None else None
            if source is not None:
                units = best_units(claim, source, 1)
                evidence = units[0].text if units else ""
            return SentenceCheck(
                seg.start,
                seg.end,
                item.text,
                item.cited,
                support,
                supported,
                best,
                "; ".join(english(r) for r in reasons),
                evidence=evidence,
                reasons=reasons,
            )

        ranked = sorted(((self.support(claim, [e])[0], e.number) for e in others), key=_best_first)
        other_score, other = ranked[0] if ranked else (0.0, None)
        other_supports = other is not None and other_score >= self.threshold

        if not item.cited:
            best = other if other_score > 0 else None
            if other_supports:
                return verdict(other_score, True, best, _why("uncited_supported", other=other))
            return verdict(other_score, False, best, _why("uncited_unsupported"))

        missing_sources = [n for n in item.cited if n not in self.evidence]
        absent: tuple[Reason, ...] = ()
        if missing_sources:
            absent = (
                _why(
                    "cites_missing",
                    sources=_sources_value(missing_sources),
                    count=len(missing_sources),
                ),
            )
        if not cited:
            if other_supports:
                return verdict(0.0, False, other, *absent, _why("other_supports", other=other))
            return verdict(0.0, False, None, *absent)

        support, missing = self.support(claim, cited)
        individual = sorted(
            ((self.support(claim, [e])[0], e.number) for e in cited), key=_best_first
        )
        best = individual[0][1]
        if support >= self.threshold:
            return verdict(support, True, best, _why("supported_by", best=best), *absent)
        numbers = [e.number for e in cited]
        if other_supports:
            why = _why("cited_unsupported_other_does", other=other)
            best = other
        elif missing:
            why = _why(
                "numbers_not_found",
                numbers=_raws(missing),
                n_numbers=len(missing),
                sources=_sources_value(numbers),
                count=len(numbers),
            )
        else:
            why = _why("not_supported", sources=_sources_value(numbers), count=len(numbers))
        return verdict(support, False, best, why, *absent)
