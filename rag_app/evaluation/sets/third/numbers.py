"""Number formats of the third set's documents: amounts with thousands separators (元 with cents,
千元 and 万元 whole or with two decimals), changes and shares in percent, rounded half up."""

from __future__ import annotations

from collections.abc import Iterable
from decimal import ROUND_HALF_UP, Decimal


def num(text: str) -> Decimal:
    """A cell as a number: "1,486,235,719.42" -> Decimal; "-8,452,116" keeps its sign."""
    return Decimal(text.replace(",", "").replace("−", "-"))


def places(text: str) -> int:
    """How many decimals a cell is written with."""
    return len(text.split(".")[1]) if "." in text else 0


def fmt(value: Decimal, decimals: int = 2, sep: bool = True) -> str:
    """``value`` rounded half up to ``decimals`` places, with thousands separators."""
    q = value.quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP)
    return f"{q:,.{decimals}f}" if sep else f"{q:.{decimals}f}"


def change(now: str, before: str, decimals: int = 2) -> str:
    """The change from ``before`` to ``now`` in percent; "不适用" when ``before`` is not positive."""
    b = num(before)
    if b <= 0:
        return "不适用"
    return fmt((num(now) / b - 1) * 100, decimals, sep=False)


def share(part: str, whole: str, decimals: int = 2) -> str:
    """``part`` as a percentage of ``whole``."""
    return fmt(num(part) / num(whole) * 100, decimals, sep=False)


def total(parts: Iterable[str], decimals: int | None = None) -> str:
    """The sum of cells, written like them (separators, the largest number of decimals)."""
    cells = list(parts)
    d = max(places(c) for c in cells) if decimals is None else decimals
    return fmt(sum((num(c) for c in cells), Decimal(0)), d)


def less(whole: str, parts: Iterable[str]) -> str:
    """``whole`` less ``parts`` (the remainder line of a breakdown), written like ``whole``."""
    cells = list(parts)
    return fmt(num(whole) - sum((num(c) for c in cells), Decimal(0)), places(whole))


def points(now: str, before: str) -> str:
    """A change of a rate in percentage points, as filings word it."""
    delta = num(now) - num(before)
    word = "增加" if delta >= 0 else "减少"
    return f"{word}{fmt(abs(delta), max(places(now), places(before)), sep=False)}个百分点"
