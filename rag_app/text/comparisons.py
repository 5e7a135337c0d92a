"""The threshold a question counts against: "How many years did X exceed $1,500 thousand?",
"…below $100 million", "超过50亿元的年份有几个？". The comparison words are the language's own
(English and Chinese comparatives), not any set's phrasing; the amount's scale is the word
written after it (thousand, million, billion, 万, 亿, ``text.scales``), none when the question
writes none (the table's scale then)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from rag_app.text.periods import YEAR
from rag_app.text.scales import exponent_after

_ABOVE = (
    "exceeded|exceeds|exceed|above|more than|greater than|higher than|larger than|over|"
    "at least|超过|高于|大于|多于|以上"
)
_BELOW = "below|less than|lower than|smaller than|under|at most|低于|小于|少于|不足|以下"
_AMOUNT = r"[$£€¥]?\s?(?P<number>\d[\d,]*(?:\.\d+)?)"
# the comparative, then the amount; a Chinese one may take 了 ("超过了4,300百万元")
_BEFORE = re.compile(rf"(?P<word>{_ABOVE}|{_BELOW})\s*(?:了\s*|the\s+|of\s+)?{_AMOUNT}", re.I)
_AFTER = re.compile(rf"{_AMOUNT}[^\d\s]{{0,3}}(?P<word>以上|以下)")  # "50亿元以上"
_MILLIONS = re.compile(r"\s?m\b", re.I)  # "$100m"
_WORD_AFTER = re.compile(r"\s?([^\W\d_]+)")


@dataclass(frozen=True)
class Threshold:
    """``number`` times ten to ``exponent`` (the scale word the question writes after it,
    ``unit``: "million", "亿"; 0 and "" when none); ``above`` or below it."""

    number: float
    exponent: int
    unit: str
    above: bool

    def passes(self, value: float, value_exponent: int) -> bool:
        """Whether ``value`` (times ten to ``value_exponent``, its table's scale) is beyond the
        threshold; a threshold written with no scale word is read in the value's scale."""
        mine = self.number * 10 ** (self.exponent if self.unit else value_exponent)
        theirs = value * 10**value_exponent
        return theirs > mine if self.above else theirs < mine


def threshold(text: str) -> Threshold | None:
    """The first amount ``text`` compares against, with its direction; None when none."""
    found = [
        m
        for pattern in (_BEFORE, _AFTER)
        for m in pattern.finditer(text)
        if not YEAR.fullmatch(m.group("number"))  # "over 2019" names a period, not an amount
    ]
    if not found:
        return None
    match = min(found, key=lambda m: m.start())
    end = match.end("number")
    exponent, unit = exponent_after(text, end), ""
    if exponent:
        word = _WORD_AFTER.match(text, end)
        unit = word.group(1) if word else ""
    elif _MILLIONS.match(text, end):
        exponent, unit = 6, "million"
    if unit and not unit.isascii():  # 亿元 -> 亿: the scale, not the currency
        unit = next(
            w
            for w in ("万亿", "千亿", "百亿", "十亿", "千万", "百万", "亿", "万")
            if unit.startswith(w)
        )
    above = bool(re.fullmatch(_ABOVE, match.group("word").lower()))
    number = float(match.group("number").replace(",", ""))
    return Threshold(number, exponent, unit.lower(), above)
