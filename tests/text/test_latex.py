"""MinerU's inline math read as text where it is shown or quoted."""

from __future__ import annotations

import pytest

from rag_app.text.latex import latex_to_text


@pytest.mark.parametrize(
    ("raw", "text"),
    [
        (r"单体容量$\geq 1 9 6 ~ \mathrm{A h}$的电芯", "单体容量≥196 Ah的电芯"),
        (r"毛利率提升$2 0 . 5 \%$", "毛利率提升20.5%"),
        (r"能量密度$\leq 5 \mathrm{k W h}$", "能量密度≤5 kWh"),
        (r"$3 \times 4$", "3 × 4"),
        (r"$\mathrm{CO}_{2}$排放", "CO2排放"),
        (r"$1 0 ^ {6}$ 次", "10^6 次"),
        (r"$2 0 2 4$年", "2024年"),
    ],
)
def test_inline_math_becomes_text(raw, text):
    assert latex_to_text(raw) == text


@pytest.mark.parametrize(
    "plain",
    ["revenue of $6.32 billion and $5 million", "营业收入为63.2亿美元", "price $12 (or $13)"],
)
def test_dollar_amounts_and_plain_text_are_left_alone(plain):
    assert latex_to_text(plain) == plain
