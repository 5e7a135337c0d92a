"""Query expansion with a finance synonym dictionary (seed 004's third/fourth layer).

Groups (``data/synonyms.txt``) are interchangeable names for one quantity as reports and readers
write them; a query term from a group brings the others in.

Bridges (``data/glossary_en_zh.txt``) are a Chinese report's terms with their English names: an
English name in a question brings the Chinese term in as a word of the question itself (an
English question over Chinese reports reaches their words; over English ones the Chinese word
matches nothing); a Chinese question is not changed by them.
"""

from __future__ import annotations

import functools
import re

from rag_app.text import lexicon
from rag_app.text.language import latin_term_pattern

SYNONYM_GROUPS: tuple[tuple[str, ...], ...] = lexicon.groups("synonyms.txt")
# (Chinese term, its English names...) per line
BRIDGES: tuple[tuple[str, ...], ...] = lexicon.groups("glossary_en_zh.txt")
# The glossary's Chinese statement terms (lower-cased) and their English names: metrics, never
# names, in a question of either language (``understand.known``, ``understand.slots``).
STATEMENT_TERMS = frozenset(group[0].lower() for group in BRIDGES)
STATEMENT_NAMES_EN = frozenset(name for group in BRIDGES for name in group[1:] if name.isascii())


class SynonymDictionary:
    def __init__(
        self,
        groups: tuple[tuple[str, ...], ...] = SYNONYM_GROUPS,
        bridges: tuple[tuple[str, ...], ...] = BRIDGES,
    ) -> None:
        self._groups = [tuple(t.lower() for t in g) for g in groups]
        self._bridges = [(g[0], tuple(t.lower() for t in g[1:])) for g in bridges if len(g) > 1]
        english = {t for g in self._groups for t in g} | {n for _, e in self._bridges for n in e}
        self._english = sorted(t for t in english if t.isascii())

    def expand(self, query: str) -> list[str]:
        """Synonyms of terms found in the query that the query does not already contain."""
        lowered = query.lower()
        out: list[str] = []
        for group in self._groups:
            if any(contains_term(lowered, term) for term in group):
                out.extend(t for t in group if not contains_term(lowered, t) and t not in out)
        return out

    def bridge(self, query: str) -> list[str]:
        """The Chinese terms whose English names the query holds (and it does not)."""
        lowered = query.lower()
        return [
            chinese
            for chinese, english in self._bridges
            if chinese not in lowered and any(contains_term(lowered, n) for n in english)
        ]

    def known_terms(self, query: str) -> list[str]:
        """The English terms of the synonyms and bridges the query holds ("gross margin",
        "revenue"): their Chinese names are known, not to be made up word by word."""
        lowered = query.lower()
        return [t for t in self._english if contains_term(lowered, t)]


def contains_term(text: str, term: str) -> bool:
    """Whether lower-cased ``text`` holds ``term``: Chinese as a substring, Latin as whole words
    ("pe" is not in "operating"), plurals included ("gross margins" holds "gross margin")."""
    if term not in text:  # the term itself is in the text whenever its pattern is
        return False
    return not term.isascii() or _latin(term).search(text) is not None


@functools.lru_cache(maxsize=8192)
def _latin(term: str) -> re.Pattern[str]:
    """The compiled pattern of a Latin term, kept: the glossary's terms outnumber the cache of
    ``re``, which every query would otherwise compile again."""
    return re.compile(latin_term_pattern(term))


# The built-in dictionary, built once: retrieval and the offline answerer use it on every query.
FINANCE_SYNONYMS = SynonymDictionary()
