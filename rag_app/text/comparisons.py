"""The threshold a question counts against: "How many years did X exceed $1,500 thousand?",
"…below $100 million", "超过50亿元的年份有几个？". The comparison words are the language's own
(English and Chinese comparatives), not any set's phrasing; the amount's scale is TAT-QA's
("", thousand, million, billion), "" when the question writes none (the table's scale then)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from rag_app.text.periods import YEAR

_ABOVE = (
    "exceeded|exceeds|exceed|above|more than|greater than|higher than|larger than|over|"
    "at least|超过|高于|大于|多于|以上"
)
_BELOW = "below|less than|lower than|smaller than|under|at most|低于|小于|少于|不足|以下"
_AMOUNT = (
    r"[$£€¥]?\s?(?P<number>\d[\d,]*(?:\.\d+)?)(?:\s?(?P<scale>thousand|million|billion|bn|m)\b)?"
)
_BEFORE = re.compile(rf"(?P<word>{_ABOVE}|{_BELOW})\s*(?:the\s+|of\s+)?{_AMOUNT}", re.I)
_AFTER = re.compile(rf"{_AMOUNT}[^\d\s]{{0,3}}(?P<word>以上|以下)")  # "50亿元以上"
_SCALES = {"": 1.0, "thousand": 1e3, "million": 1e6, "billion": 1e9, "m": 1e6, "bn": 1e9}
SCALE_NAMES = {"m": "million", "bn": "billion"}


@dataclass(frozen=True)
class Threshold:
    """``number`` in ``scale`` ("" when the question writes none); ``above`` or below it."""

    number: float
    scale: str
    above: bool

    def passes(self, value: float, value_scale: str) -> bool:
        """Whether ``value`` (in ``value_scale``) is beyond the threshold, scales applied; a
        threshold written with no scale is read in the value's."""
        mine = self.number * factor(self.scale or value_scale)
        theirs = value * factor(value_scale)
        return theirs > mine if self.above else theirs < mine


def factor(scale: str) -> float:
    """What a scale multiplies by (1 for "" and for a scale not in TAT-QA's list)."""
    return _SCALES.get(scale.lower(), 1.0)


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
    scale = (match.group("scale") or "").lower()
    above = bool(re.fullmatch(_ABOVE, match.group("word").lower()))
    number = float(match.group("number").replace(",", ""))
    return Threshold(number, SCALE_NAMES.get(scale, scale), above)
