"""Number formats of filings: yuan with cents and thousands separators, changes in percent."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal


def amount(text: str) -> Decimal:
    return Decimal(text.replace(",", ""))


def change(now: str, before: str) -> str:
    """The change from ``before`` to ``now`` in percent, two decimals, as filings print it."""
    value = (amount(now) / amount(before) - 1) * 100
    return str(value.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))


def margin(revenue: str, cost: str) -> str:
    """The gross margin of a revenue and its cost, in percent with two decimals."""
    value = (1 - amount(cost) / amount(revenue)) * 100
    return str(value.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))


def money(value: Decimal) -> str:
    return f"{value:,.2f}"


def remainder(total: str, parts: list[str]) -> str:
    """The last of a set of parts that add up to ``total`` (a year less its first quarters)."""
    return money(amount(total) - sum((amount(p) for p in parts), Decimal(0)))
