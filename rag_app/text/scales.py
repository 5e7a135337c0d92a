"""The scale a report writes its amounts in: "(in millions)", "$'000", "RMB thousand", 百万元,
a percent sign. Read from the text around a value (its cell, row label, column header, table
caption, the sentence introducing the table), nearest first; the scale names are TAT-QA's
("", thousand, million, billion, percent)."""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable

from rag_app.text.language import CJK_UNIFIED, stem
from rag_app.text.periods import YEAR

# A scale word as reports write it beside amounts: "in millions", "$ million", "US$m", "'000",
# "千元", "百万元", "十亿". Chinese 万 and 亿 are no scale of this list (a value keeps them).
_WORDS = (
    ("billion", r"\bbillions?\b|[$£€¥]\s?bn\b|\bbn\b|十亿"),
    ("million", r"\bmillions?\b|[$£€¥]\s?m\b|\bmn\b|\bmm\b|百万"),
    ("thousand", r"\bthousands?\b|['‘’]000s?\b|[$£€¥]\s?000s?\b|[$£€¥]k\b|千元"),
)
_SCALE_PATTERNS = tuple((name, re.compile(pattern, re.I)) for name, pattern in _WORDS)
_PERCENT = re.compile(r"[%％]|\bper\s?cent\b|\bpercent(?:age)?\b", re.I)


def value_scale(value: str, around: Iterable[str] = ()) -> str:
    """The scale of ``value``: percent when it carries a percent sign, else the first scale
    word of ``around`` (nearest text first), else ""."""
    if _PERCENT.search(value):
        return "percent"
    for text in (value, *around):
        for name, pattern in _SCALE_PATTERNS:
            if pattern.search(text or ""):
                return name
    return ""


# How a table or its paragraph states the scale of all its amounts: "(in millions)", "amounts in
# thousands", "$ in millions", "£m", "$'000", "（百万元）" -- not an amount of its own ("$3.8
# billion"), which names its own scale only.
_AMOUNT = re.compile(r"\d\s*(?:thousand|million|billion|bn|m)\b", re.I)


def stated_scale(texts: Iterable[str]) -> str:
    """The scale the first of ``texts`` that states one for all its amounts gives; ""."""
    for text in texts:
        cleaned = _AMOUNT.sub(" ", text or "")
        scale = value_scale("", [cleaned])
        if scale and scale != "percent":
            return scale
    return ""


# An amount as a sentence states it: "$9.5 million", "547,000", "3.45 cents", "14%", "RMB 2.3
# billion", "€ 2.3 billion", "2.5 years".
_STATED = re.compile(
    r"(?:(?:US|RMB|HK)?[$£€¥]\s?|RMB\s?)?\(?-?\d[\d,]*(?:\.\d+)?\)?"
    r"(?:\s?%|m\b|bn\b|\s(?:thousand|million|billion|cents?|years?|months?|days?|percent))?\)?",
    re.I,
)
_WORD = re.compile(f"[A-Za-z{CJK_UNIFIED}]+")
_MONTH_BEFORE = re.compile(
    r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s*$", re.I
)
_YEAR_AFTER = re.compile(rf"(?:st|nd|rd|th)?,?\s+{YEAR.pattern}")


def stated_amount(sentence: str, asked: str, words: Collection[str]) -> str:
    """The amount ``sentence`` states nearest the question ``asked``: of its amounts (not a
    year, not a number the question itself writes), the one whose six words on either side
    share most with the question's ``words`` (its match terms); "" when none."""
    best, best_score = "", -1
    for match in _STATED.finditer(sentence):
        amount = match.group().strip().rstrip(",")
        digits = re.sub(r"[^\d.]", "", amount)
        if not digits or digits in re.sub(r"[^\d. ]", " ", asked).split():
            continue  # a number the question writes (its year, its date)
        if YEAR.fullmatch(amount):
            continue  # a year names when, not how much
        if re.fullmatch(r"\d{1,2}", amount) and (
            _MONTH_BEFORE.search(sentence[: match.start()])
            or _YEAR_AFTER.match(sentence[match.end() :])
        ):
            continue  # the day of a date ("December 31, 2019")
        before = _WORD.findall(sentence[: match.start()])[-6:]
        after = _WORD.findall(sentence[match.end() :])[:6]
        score = sum(1 for w in before + after if stem(w.lower()) in words or w in words)
        if score > best_score:
            best, best_score = amount, score
    return best


# The power of ten a scale word stands for when written right after an amount ("28.74亿元",
# "$3.8 billion", "5万片") or stated for every amount of a table, row or column ("（百万元）",
# "单位：万元", "(in millions)", "$'000"). Chinese 万 and 亿 count here: an answer that says
# "577.96亿元" of a table's 57,796 百万元 states the same amount.
_EXPONENT_WORDS = (
    ("万亿", 12),
    ("千亿", 11),
    ("百亿", 10),
    ("十亿", 9),
    ("千万", 7),
    ("百万", 6),
    ("亿", 8),
    ("万", 4),
    ("billion", 9),
    ("bn", 9),
    ("million", 6),
    ("mn", 6),
    ("thousand", 3),
)
_AFTER_AMOUNT = re.compile(
    r"\s?(?:(万亿|千亿|百亿|十亿|千万|百万|亿|万)|(billions?|bn|millions?|mn|thousands?)\b)", re.I
)
# "单位：万元", "（百万元）", "单位：人民币亿元" (the currency may come before the scale)
_STATED_CJK = re.compile(
    r"(?:单位\s*[:：]\s*|[（(]\s*)(?:人民币|美元|港元|港币|欧元)?\s*(万亿|千亿|百亿|十亿|千万|百万|亿|万)"
)
_EXPONENT_OF = {"thousand": 3, "million": 6, "billion": 9}


def exponent_after(text: str, end: int) -> int:
    """The power of ten the scale word right after ``text[:end]`` stands for; 0 when none."""
    found = _AFTER_AMOUNT.match(text, end)
    if found is None:
        return 0
    word = (found.group(1) or found.group(2)).lower().rstrip("s")
    return next((e for w, e in _EXPONENT_WORDS if w == word), 0)


def stated_exponent(text: str) -> int:
    """The power of ten ``text`` states for all its amounts ("（百万元）" 6, "单位：万元" 4,
    "(in millions)" 6, "$'000" 3); 0 when it states none (an amount's own word is not one)."""
    found = _STATED_CJK.search(text or "")
    if found:
        return next(e for w, e in _EXPONENT_WORDS if w == found.group(1))
    return _EXPONENT_OF.get(stated_scale([text]), 0)
