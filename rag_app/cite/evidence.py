"""What a sentence claims and what a source says, reduced to comparable features.

A source becomes units (its sentences and its table rows, each row linearised with its column
headers) plus the union of their content words, Chinese character bigrams and numbers. A
sentence becomes the same features. Numbers are compared as values: ``1,234.5`` equals
``1234.5``, ``20.0%`` equals ``20%``, and a number written with fewer decimals than the source
matches the source's value rounded (``63`` for ``63.2``). A number written with a scale word
(亿 / 万 / 百万 / million / billion) is compared as the amount it states with the source's
amounts, each read in the scale its source states for it (the word after it, its row's or its
table's "（百万元）" / "(in millions)"), at the precision the claim writes: "577.96亿元" is the
57,796 of a row "营业收入（百万元）", "28.74亿元" the 2,874,106,532.18 of a table in 元;
"577.96万元" is found in neither.
"""

from __future__ import annotations

import functools
import html
import re
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

from rag_app.cite.sentences import answer_segments
from rag_app.models import Chunk
from rag_app.text.analyzer import cjk_bigrams, index_words, stem
from rag_app.text.latex import latex_to_text
from rag_app.text.lexicon import word_set
from rag_app.text.scales import exponent_after, stated_exponent
from rag_app.text.tables import column_labels, linearise_row, parse_table, pipe_table_rows

_FULL_WIDTH = str.maketrans("０１２３４５６７８９．％", "0123456789.%")
# "1,234.5" (ASCII thousands separators), or a plain "1234.5". A full-width comma is a list
# separator in Chinese ("80，35"), never a thousands separator.
_NUMBER = re.compile(r"(?<![\d.])(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)(?!\d)")
_HAS_DIGIT = re.compile(r"\d")
_TABLE = re.compile(r"<table\b.*?</table\s*>", re.S | re.I)
_TAG = re.compile(r"<[^>]+>")
_SOURCE_LABEL = re.compile(r"^\s*\[Source \d+\][^\n]*\n?")
# Lines of a prompt block that are paths, not content.
_PATH_LINE = re.compile(r"^\s*(?:图片路径|Image path)\s*[:：].*$", re.M)
# Words an answer uses to talk about its sources rather than about the subject; they are not
# expected in the source, so they do not count against a sentence.
FRAMING_WORDS = word_set("framing_words.txt")


@dataclass(frozen=True)
class Number:
    """A number as written (``raw``) and as a value; ``year`` for 1900-2100 integers, which
    often come from the question rather than the source and so weigh less when missing."""

    raw: str
    value: Decimal
    decimals: int
    year: bool
    # The power of ten of the scale word written right after it ("28.74亿" 8), else 0.
    exponent: int = 0


@dataclass(frozen=True)
class Features:
    text: str
    words: frozenset[str]
    bigrams: frozenset[str]
    numbers: tuple[Number, ...]

    @property
    def values(self) -> frozenset[Decimal]:
        return frozenset(n.value for n in self.numbers)


@dataclass(frozen=True)
class SourceEvidence:
    """One source as the checker sees it: its units and the union of their features.
    ``rounded`` holds every value rounded to fewer decimals than written."""

    number: int
    units: tuple[Features, ...]
    words: frozenset[str]
    bigrams: frozenset[str]
    values: frozenset[Decimal]
    rounded: frozenset[Decimal]
    # Every number as the amount it states: its value times the scale its source states for
    # it (the word after it, its unit's, or the source's), a number with none as written.
    amounts: frozenset[Decimal] = frozenset()
    # (value, power of ten) of each number whose scale its source states.
    scaled: frozenset[tuple[Decimal, int]] = frozenset()
    # The power of ten the source states for the numbers nothing else scales (its caption's
    # or heading's "(in millions)"), 0 when none.
    exponent: int = 0

    def has_number(self, number: Number) -> bool:
        """Whether the source holds ``number``: as written (in the scale the source states for
        it, when both state one: "577.96万元" is not the 577.96 of "577.96亿元"), or as the amount
        it states, rounded as the claim writes it."""
        if number.value in self.values or number.value in self.rounded:
            known = {e for v, e in self.scaled if v == number.value}
            return number.exponent == 0 or not known or number.exponent in known
        if number.exponent == 0 and number.year:
            return False
        step = Decimal(1).scaleb(-number.decimals)
        return any(
            a.scaleb(-number.exponent).quantize(step, rounding=ROUND_HALF_UP) == number.value
            for a in self.amounts
            if a >= number.value.scaleb(number.exponent - 1)  # same order of magnitude or more
        )


def extract_numbers(text: str) -> tuple[Number, ...]:
    return tuple(number for number, _, _ in number_spans(text))


def number_spans(text: str) -> list[tuple[Number, int, int]]:
    """Each number of ``text`` (as ``extract_numbers`` reads it) with its span in ``text``."""
    out = []
    text = text.translate(_FULL_WIDTH)  # one character for one: the spans stay the text's
    for match in _NUMBER.finditer(text):
        raw = match.group(1)
        plain = raw.replace(",", "")
        try:
            value = Decimal(plain)
        except InvalidOperation:
            continue
        decimals = len(plain.split(".")[1]) if "." in plain else 0
        year = decimals == 0 and "," not in raw and 1900 <= value <= 2100
        number = Number(raw, value, decimals, year, exponent_after(text, match.end()))
        out.append((number, match.start(1), match.end(1)))
    return out


# Features of this many distinct units are kept: a library's sources are checked again and
# again (every answer citing them, an evaluation's hundreds), and reading a unit's words with
# jieba was a fifth of an offline answer's time.
FEATURES_CACHE = 20_000


@functools.lru_cache(maxsize=FEATURES_CACHE)
def stated_exponents(text: str) -> tuple[int, ...]:
    """For each number of a unit (``extract_numbers``' order), the power of ten the words
    before it state ("2024年营收（亿美元）: 881.6"), else the one its first words state (a
    row's label, "营业收入（百万元）"), else 0."""
    text = text.translate(_FULL_WIDTH)
    out, start, first = [], 0, None
    for match in _NUMBER.finditer(text):
        if _parses(match.group(1)):
            own = stated_exponent(text[start : match.start()])
            first = own if first is None else first
            out.append(own or first)
        start = match.end()
    return tuple(out)


def _parses(raw: str) -> bool:
    try:
        Decimal(raw.replace(",", ""))
    except InvalidOperation:
        return False
    return True


@functools.lru_cache(maxsize=FEATURES_CACHE)
def features(text: str) -> Features:
    """Content words (jieba, lower-cased, English lightly stemmed, no numbers, no one-character
    words, no framing words), Chinese bigrams without function characters, and numbers."""
    words = set()
    for token in index_words(text, search_mode=True):
        if len(token) < 2 or _HAS_DIGIT.search(token):
            continue
        token = stem(token) if token.isascii() else token
        if token not in FRAMING_WORDS:
            words.add(token)
    bigrams = cjk_bigrams(text) - FRAMING_WORDS
    return Features(text, frozenset(words), frozenset(bigrams), extract_numbers(text))


def _rounded(numbers: Iterable[Number]) -> frozenset[Decimal]:
    out = set()
    for n in numbers:
        for places in range(n.decimals):
            out.add(n.value.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP))
    return frozenset(out)


def table_rows(table_html: str) -> list[str]:
    """Each data row of an HTML table, linearised with its column headers; the header line
    first."""
    grid = parse_table(table_html)
    labels = column_labels(grid)
    rows = []
    header = " | ".join(label for label in labels if label)
    if header:
        rows.append(header)
    rows.extend(linearise_row(row, labels) for row in grid.data_rows)
    return [row for row in rows if row.strip()]


def _units_of_text(text: str) -> list[str]:
    # A source's own reference marks ("...grew 5%.[1] Costs fell.") stay with the sentence they
    # close, as an answer's citation markers do.
    return [text[s.start : s.end] for s in answer_segments(text)]


def source_units_from_block(block: str) -> list[str]:
    """The units of a prompt block (``Source.text``): its label line dropped, its HTML tables
    linearised row by row, its other lines split into sentences; MinerU's math read as the text
    an answer quotes ("$2 5 { \\pm } 3 ^ { \\circ }$" is "25±3°": its 25 is found)."""
    body = latex_to_text(_SOURCE_LABEL.sub("", block, count=1))
    units: list[str] = []
    for table in _TABLE.findall(body):
        units.extend(table_rows(table))
    body = _TABLE.sub("\n", body)
    piped, body = pipe_table_rows(body)
    units.extend(piped)
    body = _PATH_LINE.sub("", body)
    body = html.unescape(_TAG.sub(" ", body))
    return _units_of_text(body) + units


def source_units_from_chunk(chunk: Chunk) -> list[str]:
    """The units of a chunk: heading path, caption, text, table rows, figure description,
    footnote, the introducing paragraph, and named fields (math read as text, as above)."""
    units: list[str] = []
    if chunk.heading_path:
        units.append(" > ".join(h for h in chunk.heading_path if h.strip()))
    for part in (chunk.caption, chunk.text, chunk.description, chunk.footnote, chunk.context):
        if part.strip():
            units.extend(_units_of_text(html.unescape(_TAG.sub(" ", latex_to_text(part)))))
    if chunk.table_html:
        units.extend(table_rows(latex_to_text(chunk.table_html)))
    units.extend(f"{name}: {value}" for name, value in chunk.fields if value.strip())
    return [u for u in units if u.strip()]


def source_evidence(number: int, units: Iterable[str]) -> SourceEvidence:
    seen: set[str] = set()
    feats = []
    for unit in units:
        unit = " ".join(unit.split())
        if unit and unit not in seen:
            seen.add(unit)
            feats.append(features(unit))
    numbers = [n for f in feats for n in f.numbers]
    stated = [stated_exponents(f.text) for f in feats]
    # a caption's or a heading's "(in millions)" (the first unit stating one, wherever in it):
    # the scale of the numbers nothing else scales
    whole = next((e for f in feats if (e := stated_exponent(f.text))), 0)
    exponents = [
        (n, n.exponent or own or whole)
        for f, unit in zip(feats, stated)
        for n, own in zip(f.numbers, unit)
    ]
    amounts = {n.value.scaleb(e) for n, e in exponents if not n.year}
    return SourceEvidence(
        number=number,
        units=tuple(feats),
        words=frozenset().union(*(f.words for f in feats)),
        bigrams=frozenset().union(*(f.bigrams for f in feats)),
        values=frozenset(n.value for n in numbers),
        rounded=_rounded(numbers),
        amounts=frozenset(amounts),
        scaled=frozenset((n.value, e) for n, e in exponents if e),
        exponent=whole,
    )


def coverage(claim: Features, sources: Iterable[SourceEvidence]) -> float | None:
    """Share of the claim's content words found in the sources; for Chinese, the better of that
    and the share of its character bigrams (jieba may cut the two texts differently). None
    when the claim has no content words."""
    sources = list(sources)
    if len(sources) == 1:
        words, bigrams = sources[0].words, sources[0].bigrams
    else:
        words = frozenset().union(*(s.words for s in sources))
        bigrams = frozenset().union(*(s.bigrams for s in sources))
    shares = []
    if claim.words:
        shares.append(len(claim.words & words) / len(claim.words))
    if claim.bigrams:
        shares.append(len(claim.bigrams & bigrams) / len(claim.bigrams))
    return max(shares) if shares else None


def best_units(
    claim: Features, source: SourceEvidence, k: int, bigram_weight: float
) -> list[Features]:
    """The ``k`` units of ``source`` sharing most with the claim (numbers count double, each
    shared Chinese character bigram ``bigram_weight``)."""
    values = claim.values

    def overlap(unit: Features) -> float:
        return (
            len(claim.words & unit.words)
            + bigram_weight * len(claim.bigrams & unit.bigrams)
            + 2.0 * len(values & unit.values)
        )

    ranked = sorted(enumerate(source.units), key=lambda pair: (-overlap(pair[1]), pair[0]))
    return [unit for _, unit in ranked[:k]]


def clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters (``CiteSettings.max_unit_chars``) for embedding."""
    return text if len(text) <= limit else text[:limit]
