"""How a fact line is written: a number rounded, a line with its source, the power of ten and
the scale a cell is written in."""

from __future__ import annotations

import re
from collections.abc import Sequence

from rag_app.facts.cells import Fact, source_scale
from rag_app.facts.rows import UNIT
from rag_app.models import Chunk
from rag_app.text.language import CJK_UNIFIED
from rag_app.text.scales import stated_exponent

_SCALE_WORDS = ("thousand", "million", "billion")  # written after an English amount
# What makes a label's bracketed unit (rows.UNIT) its own: a Chinese report's word or a percent sign
_UNIT_WORD = re.compile(rf"[{CJK_UNIFIED}%％]")


def written(number: float) -> str:
    """A number rounded to two decimals, its zeros after the point dropped ("-12.6")."""
    text = f"{round(number, 2):.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def fact_line(head: str, amount: str, scale: str, source: int, lang: str) -> str:
    if lang == "en" and scale in _SCALE_WORDS and scale not in amount.lower():
        amount = f"{amount} {scale}"
    colon = ": " if lang == "en" else "："
    return f"{head.strip(', ')}{colon}{amount} [Source {source}]"


def power_of_ten(fact: Fact, source: int, sources: Sequence[tuple[int, Chunk]]) -> int:
    """The power of ten a cell's amount is written in: what its row or column label states
    ("营业收入（万元）"), else its table ("单位：万元", "(in thousands)"), else 0."""
    chunk = dict(sources).get(source)
    stated = [fact.metric, fact.column, *((chunk.caption, chunk.context) if chunk else ())]
    found = next((e for text in stated if (e := stated_exponent(text))), 0)
    return found or {"thousand": 3, "million": 6, "billion": 9}.get(
        cell_scale(fact, source, sources), 0
    )


def cell_scale(fact: Fact, source: int, sources: Sequence[tuple[int, Chunk]]) -> str:
    """The scale of a cell: its own, else the one its row or column label states ("（百万元）"
    million); a label with a unit of its own ("营业收入（亿元）", "产能利用率（%）") borrows none
    from the sources near it; else its source's."""
    if fact.scale:
        return fact.scale
    labels = (fact.metric, fact.column)
    own = next((e for label in labels if (e := stated_exponent(label))), 0)
    if own or any(
        (unit := UNIT.search(label)) and _UNIT_WORD.search(unit.group()) for label in labels
    ):
        return {3: "thousand", 6: "million", 9: "billion"}.get(own, "")
    return source_scale(source, sources)


def shared_head(labels: list[str]) -> tuple[str, list[str]]:
    """The leading parts the labels share ("报告期（…）" of "报告期（…） / 混合A" and "… / 混合C"),
    written once, and what is left of each; ("", labels) when they share none."""
    split = [label.split(" / ") for label in labels]
    common = 0
    while all(len(s) > common + 1 for s in split) and len({s[common] for s in split}) == 1:
        common += 1
    return " / ".join(split[0][:common]), [" / ".join(s[common:]) for s in split]
