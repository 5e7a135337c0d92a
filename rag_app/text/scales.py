"""The scale a report writes its amounts in: "(in millions)", "$'000", "RMB thousand", 百万元,
a percent sign. Read from the text around a value (its cell, row label, column header, table
caption, the sentence introducing the table), nearest first; the scale names are TAT-QA's
("", thousand, million, billion, percent)."""

from __future__ import annotations

import re
from collections.abc import Iterable

# A scale word as reports write it beside amounts: "in millions", "$ million", "US$m", "'000",
# "千元", "百万元", "十亿". Chinese 万 and 亿 are no scale of this list (a value keeps them).
_WORDS = (
    ("billion", r"\bbillions?\b|[$£€¥]\s?bn\b|\bbn\b|十亿"),
    ("million", r"\bmillions?\b|[$£€¥]\s?m\b|\bmn\b|\bmm\b|百万"),
    ("thousand", r"\bthousands?\b|['’]000s?\b|[$£€¥]\s?000s?\b|[$£€¥]k\b|千元"),
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
