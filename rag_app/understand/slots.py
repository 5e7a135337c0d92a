"""A question read as slots against what the library holds: who it asks about (its names), when
(its period), what (its metric) and how it asks (its own words), plus what points back (它,
该公司, its; 同年, that year) and whether it compares (和华虹比, compared with).

The kinds come from the library, not from lists of phrasings: a name is one of its documents'
subjects, entities, aliases or tickers (``Known``, built from the document profiles); a metric
is one of its tables' row labels or column headers, or a finance term (``text.spans``); a period
is what ``text.periods`` reads. A run of words the library holds nothing of exactly is given the
kind of the library entry whose character bigrams it shares most ("华虹" a name, as 华虹集团 is;
"扣非净利润" a metric, as 归母净利润 is). Chinese function words are told apart by their part of
speech (jieba's tagger: pronouns, particles, conjunctions, prepositions, adverbs, numerals, time
words), so a follow-up holding nothing else ("那2026年呢？", "和华虹比呢？") is elliptic; English
ones are the question stopwords. A question is English by its own words, its names aside."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from functools import lru_cache

from rag_app.text import lexicon, periods
from rag_app.text.analyzer import QUESTION_STOPWORDS_EN, tagged
from rag_app.text.language import CJK_UNIFIED, cjk_share
from rag_app.text.names import leading_name
from rag_app.text.period_pointers import POINTER_EN, YEARS_AWAY
from rag_app.text.periods import PERIOD_SPAN, RELATIVE_PERIOD, YEARLESS_PART_EN
from rag_app.text.spans import spans
from rag_app.text.synonyms import STATEMENT_NAMES_EN
from rag_app.understand.known import Known
from rag_app.understand.pieces import Piece, dated, free, joined_part, with_modifier

_WORDS = lexicon.keyed_groups("followup_words.txt")
_POINTERS_EN = tuple(sorted(_WORDS["pronoun_en"], key=len, reverse=True))
QUANTITY_NOUNS = frozenset(_WORDS["quantity_noun"])  # what 这个指标 points at: a quantity
RELATIVE = frozenset(_WORDS["relative"])  # a metric of another: 增速呢 asks the earlier's
_COMPARE_EN = tuple(sorted(_WORDS["compare_en"], key=len, reverse=True))
_QUESTION_WORDS = _WORDS["interrogative"]
_ASKS_NAME = tuple(w for w in _WORDS["interrogative"] if w in ("哪", "谁", "which", "who"))
_CAUSE = _WORDS["cause"]
_BACK_FORTH = "上去前下明"  # the first character of a period pointing back or forth (shifted)
# jieba's tags of words that carry no slot and no content of their own (its tag set: ICTCLAS).
_FUNCTION_TAGS = frozenset("x uj ul uz ug ud uv y c p d m q e o r t zg".split())
# Tags of the words a name is made of (nouns, proper nouns, Latin words, abbreviations).
_NAME_TAGS = frozenset("n nr nrt nrfg ns nt nz eng j l ng an vn".split())
# Proper nouns: a person, a place, an organisation, another proper name.
_PROPER_TAGS = frozenset("nr nrt nrfg ns nt nz".split())
_CJK = re.compile(f"[{CJK_UNIFIED}]")
_CAPITAL = re.compile(r"[A-Z]")
# a word, not the "s" of a possessive ("Rongcheng's")
_LATIN_WORD = re.compile(r"(?<!['’])[A-Za-z][A-Za-z&.\-/]*")
_CAPITALISED = re.compile(r"[A-Z][A-Za-z&.\-]*(?:\s+[A-Z][A-Za-z&.\-]*)*")


@dataclass(frozen=True)
class Reading:
    """A question's slots: its ``pieces`` in order; ``subject`` the phrase it asks about (its
    first name with the words bound to it: 比亚迪合肥基地) or None; ``elliptic`` whether it holds
    nothing but slots and function words; ``compares`` whether it sets a name beside another;
    ``asks_name`` whether its question word asks for a name where a subject stands (哪家公司的毛利率
    最高？), ``asks_which`` whether one asks for a name anywhere (毛利率最高的是哪家？), ``asks``
    whether it is a question at all (a question mark, 呢 or 吗, or a question word), not "好的"."""

    text: str
    english: bool
    pieces: tuple[Piece, ...]
    subject: Piece | None
    elliptic: bool
    compares: bool
    asks_name: bool
    asks_which: bool
    asks: bool

    @property
    def asks_cause(self) -> bool:
        """Whether it asks why (为什么, 原因, why): of the fact the question before it asked."""
        lowered = self.text.lower()
        return any(_has(lowered, w) if w.isascii() else w in self.text for w in _CAUSE)

    def of(self, kind: str) -> list[Piece]:
        return [p for p in self.pieces if p.kind == kind]

    def first(self, kind: str) -> Piece | None:
        return next((p for p in self.pieces if p.kind == kind), None)


@lru_cache(maxsize=256)
def read(text: str, known: Known) -> Reading:
    """``text`` read into slots against ``known``."""
    found = [
        Piece(s.kind if s.kind != "subject" else "name", s.start, s.end, s.text, s.text, s.lead)
        for s in spans(text, known.names)
    ]
    names = [range(p.start, p.end) for p in found if p.kind == "name"]
    share = cjk_share("".join(" " if any(i in r for r in names) else c for i, c in enumerate(text)))
    english = share is not None and share < 0.5
    found = [_named(p, known) for p in found]
    # a period named from another (去年同期, 上年末: one pointing back or forth; 本报告期 and
    # 报告期末 are the question's own words) or a part of a year in English (the first half):
    # before the library's metrics, whose column headers may read the same
    pattern, kind = (
        (YEARLESS_PART_EN, "period_part") if english else (RELATIVE_PERIOD, "same_period")
    )
    # a year's months so far first (上年累计, not 上年 alone), a month or quarter pointed at
    # (上个月) or, in English, a month named without its year (in June)
    parts = (
        (pattern, periods.MONTH_NAME_EN)
        if english
        else (periods.SO_FAR, pattern, periods.RELATIVE_PART)
    )
    pointed = (
        m
        for each in parts
        for m in each.finditer(text)
        if english or periods.SO_FAR.fullmatch(m.group()) or m.group()[0] in _BACK_FORTH
    )
    _add_matches(pointed, kind, found, valued=True)
    if not english:
        # a report's own period columns (本报告期, 年初至报告期末): its periods; 年初: the year
        # before's end; 前三季度, 第三季度 as one part of a year (jieba cuts off 前, 第); 9月
        # (jieba: 9 / 月), its year's
        _add_matches(periods.REPORT_PERIOD.finditer(text), "period", found, valued=True)
        _add_matches(periods.YEAR_START.finditer(text), "same_period", found)
        _add_matches(periods.YEARLESS_PART.finditer(text), "period_part", found)
        yearless = (m for m in periods.MONTH_NAMED.finditer(text) if not m.group(1))
        _add_matches(yearless, "period_part", found)
    # 两年前, two years earlier: before 前/年 alone
    _add_matches(YEARS_AWAY.finditer(text), "same_period", found)
    _add_exact(text, known.metrics, "metric", found)
    if english:
        _add_exact(text, STATEMENT_NAMES_EN, "metric", found)  # "net interest margin": 净息差
        found = joined_part(text, found)
    words = _english_words(text, found, known) if english else _chinese_words(text, found, known)
    pieces = dated(text, with_modifier(sorted(found + words, key=lambda p: p.start)))
    lowered = text.lower()
    compares = any(_has(lowered, w) for w in _COMPARE_EN) if english else _compares(text, pieces)
    return Reading(
        text=text,
        english=english,
        pieces=tuple(pieces),
        subject=_subject(text, pieces, english),
        elliptic=_elliptic(text, pieces, english),
        compares=compares,
        asks_name=_asks_name(text, english),
        asks_which=any(_has(lowered, w) if w.isascii() else w in text for w in _ASKS_NAME),
        asks=text.rstrip().endswith(("？", "?", "呢", "吗"))
        or any(_has(lowered, w) if w.isascii() else w in text for w in _QUESTION_WORDS),
    )


def _asks_name(text: str, english: bool) -> bool:
    """Whether the question asks for a name (哪家公司的毛利率最高？, Which company...?): its
    question word comes before its first verb, where a subject stands."""
    if english:  # "Which company…?"; "Who is the analyst?" asks of the subject
        return _has(text.lower(), "which")
    for word, tag in tags(text):
        if any(w in word for w in _ASKS_NAME if not w.isascii()):
            return True
        if tag.startswith("v"):
            return False
    return False


def _elliptic(text: str, pieces: list[Piece], english: bool) -> bool:
    """Nothing but slots, pointers and function words (a period's copula too); or, before a
    closing 呢, one run of words
    the library holds nothing like (研发投入呢, 乌兹别克斯坦工厂呢), or slots with at most one
    such noun and a verb of two characters (换成2022年呢, 和X相比呢)."""
    words = [p for p in pieces if p.kind == "words"]
    if english:  # nothing else, or one run of words: "What about free cash flow?"
        return len(words) <= 1
    kinds = {p.kind for p in pieces}
    if kinds & {"period", "same_period"} and not kinds & {"name", "metric"}:
        words = [p for p in words if p.nominal or len(p.text) > 1]  # 上年末是多少: 是 asks
    if not words:
        return True
    if not text.rstrip(" ？?。.!！").endswith("呢"):
        return False
    if len(words) == 1 and not any(p.kind in ("name", "period", "metric") for p in pieces):
        return True
    verbs = [p for p in words if not p.nominal]
    return len(words) - len(verbs) <= 1 and sum(len(p.text) for p in verbs) <= 2


@lru_cache(maxsize=1024)
def tags(text: str) -> list[tuple[str, str]]:
    """jieba's tagged words, read once per question (the reading asks three times); a proper
    noun it glued to the conjunction or preposition before it (和锐驰, 和鹏屿) split from it."""
    out: list[tuple[str, str]] = []
    for word, tag in tagged(text):
        first = tagged(word[0]) if len(word) >= 3 and tag in _PROPER_TAGS else []
        if first and first[0][1] in ("c", "p"):
            out += [(word[0], first[0][1]), (word[1:], tag)]
        else:
            out.append((word, tag))
    return out


def _named(piece: Piece, known: Known) -> Piece:
    if piece.kind != "name":
        return piece
    entry = known.names.get(piece.text.lower())
    return Piece("name", piece.start, piece.end, piece.text, entry.name if entry else piece.text)


def _add_matches(
    matches: Iterable[re.Match[str]], kind: str, found: list[Piece], valued: bool = False
) -> None:
    """Each match no piece of ``found`` covers yet, as a piece of ``kind`` (its value its text
    when ``valued``)."""
    for match in matches:
        if free(found, match.start(), match.end()):
            value = match.group() if valued else ""
            found.append(Piece(kind, match.start(), match.end(), match.group(), value))


def _add_exact(text: str, words: Iterable[str], kind: str, found: list[Piece]) -> None:
    lowered = text.lower()
    for word in sorted(words, key=lambda w: (-len(w), w)):
        start = lowered.find(word.lower())
        while start >= 0:
            end = start + len(word)
            inside = [p for p in found if p.kind == kind and start <= p.start and p.end <= end]
            if free([p for p in found if p not in inside], start, end) and (
                not word.isascii() or _whole_word(text, start, end)
            ):  # the library's 利息净收入 over the finance term 净收入 within it
                found[:] = [p for p in found if p not in inside]
                found.append(Piece(kind, start, end, text[start:end], text[start:end]))
            start = lowered.find(word.lower(), end)


def _chinese_words(text: str, found: list[Piece], known: Known) -> list[Piece]:
    """The pieces of a Chinese question besides its exact slots: pointers (a pronoun and the
    noun it heads: 该公司, 这个平台), time pointers (同年), and runs of content words, each a
    name or a metric when the library holds one like it, else the question's own words."""
    out: list[Piece] = []
    run: list[tuple[int, int, str]] = []
    offset = 0
    tokens = tags(text)
    for i, (word, tag) in enumerate(tokens):
        start, end = offset, offset + len(word)
        offset = end
        if not free(found + out, start, end) or not word.strip():
            _close(text, run, out, known)
            continue
        if _part_of_year(word, tag):
            _close(text, run, out, known)
            out.append(Piece("period_part", start, end, word))
        elif _demonstrative(word, tag) and _degree(tokens, i):
            _close(text, run, out, known)  # 这么快, 这么高: how much, not which thing
        elif _demonstrative(word, tag):
            _close(text, run, out, known)
            end = _pointer_end(tokens, i, end, found)
            out.append(Piece("pointer", start, end, text[start:end]))
        elif tag == "t":
            _close(text, run, out, known)
            out.append(Piece("same_period", start, end, word))
        elif tag == "x" and len(word) >= 2 and _CJK.match(word):
            run.append((start, end, "n"))  # a finance term of our dictionary (同比增长)
        elif tag in _FUNCTION_TAGS:
            _close(text, run, out, known)
        else:
            run.append((start, end, tag))
    _close(text, run, out, known)
    # a pronoun's noun taken as a run before it was seen: drop runs inside a pointer
    return out


def _part_of_year(word: str, tag: str) -> bool:
    """一季度, 上半年, Q3: a period once a year is put before it (``text.periods``' pattern);
    全年: a quantity word (jieba's "m") of years, quarters or months."""
    if len(word) > 1 and any(PERIOD_SPAN.fullmatch(year + word) for year in ("2000年", "2000")):
        return True  # not a letter alone: the A of A类 is a share class, not 2024A
    return (  # not 月 alone (10 / 月 / 29 / 日: a date)
        tag == "m" and len(word) > 1 and any(u in word for u in "年季月") and not word[:1].isdigit()
    )


def _demonstrative(word: str, tag: str) -> bool:
    """A pronoun that points (它, 其, 该, 这个, 这份), not one that asks (哪, 什么, 谁)."""
    if tag == "mq":  # 这份: a demonstrative fused with its measure word
        tag = tags(word[:1])[0][1]
    return tag == "r" and not any(w in word for w in _ASKS_NAME) and "什么" not in word


def _degree(tokens: list[tuple[str, str]], i: int) -> bool:
    """A pronoun before an adjective or adverb (这么快, 这样高) says how much, not which."""
    return i + 1 < len(tokens) and tokens[i + 1][1] in ("a", "ad", "d")


def _pointer_end(tokens: list[tuple[str, str]], i: int, end: int, found: list[Piece]) -> int:
    """Where a pointer ends: over the numeral or measure word (这一, 这款) and the noun it heads
    (该公司, 这个平台, 这份报告), unless that noun is a slot of its own."""
    for word, tag in tokens[i + 1 : i + 3]:
        if tag in ("m", "q") and len(word) == 1:
            end += len(word)
        elif tag in ("n", "ng") and free(found, end, end + len(word)):
            return end + len(word)
        else:
            break
    return end


def _close(text: str, run: list[tuple[int, int, str]], out: list[Piece], known: Known) -> None:
    """A run of content words ends: a name or a metric when the library holds one like it;
    else a name it does not hold when it ends in a noun (its verbs after it apart: 金田机器人 |
    相比), else the question's own words."""
    if not run:
        return
    copula: list[tuple[int, int, str]] = []
    while run and run[-1][2] == "v" and run[-1][1] - run[-1][0] == 1:
        copula.insert(0, run.pop())  # 是, 有, 为: the asking verb, not part of a name
    if copula and not run:
        run[:], copula = copula, []
    piece = _kind_of(text, run[0][0], run[-1][1], known)
    if piece is None and len(run) > 1 and run[0][2] == "v" and run[0][1] - run[0][0] == 1:
        out.append(Piece("words", run[0][0], run[0][1], text[run[0][0] : run[0][1]]))
        del run[0]  # 是剑阳酒业 (an answer's first words): a copula, not part of the name
        piece = _kind_of(text, run[0][0], run[-1][1], known)
    if piece is None:
        last = max((i for i, (_, _, tag) in enumerate(run) if tag in _NAME_TAGS), default=-1)
        head, tail = run[: last + 1], run[last + 1 :]
        if head and tail:
            out.append(_kind_of(text, head[0][0], head[-1][1], known) or _noun(text, head))
            piece = Piece("words", tail[0][0], tail[-1][1], text[tail[0][0] : tail[-1][1]])
        else:
            piece = _noun(text, run)
    out.append(piece)
    if copula:
        out.append(Piece("words", copula[0][0], copula[-1][1], text[copula[0][0] : copula[-1][1]]))
    run.clear()


def _kind_of(text: str, start: int, end: int, known: Known) -> Piece | None:
    words = text[start:end]
    kind, entry, share = known.closest(words) if _CJK.search(words) else ("", "", 0.0)
    if share < known.min_share or (len(words) == 2 and not entry.lower().startswith(words.lower())):
        return None  # two characters are one bigram: a name or metric that begins with them
    return Piece(kind, start, end, words, known.names[entry].name if kind == "name" else words)


def _noun(text: str, run: list[tuple[int, int, str]]) -> Piece:
    start, end = run[0][0], run[-1][1]
    nominal = run[-1][2] in _NAME_TAGS and end - start >= 2
    proper = any(tag in _PROPER_TAGS for _, _, tag in run) or bool(_CAPITAL.search(text[start:end]))
    return Piece(
        "words", start, end, text[start:end], text[start:end], nominal=nominal, proper=proper
    )


def _english_words(text: str, found: list[Piece], known: Known) -> list[Piece]:
    """The pieces of an English question besides its exact slots: pointers (its, the company),
    time pointers (that year), capitalised names, and its own words (not question stopwords)."""
    out: list[Piece] = []
    lowered = text.lower()
    for match in POINTER_EN.finditer(text):  # the prior year, a year ago, that year
        if free(found + out, match.start(), match.end()):
            out.append(Piece("same_period", match.start(), match.end(), match.group()))
    for word in _POINTERS_EN:
        for match in re.finditer(rf"(?<![a-z0-9]){re.escape(word)}(?![a-z0-9])", lowered):
            if free(found + out, match.start(), match.end()):
                out.append(
                    Piece("pointer", match.start(), match.end(), text[match.start() : match.end()])
                )
    for word in _COMPARE_EN:
        for match in re.finditer(rf"(?<![a-z0-9]){re.escape(word)}(?![a-z0-9])", lowered):
            if free(found + out, match.start(), match.end()):
                out.append(Piece("compare", match.start(), match.end(), match.group()))
    for match in _CAPITALISED.finditer(text):
        name = " ".join(w for w in match.group().split() if w.lower() not in QUESTION_STOPWORDS_EN)
        if name and match.start() > 0 and free(found + out, match.start(), match.end()):
            start = text.index(name, match.start())
            entry = known.latin_name(name)  # "Calder Peak" of "Calder Peak Fund Management"
            value = entry.name if entry is not None else name
            out.append(Piece("name", start, start + len(name), name, value))
    for match in _LATIN_WORD.finditer(text):
        word = match.group().lower().removesuffix("'s")
        if word not in QUESTION_STOPWORDS_EN and free(found + out, match.start(), match.end()):
            last = out[-1] if out and out[-1].kind == "words" else None
            if last is not None and not text[last.end : match.start()].strip():
                out[-1] = replace(last, end=match.end(), text=text[last.start : match.end()])
            else:
                out.append(Piece("words", match.start(), match.end(), match.group()))
    return [replace(p, value=p.value if p.kind == "name" else p.text) for p in out]


def _compares(text: str, pieces: list[Piece]) -> bool:
    """A name set beside another: a conjunction or a preposition right before it (和华虹, 与X,
    跟X, 比X), not one elsewhere (华虹半导体在2025年呢)."""
    names = [p for p in pieces if p.kind == "name" or (p.kind == "words" and p.nominal)]
    if len(names) != 1:
        return False
    offset = 0
    for word, tag in tags(text):
        offset += len(word)
        if offset == names[0].start:
            return tag in ("c", "p")
    return False


def _subject(text: str, pieces: list[Piece], english: bool) -> Piece | None:
    """The phrase a question asks about: the name it leads with, the library's (with the names
    and nouns bound to it: 比亚迪合肥基地, 中国工业机器人) or not (``text.names``; a proper noun
    before its period and metric)."""
    names = [p for p in pieces if p.kind == "name"]
    lead = _leading(text, pieces, english)
    first = lead if not names or (lead is not None and lead.start < names[0].start) else names[0]
    if first is None:
        return None
    start, end, value = first.start, first.end, first.value
    for piece in [p for p in pieces if p.start >= end]:
        if piece.start != end or piece.kind not in ("name", "words") or english:
            break
        if piece.kind == "words" and not piece.nominal:
            break
        end, value = piece.end, value + piece.text
    return Piece("name", start, end, text[start:end], value, head=first.value)


def _leading(text: str, pieces: list[Piece], english: bool) -> Piece | None:
    lead = leading_name(text)
    lead = "" if lead.lower() in QUESTION_STOPWORDS_EN else lead  # "Who is the analyst?"
    latin = _CAPITALISED.match(text.strip())
    if not lead and latin is not None and not english:
        lead = latin.group()  # "Orvella Robotics 2025年第二季度的营业收入"
    start = text.find(lead) if lead else -1
    if start >= 0 and free([p for p in pieces if p.kind != "words"], start, start + len(lead)):
        return Piece("name", start, start + len(lead), lead, lead, head=lead)
    slots = [p.start for p in pieces if p.kind in ("period", "metric")]
    for piece in pieces:
        if piece.kind == "words" and piece.proper and piece.nominal:
            if piece.start < min(slots, default=len(text)):
                return Piece(
                    "name", piece.start, piece.end, piece.text, piece.text, head=piece.text
                )
    return None


def _whole_word(text: str, start: int, end: int) -> bool:
    before = text[start - 1] if start > 0 else " "
    after = text[end] if end < len(text) else " "
    return not (before.isascii() and before.isalnum()) and not (after.isascii() and after.isalnum())


def _has(lowered: str, word: str) -> bool:
    return re.search(rf"(?<![a-z0-9]){re.escape(word)}(?![a-z0-9])", lowered) is not None
