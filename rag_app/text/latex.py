"""MinerU's inline math as plain text: "$\\geq 1 9 6 ~ \\mathrm{A h}$" reads "≥196 Ah".

Parsers write units, comparisons and numbers found in a PDF's text as LaTeX between ``$``; a
reader (and an answer quoting the sentence) wants the text. Applied where text is shown or
quoted, never at ingestion: chunk text (and so chunk ids and the index) stays as parsed.
"""

from __future__ import annotations

import re

# Commands read as the symbol they print; the common ones in research reports' parsed text.
_SYMBOLS = {
    "geq": "≥",
    "ge": "≥",
    "leq": "≤",
    "le": "≤",
    "times": "×",
    "div": "÷",
    "pm": "±",
    "approx": "≈",
    "neq": "≠",
    "ne": "≠",
    "cdot": "·",
    "rightarrow": "→",
    "to": "→",
    "leftarrow": "←",
    "uparrow": "↑",
    "downarrow": "↓",
    "degree": "°",
    "circ": "°",
    "alpha": "α",
    "beta": "β",
    "mu": "μ",
    "Omega": "Ω",
    "infty": "∞",
    "sim": " ",
    "quad": " ",
    "qquad": " ",
}
# Commands whose braced argument is plain text: \mathrm{A h} -> "Ah".
_TEXT_COMMANDS = re.compile(
    r"\\(?:mathrm|text|textrm|mathbf|mathit|operatorname|boldsymbol|mathsf|rm|bf)\s*\{([^{}]*)\}"
)
_INLINE = re.compile(r"\$\$?([^$<>\n]{1,400}?)\$\$?")
_COMMAND = re.compile(r"\\([A-Za-z]+)")
_ESCAPED = re.compile(r"\\([%$&#_{}])")
_SPACING = re.compile(r"\\[,;:! ]|~")
_SCRIPT = re.compile(r"\s*([\^_])\s*\{([^{}]*)\}")
# Digits MinerU spells one by one ("1 9 6", "2 0 . 5"): joined back into a number.
_SPACED_DIGITS = re.compile(r"(?<![\d.])\d(?:\s+[\d.])+(?![\d.])")
_MATH_MARK = re.compile(r"[\\^_{}]")
_LATIN_LETTERS = re.compile(r"\b([A-Za-z])\s+(?=[A-Za-z]\b)")


def latex_to_text(text: str) -> str:
    """``text`` with each ``$...$`` span written as plain text (commands to symbols, ``\\mathrm``
    and the like to their argument, spaced digits joined, braces and ``$`` dropped); text outside
    the spans is left alone. Never raises."""
    if "$" not in text:
        return text
    return _INLINE.sub(
        lambda m: _span_text(m.group(1)) if _is_math(m.group(1)) else m.group(0), text
    )


def _is_math(span: str) -> bool:
    # "$6.32 billion and $5 million" holds two dollar amounts, not math: a span is math when it
    # has a command, a brace or a script, or is digits MinerU spelled one by one ("$2 0 2 4$").
    return bool(_MATH_MARK.search(span)) or _SPACED_DIGITS.fullmatch(span.strip()) is not None


def _span_text(span: str) -> str:
    span = _ESCAPED.sub(r"\1", span)
    span = _TEXT_COMMANDS.sub(lambda m: _join_letters(m.group(1)), span)
    span = _SPACING.sub(" ", span)
    span = _SCRIPT.sub(lambda m: m.group(1) + m.group(2) if m.group(1) == "^" else m.group(2), span)
    span = _COMMAND.sub(lambda m: f" {_SYMBOLS.get(m.group(1), m.group(1))} ", span)
    span = span.replace("{", "").replace("}", "")
    span = _SPACED_DIGITS.sub(lambda m: re.sub(r"\s+", "", m.group(0)), span)
    span = " ".join(span.split())
    # "≥ 196" -> "≥196", "196 %" -> "196%": symbols sit against their number.
    span = re.sub(r"([≥≤±≈≠~<>])\s+(?=\d)", r"\1", span)
    span = re.sub(r"(?<=\d)\s+(?=[%°])", "", span)
    return span


def _join_letters(text: str) -> str:
    # "A h" -> "Ah", "k W h" -> "kWh": MinerU spaces each letter of a unit.
    return _LATIN_LETTERS.sub(r"\1", " ".join(text.split()))
