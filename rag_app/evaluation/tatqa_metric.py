"""TAT-QA's exact match and F1, as its authors' evaluation defines them (Zhu et al., ACL 2021;
written here from that definition, not copied).

An answer (one string, or several spans) and its scale ("", thousand, million, billion,
percent) become one string: the spans sorted, each number written as its value times the scale
with four decimals ("$1,496.5" in millions -> "1496500000.0000"; "12.5%" -> "0.1250"), any other
span followed by the scale's name. Both strings are then normalised word by word (lower case;
punctuation off a word that is not a number; a number as its value, "(134)" negative, "12%"
a hundredth; articles dropped) and compared: exact match when the normalised strings are equal,
F1 over their sets of words. A lone number predicted without a scale is also read as the value
itself (0.2342 matches 23.42 percent). For arithmetic and count questions F1 is the exact match.
"""

from __future__ import annotations

import math
import re
import string
from collections.abc import Sequence
from dataclasses import dataclass

SCALES = ("", "thousand", "million", "billion", "percent")
_SCALE_VALUE = (
    ("hundred", 100),
    ("thousand", 1000),
    ("million", 1_000_000),
    ("billion", 1_000_000_000),
    ("percent", 0.01),
)
_NOT_IN_NUMBER = set("'\"\\$€£¥%(),[]")
_FIRST_NUMBER = re.compile(r"[+-]?\d+(?:\.\d+)?|[+-]?\.\d+")
_NEGATIVE = re.compile(r"\([\d.\s]+\)")
_PERCENT = re.compile(r"[\d.\s]+%")
_NUMBER_AND_WORD = re.compile(r"[\d.]+\s?[a-zA-Z]+")
_ARTICLES = re.compile(r"\b(?:a|an|the)\b")
_PUNCTUATION = set(string.punctuation)


def scale_value(scale: str) -> float:
    """What a scale's name multiplies by (1 for none or an unknown word); ints stay ints, so a
    whole number keeps its written form ("-134", not "-134.0")."""
    lowered = scale.lower()
    return next((value for name, value in _SCALE_VALUE if name in lowered), 1)


def _clean(text: str) -> str:
    return "".join(ch for ch in text if ch not in _NOT_IN_NUMBER)


def is_number(text: str) -> bool:
    """A number, alone or followed by a scale word ("1023", "$1,496.5", "1 million")."""
    words = " ".join(_clean(w) for w in text.split()).split()
    if not words:
        return False
    try:
        value = float(words[0])
    except ValueError:
        return False
    if math.isnan(value):
        return False
    return len(words) < 2 or scale_value(words[1]) != 1


def to_number(text: str) -> float | None:
    """The value ``text`` writes, its sign, percent and scale word applied; None without one."""
    found = _FIRST_NUMBER.search(_clean(text))
    if found is None:
        return None
    raw = found.group()
    number: float = float(raw) if "." in raw else int(raw)
    word = _NUMBER_AND_WORD.search(text)
    factor = scale_value(word.group().lower()) if word else 1
    sign = -1 if _NEGATIVE.search(text.strip()) else 1
    percent = 0.01 if _PERCENT.search(text.strip()) else 1
    return round(number * factor * sign * percent, 4)


def _normalise(text: str) -> str:
    words = []
    for token in text.split(" "):
        token = token.lower()
        if not is_number(token):
            token = "".join(ch for ch in token if ch not in _PUNCTUATION)
        if is_number(token):
            token = str(to_number(token))
        token = " ".join(_ARTICLES.sub(" ", token).split())
        if token.strip():
            words.append(token)
    return " ".join(words).strip()


def answer_string(spans: Sequence[str], scale: str) -> str:
    """The spans as one string, each number its value times ``scale`` (see the module)."""
    parts = []
    for span in sorted(str(s) for s in spans):
        value = to_number(span) if is_number(span) else None
        if value is not None:
            if "%" in span:
                parts.append(f"{value:.4f}")
            else:
                parts.append(f"{round(value, 2) * scale_value(scale):.4f}")
        else:
            parts.append(f"{span} {scale}" if scale else span)
    return " ".join(parts)


def _f1(predicted: set[str], gold: set[str]) -> float:
    common = len(predicted & gold)
    precision = common / len(predicted) if predicted else 1.0
    recall = common / len(gold) if gold else 1.0
    if precision == 0.0 and recall == 0.0:
        return 0.0
    return 2 * precision * recall / (precision + recall)


def _compare(predicted: str, gold: str) -> tuple[float, float]:
    p, g = _normalise(predicted), _normalise(gold)
    exact = 1.0 if p == g else 0.0
    return exact, round(_f1(set(p.split()), set(g.split())), 2)


def gold_spans(answer: object, answer_type: str) -> list[str]:
    """A TAT-QA question's gold answer as spans: spans as given, a count as a whole number."""
    if answer_type in ("span", "multi-span"):
        return [str(a) for a in answer] if isinstance(answer, list) else [str(answer)]
    if isinstance(answer, list | tuple):  # one value given as a list of one
        if len(answer) != 1:
            return [str(a) for a in answer]
        answer = answer[0]
    if answer_type == "count":
        try:
            return [str(int(float(str(answer))))]
        except ValueError:
            return [str(answer)]
    return [str(answer)]


@dataclass(frozen=True)
class Score:
    exact_match: float
    f1: float


def score(
    predicted: str | Sequence[str],
    predicted_scale: str,
    gold: object,
    answer_type: str,
    gold_scale: str,
) -> Score:
    """One question's exact match and F1 (0 and 0 for no prediction)."""
    spans = [predicted] if isinstance(predicted, str) else list(predicted)
    spans = [s for s in spans if str(s).strip()]
    golds = gold_spans(gold, answer_type)
    if not spans or not golds:
        return Score(0.0, 0.0)
    truth = answer_string(golds, gold_scale)
    candidates = [answer_string(spans, predicted_scale)]
    lone = str(spans[0])
    if len(spans) == 1 and not predicted_scale and "%" not in lone and is_number(lone):
        value = to_number(lone)
        if value is not None:
            candidates.append(f"{value:.4f}")
    exact, f1 = max(_compare(c, truth) for c in candidates)
    if answer_type in ("arithmetic", "count"):
        f1 = exact
    return Score(exact, f1)
