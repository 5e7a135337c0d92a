"""What a question can name, read off the library: its documents' subjects, the entities their
profiles name (with their aliases and tickers, and the subject of the document naming them) and
the metrics of their tables. A run of words the library holds nothing of exactly is matched to
the entry sharing most of its character bigrams (an inverted index of bigrams, built once per
knowledge-base generation, so a question costs a few dictionary look-ups)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from rag_app.stage_settings import FollowUpSettings
from rag_app.text.spans import METRICS
from rag_app.text.subjects import TICKER, covers
from rag_app.text.synonyms import STATEMENT_TERMS


@dataclass(frozen=True)
class Named:
    """A name the library knows: the entity it names, the subject of the document naming it,
    and whether it is itself a document's subject."""

    name: str
    owner: str = ""
    subject: bool = False


@dataclass(frozen=True, eq=False)
class Known:
    """What a question can name: ``names`` (every spelling, lower-cased, to the entity),
    ``metrics`` (row labels, column headers and defined terms of the library's tables) and
    ``latest`` (per report subject, the last year its tables report, estimates aside: "2024年")
    and ``quantities`` (the metrics given with a unit: 月产能 in 万片, not 工艺节点); a run of words
    is of an entry's kind when ``min_share`` of its bigrams are the entry's."""

    names: Mapping[str, Named] = field(default_factory=dict)
    metrics: frozenset[str] = frozenset()
    latest: Mapping[str, str] = field(default_factory=dict)
    quantities: frozenset[str] = frozenset()
    min_share: float = FollowUpSettings.min_bigram_share
    # metrics headed under another ("营业收入 同比": a column under its group), lower-cased
    qualified: frozenset[str] = frozenset()
    _bigrams: dict[str, list[tuple[str, str]]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        for kind, words in (("name", self.names), ("metric", self.metrics)):
            for word in words:
                for pair in _pairs(word):
                    self._bigrams.setdefault(pair, []).append((kind, word))

    def is_quantity(self, metric: str) -> bool:
        """Whether ``metric`` is (part of, or holds) a metric the library gives with a unit."""
        word = metric.lower()
        return any(word in q or q in word for q in self.quantities)

    def latin_name(self, words: str) -> Named | None:
        """The name a Latin run of capitalised words gives by its leading words ("Calder Peak"
        of "Calder Peak Fund Management Co., Ltd."; two words at least when it has two), a
        report's subject first; None when it gives none."""
        found = [
            entry
            for spelling, entry in self.names.items()
            if spelling.isascii() and covers([spelling], words)
        ]
        return max(found, key=lambda e: e.subject) if found else None

    def closest(self, run: str) -> tuple[str, str, float]:
        """The entry sharing most of ``run``'s bigrams: (kind, entry, share); report subjects
        first, then the shortest, among equal shares."""
        pairs = _pairs(run)
        counts: dict[tuple[str, str], int] = {}
        for pair in pairs:
            for entry in self._bigrams.get(pair, ()):
                counts[entry] = counts.get(entry, 0) + 1
        if not counts:
            return "", "", 0.0
        kind, word = max(
            counts,
            key=lambda e: (
                counts[e],
                e[0] == "name" and self.names[e[1]].subject,
                -len(e[1]),
                e,  # the same reading whatever order the sets iterate in
            ),
        )
        return kind, word, counts[(kind, word)] / len(pairs)


def known_of(
    subjects: Iterable[str] = (),
    entities: Iterable[tuple[str, str, Iterable[str]]] = (),
    metrics: Iterable[str] = (),
    periods: Mapping[str, Iterable[str]] | None = None,
    quantities: Iterable[str] = (),
    min_share: float = FollowUpSettings.min_bigram_share,
    qualified: Iterable[str] = (),
) -> Known:
    """``Known`` from report ``subjects``, ``entities`` (name, the subject of its document,
    other spellings: aliases and tickers), ``metrics`` and the ``periods`` each subject's report
    covers (the profile's: "2024A", "2024Q4", "2025E"), the ``quantities`` among the metrics
    (those with a unit), the ``qualified`` metrics ("营业收入 同比"). A word that is a metric (of the library
    or of the finance terms) is no name: a profile may list a table's row as both; a report's
    subject is a name all the same."""
    subjects = [s for s in subjects if len(s) >= 2 and s.lower() not in METRICS]
    entities = list(entities)
    # a report's subject is a name even where a table lists it as a row (its peers' valuation),
    # and so is a company given with its ticker (an industry report's 沧澜新能, 300861.SZ)
    own = {s.lower() for s in subjects}
    own |= {name.lower() for name, _, spellings in entities if _has_ticker(spellings)}
    metric_words = {m.strip() for m in metrics if len(m.strip()) >= 2 and m.lower() not in own}
    not_names = {m.lower() for m in metric_words} | set(METRICS) | STATEMENT_TERMS
    names: dict[str, Named] = {}
    for subject in subjects:
        names[subject.lower()] = Named(subject, subject, True)
    for name, owner, spellings in entities:
        if len(name) < 2 or name.lower() in not_names:
            continue
        if name != owner and _has_ticker(spellings):
            owner = ""  # a listed company of its own, no place or product of the report's
        entry = names.get(name.lower()) or Named(name, owner, name == owner)
        for word in (name, *spellings):
            if len(word) >= 2 and word.lower() not in names:
                names[word.lower()] = entry
    latest = {owner: _last_year(found) for owner, found in (periods or {}).items()}
    latest = {k: v for k, v in latest.items() if v}
    units = frozenset(q.strip().lower() for q in quantities if len(q.strip()) >= 2)
    pairs = frozenset(" ".join(q.lower().split()) for q in qualified)
    return Known(names, frozenset(metric_words), latest, units, min_share, pairs)


def _has_ticker(spellings: Iterable[str]) -> bool:
    """Whether an entity's spellings hold a ticker (300861.SZ, 601586): a company by its code."""
    return any(re.fullmatch(rf"{TICKER}|\d{{6}}", s.strip()) for s in spellings)


def _last_year(periods: Iterable[str]) -> str:
    """The last year reported rather than forecast: "2024年" of 2024A, 2024Q4, 2025E."""
    years = [p[:4] for p in periods if p[:4].isdigit() and not p.upper().endswith("E")]
    return f"{max(years)}年" if years else ""


def _pairs(word: str) -> set[str]:
    lowered = word.lower()
    return {lowered[i : i + 2] for i in range(len(lowered) - 1) if lowered[i : i + 2].strip()}
