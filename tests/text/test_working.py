"""A worked answer's arithmetic (rag_app/text/working.py): a result counts as traced to the
numbers written before it only when the expression gives it to its written precision."""

from __future__ import annotations

from decimal import Decimal

import pytest

from rag_app.text.working import worked_results


@pytest.mark.parametrize(
    ("text", "results"),
    [
        ("Freight, change 2018-2019: 12340 - 10115 = 2225 thousand [Source 2]", {"2225"}),
        ("Warehousing: (4210 - 4480) / 4480 = -6.03% [Source 2]", {"6.03"}),
        ("(16,550 + 14,595) / 2 = 15,572.5", {"15572.5", "2"}),  # an average's own count
        ("(1 + 2 + 3) / 2 = 3", {"3"}),  # 2 divides three terms: no count of its own
        ("营业收入 2023-2024变化：3286.45 − 2851.3 = 435.15 [Source 1]", {"435.15"}),
        ("12340 - 10115 = 2226", set()),  # wrong by one
        ("(4210 - 4480) / 4480 = -6.1%", set()),  # wrong at its precision
        ("revenue was 2019 = 3", set()),  # no working
        ("1 / 0 = 5", set()),
    ],
)
def test_worked_results(text: str, results: set[str]) -> None:
    assert worked_results(text) == {Decimal(r) for r in results}
