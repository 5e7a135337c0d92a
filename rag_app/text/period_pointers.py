"""A period named from another one, as readers write it: years away (两年前, 前年, "two years
earlier") and English pointers ("the prior year", "a year ago", "the quarter before that", "the
same period last year"), read by their grammar (a direction and a unit of time, or a count of
units and a direction) rather than listed phrase by phrase."""

from __future__ import annotations

import re

from rag_app.text.periods import months_named, period_tokens, quarter_named, sequential

# Years away from another period: 两年前, 3年后, 前年 (the year before last), "two years earlier".
YEARS_AWAY = re.compile(
    r"([一两二三四五1-5])\s*年(?:以)?([前后])|前年|(?<![a-z])(one|two|three|four|five)\s+years?\s+"
    r"(earlier|before|ago|prior|later|after)(?![a-z])",
    re.IGNORECASE,
)
_COUNT = {"一": 1, "两": 2, "二": 2, "三": 3, "四": 4, "五": 5, "one": 1, "two": 2, "three": 3}
_COUNT |= {"four": 4, "five": 5, "a": 1, "an": 1}

_UNIT = r"(year|quarter|month)s?"
_BACK = ("previous", "prior", "preceding", "last", "earlier", "before", "ago")
_FORTH = ("following", "next", "subsequent", "later", "after")
# An English period named from another: the same one (that year, the same period), one a
# direction away (the prior year, the quarter before that, the next month), a count of units
# away (a year ago, two quarters earlier), or the same part of the year before (the same
# quarter last year, the year-earlier period).
POINTER_EN = re.compile(
    r"(?<![a-z-])(?:"
    r"(?:the\s+)?same\s+(?:year|period|quarter|month|half)"
    r"(?:\s+(?:of\s+)?(?:last|the\s+previous|the\s+prior)\s+year|\s+a\s+year\s+(?:ago|earlier))?"
    r"|(?:in\s+)?that\s+year"
    rf"|(?:the\s+)?(?:previous|prior|preceding|last|following|next|subsequent)\s+{_UNIT}"
    rf"|(?:the\s+)?{_UNIT}\s+(?:before|after|earlier|prior|later)(?:\s+that)?"
    rf"|(?:an?|one|two|three|four|five|\d)\s+{_UNIT}\s+(?:earlier|before|ago|prior|later|after)"
    r"(?:\s+that)?"
    r"|(?:the\s+)?(?:year|quarter|month)-(?:earlier|ago)(?:\s+(?:period|figure|quarter|month))?"
    r")(?![a-z-])",
    re.IGNORECASE,
)


def years_away(text: str) -> int | None:
    """The years a pointer moves by (两年前 -2, 3年后 3, 前年 -2, "two years earlier" -2), None
    when it names no count of years."""
    match = YEARS_AWAY.fullmatch(text.strip())
    if match is None:
        return None
    if match.group(0) == "前年":
        return -2
    count, way = (match.group(1), match.group(2)) if match.group(1) else match.group(3, 4)
    n = int(count) if count.isdigit() else _COUNT[count.lower()]
    return -n if way.lower() in ("前", "earlier", "before", "ago", "prior") else n


def english_step(pointer: str) -> tuple[str, int] | None:
    """What an English pointer moves by, as (unit, steps): ("year", -1) of "the prior year",
    "a year ago", "the same quarter last year"; ("quarter", -2) of "two quarters earlier";
    ("year", 0) of "that year"; None when it is no pointer."""
    lowered = " ".join(pointer.lower().split())
    if POINTER_EN.fullmatch(lowered) is None:
        return None
    if "same" in lowered or "that year" in lowered:  # the same period (a year before)
        back = re.search(r"(?:last|previous|prior) year|a year (?:ago|earlier)", lowered)
        return "year", -1 if back else 0
    if "-" in lowered:  # year-earlier, quarter-ago
        return lowered.split("-")[0].split()[-1], -1
    unit = re.search(_UNIT, lowered)
    count = re.match(r"(an?|one|two|three|four|five|\d)\s", lowered)
    n = (
        (int(count.group(1)) if count.group(1).isdigit() else _COUNT[count.group(1)])
        if count
        else 1
    )
    words = set(re.findall(r"[a-z]+", lowered))
    way = -1 if words & set(_BACK) else 1 if words & set(_FORTH) else 0
    return (unit.group(1) if unit else "year"), way * n


# A change against the same period a year before: 同比, 去年同期, year on year, YoY.
_YEAR_BEFORE = re.compile(r"同比|[去上]年同期|\b(?:year[- ](?:on|over)[- ]year|yoy)\b", re.I)


def states_change(label: str) -> bool:
    """Whether a column's label says 同比 or 环比: it states a change against the year or the
    period before, not the amount that changes."""
    return sequential(label) or _YEAR_BEFORE.search(label) is not None


def quarters_compared(text: str) -> tuple[tuple[str, int], tuple[str, int]] | None:
    """For a change of one quarter against a quarter of another year, each as (its year or "",
    its number), the later first: the two ``text`` names with their years (2024年三季度比2023年
    三季度), or the one it names with 同比 or "year on year" and the same quarter a year before
    (2024Q3同比: ("2024", 3), ("2023", 3); 三季度同比: ("", 3), ("", 3), the latest year's against
    the one before); None otherwise, and when it names a month."""
    if months_named(text):
        return None
    found = list(dict.fromkeys((t[:4], int(t[5])) for t in period_tokens(text) if t[4:5] == "q"))
    if len(found) == 2 and found[0][0] != found[1][0]:
        return max(found), min(found)
    named = found[0] if len(found) == 1 else None if found else quarter_named(text)
    if named is None or not _YEAR_BEFORE.search(text):
        return None
    year, number = named
    return named, (str(int(year) - 1) if year else "", number)
