"""MinerU's math read as text where it is shown or quoted (issue 21, item 11).

The cases are written here after the shapes found in real MinerU outputs (the datasheet, paper
and journal fixtures of ../shared/eval/mineru_fixtures): digits spelled one by one, units in
``\\mathrm`` with or without braces and spaces, ``^{\\circ}`` in every spelling, scripts without
a base, ``\\pmb`` / ``\\boldsymbol``, display blocks over several lines.
"""

from __future__ import annotations

import re

import pytest

from rag_app.text.latex import latex_to_text

# Markup a reader must never see: a command, a brace, a script sign, a dollar.
_LEFTOVER = re.compile(r"\\[A-Za-z]|\$|\^\s*°|\bmathrm\b|\bcirc\b|\bpmb\b")


@pytest.mark.parametrize(
    ("raw", "text"),
    [
        # the cases this converter already read
        (r"单体容量$\geq 1 9 6 ~ \mathrm{A h}$的电芯", "单体容量≥196 Ah的电芯"),
        (r"毛利率提升$2 0 . 5 \%$", "毛利率提升20.5%"),
        (r"能量密度$\leq 5 \mathrm{k W h}$", "能量密度≤5 kWh"),
        (r"$3 \times 4$", "3 × 4"),
        (r"$\mathrm{CO}_{2}$排放", "CO2排放"),
        (r"$1 0 ^ {6}$ 次", "10^6 次"),
        (r"$2 0 2 4$年", "2024年"),
        # degrees: ^{\circ}, ^ \circ, { } ^ { \circ }, inside \mathrm, after \bf
        (r"环境温度$2 7 { \pm } 2 ^ { \circ } \mathrm { C }$", "环境温度27±2°C"),
        (r"在$3 5 ~ ^ { \circ } \mathrm { C }$下", "在35°C下"),
        (r"静置$4 5 \mathrm { { ^ \circ C } }$", "静置45°C"),
        (r"加热至$4 0 \mathrm { { } ^ { \circ } C }$", "加热至40°C"),
        (r"冷却到${ \bf 1 5 ^ { \circ } C }$", "冷却到15°C"),
        (r"$\mathbf { - 1 0 } \ \mathbf { \circ } \mathbf { C }$", "-10°C"),
        (r"$\mathbf { - } 1 \mathbf { 5 } ^ { \circ } \mathrm { C }$", "-15°C"),
        (
            r"$5 \ ^ { \circ } \mathrm { C } { \le } \mathrm { T } { < } 1 5 \ ^ { \circ } \mathrm { C }$",
            "5°C≤T<15°C",
        ),
        # scripts without a base, ranges
        (r"${ } _ { - 1 0 } \mathrm { { } ^ { \circ } C }$", "-10°C"),
        (
            r"${ } _ { - 1 0 } \circ _ { \mathrm { C } \sim 4 5 ^ { \circ } \mathrm { C } }$",
            "-10°C~45°C",
        ),
        (r"湿度$3 0 \small \sim 7 0 \%$", "湿度30~70%"),
        (r"$2 0 0{-}3 0 0\ \mathrm{mm}$", "200-300 mm"),
        # units with and without braces, spaced inside or out, nested braces
        (r"$4 . 2 5 \mathrm { V }$", "4.25 V"),
        (r"$1 2 . 5 \mathrm { ~ A ~ }$", "12.5 A"),
        (r"$8 . 1 \pm 0 . 2 \mathrm { ~ A ~ }$", "8.1±0.2 A"),
        (r"$1 5 0 \mathrm { \ A }$", "150 A"),
        (r"$2 0 \mathrm { { m i n } }$", "20 min"),
        (r"$8 0 \% \mathrm { S O C }$", "80% SOC"),
        (r"$3 0 \textrm { ‰}$", "30‰"),
        (r"$9 5 0\,\mathrm{mm}$", "950 mm"),
        (r"$50\mathrm{th}$", "50th"),
        (r"$leq 5 \%$", "≤5%"),  # MinerU dropped the backslash
        # comparisons with TeX's negative spaces
        (r"$<\!30\%$", "<30%"),
        (r"$R\!>\!0.9$", "R>0.9"),
        (r"$p < 0 . 0 5 $", "p<0.05"),
        # paper math: bold symbols, scripts, sets, fractions, accents, \left( \right)
        (r"$\pmb { x } _ { t } = \{ { a } _ { t } , \pmb { b } _ { t } \}$", "x_t = {a_t, b_t}"),
        (r"$\boldsymbol { z } _ { k } ^ { ' }$", "z_k′"),
        (
            r"$\mathbf { W } _ { o u t } ~ \in ~ \mathbb { R } ^ { d \times n }$",
            "W_out ∈ R^(d × n)",
        ),
        (r"$\alpha _ { 1 } = 0 . 5$", "α1 = 0.5"),
        (r"$\frac{a}{b+c}$", "a/(b+c)"),
        (r"$\hat { y } _ { i }$", "ŷ_i"),
        (r"$\bar{X}$", "X̄"),
        (r"$x ^ { - 2 }$", "x^(-2)"),
        (r"$t^{\prime}$", "t′"),
        (r"$S$", "S"),
        (r"$\copyright$", "©"),
        (
            "见式（1）：\n$$\ny=\\frac{k}{1+\\exp\\left(\\frac{T-T_{\\mathrm{m}}}{s}\\right)}\n$$\n其中",
            "见式（1）：\ny = k/(1+exp((T-T_m)/s))\n其中",
        ),
        (
            "$$\n\\begin{array} { r } { { \\pmb { h } } _ { i } = \\pmb { W } \\pmb { e } _ { i } } "
            "\\end{array}\n$$",
            "h_i = We_i",
        ),
        # table cells: a span never pairs with a "$" in another cell
        (
            r"<td>$3 5 ~ ^ { \circ } \mathrm { C }$</td><td>$4 . 2 \mathrm { V }$</td>",
            "<td>35°C</td><td>4.2 V</td>",
        ),
    ],
)
def test_math_becomes_text(raw: str, text: str) -> None:
    converted = latex_to_text(raw)
    assert converted == text
    assert not _LEFTOVER.search(converted)
    if "\\{" not in raw:  # a set's braces are text; TeX's grouping braces are not
        assert "{" not in converted and "}" not in converted


@pytest.mark.parametrize(
    "plain",
    ["revenue of $6.32 billion and $5 million", "营业收入为63.2亿美元", "price $12 (or $13)"],
)
def test_dollar_amounts_and_plain_text_are_left_alone(plain: str) -> None:
    assert latex_to_text(plain) == plain


def test_unbalanced_or_deep_math_never_raises() -> None:
    assert latex_to_text(r"$\frac{1$") == "1/"
    deep = "$" + "{" * 3000 + "x" + "}" * 3000 + "$"
    assert "x" in latex_to_text(deep)
