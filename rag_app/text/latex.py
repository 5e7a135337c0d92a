"""MinerU's math as plain text: "$\\geq 1 9 6 ~ \\mathrm{A h}$" reads "≥196 Ah", "$2 5 { \\pm } 3
^ { \\circ } \\mathrm { C }$" reads "25±3°C", a display block ``$$ ... $$`` one line of text.

Parsers write units, comparisons, numbers and equations found in a PDF as LaTeX between ``$``
(inline) or ``$$`` (display, over several lines); a reader, an answer quoting the sentence and
an export want the text. Applied where text is shown or quoted (and where the citation check
reads a source, so a quoted number is found in it), never at ingestion: chunk text (and so chunk
ids and the index) stays as parsed.

The span is read as TeX reads math: plain spaces mean nothing (MinerU spaces every token: "1 9
6", "A h"), explicit spacing (``~``, ``\\ ``, ``\\quad``) is a space; fonts (``\\mathrm``,
``\\pmb``, ``\\bf``...) keep their argument, ``^{\\circ}`` is °, ``\\frac{a}{b}`` is a/b,
``\\left(`` is "(", other commands are the symbol they print or their name.
"""

from __future__ import annotations

import re
import unicodedata

# Commands read as the symbol they print; the ones met in parsed reports and papers.
_SYMBOLS = {
    "geq": "≥", "ge": "≥", "leq": "≤", "le": "≤", "neq": "≠", "ne": "≠", "approx": "≈",
    "equiv": "≡", "sim": "~", "simeq": "≃", "propto": "∝", "ll": "≪", "gg": "≫",
    "times": "×", "div": "÷", "pm": "±", "mp": "∓", "cdot": "·", "ast": "*", "star": "*",
    "dag": "†", "circ": "°", "degree": "°", "prime": "′", "infty": "∞", "partial": "∂",
    "nabla": "∇", "sum": "Σ", "prod": "Π", "int": "∫", "in": "∈", "notin": "∉",
    "subset": "⊂", "subseteq": "⊆", "cup": "∪", "cap": "∩", "emptyset": "∅", "forall": "∀",
    "exists": "∃", "rightarrow": "→", "to": "→", "leftarrow": "←", "Rightarrow": "⇒",
    "Leftarrow": "⇐", "leftrightarrow": "↔", "iff": "⇔", "uparrow": "↑", "downarrow": "↓",
    "ldots": "…", "cdots": "…", "dots": "…", "vdots": "⋮", "copyright": "©", "perthousand": "‰",
    "alpha": "α", "beta": "β", "gamma": "γ", "Gamma": "Γ", "delta": "δ", "Delta": "Δ",
    "epsilon": "ε", "varepsilon": "ε", "zeta": "ζ", "eta": "η", "theta": "θ", "Theta": "Θ",
    "kappa": "κ", "lambda": "λ", "Lambda": "Λ", "mu": "μ", "nu": "ν", "xi": "ξ", "pi": "π",
    "Pi": "Π", "rho": "ρ", "sigma": "σ", "Sigma": "Σ", "tau": "τ", "phi": "φ", "varphi": "φ",
    "Phi": "Φ", "chi": "χ", "psi": "ψ", "Psi": "Ψ", "omega": "ω", "Omega": "Ω",
    "quad": " ", "qquad": " ", "|": "‖", "\\": "; ",
    # Thin and negative spaces: TeX's kerning, nothing a reader sees as a gap.
    ",": "", ";": " ", ":": " ", "!": "", " ": " ",
}  # fmt: skip
# Fonts and text: their argument, as written (\mathrm{A h} -> "Ah", \pmb{h} -> "h").
_FONTS = frozenset(
    "mathrm text textrm textbf textit mathbf mathit mathsf mathtt mathbb mathcal mathscr "
    "mathfrak boldsymbol pmb bm operatorname mbox hbox".split()
)
# Declarations and sizes that change how what follows looks, not what it says.
_DECLARATIONS = frozenset(
    "rm bf it sf tt cal small large Large LARGE normalsize tiny footnotesize scriptsize "
    "displaystyle textstyle scriptstyle limits nolimits left right big Big bigg Bigg bigl bigr "
    "Bigl Bigr biggl biggr middle".split()
)
# Accents over one letter as the combining mark; over more, the argument alone.
_ACCENTS = {"hat": "\u0302", "widehat": "\u0302", "bar": "\u0304", "overline": "\u0304",
            "tilde": "\u0303", "widetilde": "\u0303", "dot": "\u0307", "ddot": "\u0308",
            "vec": "\u20d7", "underline": ""}  # fmt: skip
_FRACTIONS = frozenset({"frac", "dfrac", "tfrac", "cfrac"})
_ESCAPES = frozenset("%$&#_{}")
_ORDINALS = frozenset({"th", "st", "nd", "rd"})

_TOKEN = re.compile(r"\\([A-Za-z]+)|\\(.)|(\s+)|(.)", re.S)
# A ``$$`` block may span lines; an inline span may not, nor open an HTML tag (tables' HTML is
# converted too: a "$" in one cell must not pair with one in another).
_DISPLAY = re.compile(r"\$\$(.{1,4000}?)\$\$", re.S)
_INLINE = re.compile(r"\$((?:[^$<\n]|<(?![A-Za-z/!])){1,400}?)\$")
_MATH_MARK = re.compile(r"[\\^_{}]")
# Digits MinerU spells one by one ("1 9 6", "2 0 . 5"): a span of them is math, not money.
_SPACED_DIGITS = re.compile(r"\d(?:\s+[\d.])+")
# "$E$", "$t$", "$@$": a short span without spaces that does not start with a digit is math (a
# dollar amount starts with one: "$5 and $6").
_SYMBOL_SPAN = re.compile(r"[^\d\s][^\s]{0,19}")
# MinerU sometimes drops the backslash of a relation ("$leq 3 \\%$").
_BARE_RELATION = re.compile(r"^\s*(leq|geq)\b")
# A script of more than one character is bracketed when it holds more than a word: "e^(-4)".
_NEEDS_PARENS = re.compile(r"[^\w′*]|_")
# Relations and operators a reader sees with space around them ("3 × 4", "d ∈ D").
_SPACED = frozenset("=×∈∉⊂⊆→⇒⇔≡")


def latex_to_text(text: str) -> str:
    """``text`` with each ``$$...$$`` block and ``$...$`` span written as plain text; text
    outside them is left alone, as are dollar amounts ("$6.32 billion and $5 million").
    Never raises."""
    if "$" not in text:
        return text
    text = _DISPLAY.sub(lambda m: math_to_text(m.group(1)), text)
    if "$" not in text:
        return text
    return _INLINE.sub(
        lambda m: math_to_text(m.group(1)) if _is_math(m.group(1)) else m.group(0), text
    )


def math_to_text(span: str) -> str:
    """One math span's LaTeX (without its ``$``) as the text it prints."""
    span = _BARE_RELATION.sub(lambda m: f"\\{m.group(1)} ", span)
    try:
        out = _Reader(span).read_all()
    except RecursionError:  # nesting past Python's limit: the span's characters, unread
        out = re.sub(r"\\[A-Za-z]+|[{}^_\\]", " ", span)
    return _tidy(out)


def _is_math(span: str) -> bool:
    if _MATH_MARK.search(span) or _BARE_RELATION.match(span):
        return True
    stripped = span.strip()
    if not stripped:
        return False
    if _SPACED_DIGITS.fullmatch(stripped) or (span == stripped and _SYMBOL_SPAN.fullmatch(span)):
        return True
    # "$p < 0 . 0 1 $": digits spelled one by one after a symbol (money starts with its digits).
    return not stripped[0].isdigit() and _SPACED_DIGITS.search(stripped) is not None


class _Reader:
    """Reads a span's tokens left to right; groups, arguments and scripts recursively."""

    def __init__(self, span: str) -> None:
        self.tokens = [
            (m.group(1), m.group(2), m.group(3), m.group(4)) for m in _TOKEN.finditer(span)
        ]
        self.at = 0

    def read_all(self) -> str:
        out: list[str] = []
        while self.at < len(self.tokens):
            out.append(self._item("".join(out)))
        return "".join(out)

    def _item(self, before: str) -> str:
        command, escaped, space, char = self.tokens[self.at]
        self.at += 1
        if space is not None:
            return ""  # plain spaces mean nothing in math
        if char is not None:
            return self._char(char, before)
        if escaped is not None:
            return escaped if escaped in _ESCAPES else _SYMBOLS.get(escaped, escaped)
        return self._command(command, before)

    def _char(self, char: str, before: str) -> str:
        if char == "{":
            return self._group()
        if char == "}":
            return ""  # unbalanced: dropped
        if char == "~":
            return " "
        if char == "&":
            return " "
        if char == "^":
            return _superscript(self._argument())
        if char == "_":
            return _subscript(self._argument(), before)
        if char in _SPACED:
            return f" {char} "
        if char == "," and not before[-1:].isdigit():
            return ", "
        return char

    def _command(self, name: str, before: str) -> str:
        if name in _FONTS:
            text = self._argument()
            # "5 \mathrm{kWh}", "50\% \mathrm{SOC}": a unit written apart from its number.
            if before[-1:].isdigit() or before[-1:] == "%":
                if text[:1].isalpha() and text.strip() not in _ORDINALS:
                    return " " + text
            return text
        if name in _DECLARATIONS:
            if name in ("left", "right", "bigl", "bigr", "Bigl", "Bigr", "middle"):
                delimiter = self._argument()
                return "" if delimiter == "." else delimiter
            return ""
        if name in _ACCENTS:
            text = self._argument()
            return text + _ACCENTS[name] if len(text) == 1 and text.isalpha() else text
        if name in _FRACTIONS:
            top, bottom = self._argument(), self._argument()
            return f"{_parenthesised(top)}/{_parenthesised(bottom)}"
        if name == "sqrt":
            return "√" + _parenthesised(self._argument())
        if name in ("begin", "end"):
            environment = self._argument()
            if name == "begin" and environment in ("array", "tabular"):
                self._argument()  # the column spec, "{ r l }"
            return " "
        if name in ("exp", "log", "ln", "sin", "cos", "tan", "max", "min", "lim", "det"):
            return name
        symbol = _SYMBOLS.get(name, name)
        return f" {symbol} " if symbol in _SPACED else symbol

    def _argument(self) -> str:
        """The next argument: a braced group, or one token."""
        while self.at < len(self.tokens) and self.tokens[self.at][2] is not None:
            self.at += 1
        if self.at >= len(self.tokens):
            return ""
        return self._item("")

    def _group(self) -> str:
        out: list[str] = []
        while self.at < len(self.tokens):
            if self.tokens[self.at][3] == "}":
                self.at += 1
                break
            out.append(self._item("".join(out)))
        return "".join(out)


def _superscript(text: str) -> str:
    text = text.strip()
    if text in ("°", "'", "′", "*"):
        return "°" if text == "°" else ("′" if text in ("'", "′") else "*")
    if text.startswith("°"):  # "^{\circ C}": the degree sign and its scale
        return text
    return "^" + _parenthesised(text) if text else ""


def _subscript(text: str, before: str) -> str:
    text = text.strip()
    base = before.rstrip()
    while base and unicodedata.combining(base[-1]):  # "ŷ": the letter under the accent
        base = base[:-1]
    if not base or before[-1:].isspace() or not (base[-1].isalnum() or base[-1] in ")]′|"):
        return text  # "{ } _ { - 2 0 }", "° _ { C }": MinerU's script without a base is text
    if text.isdigit():
        return text  # "CO_2", "λ_1": the digits after the name
    return "_" + _parenthesised(text) if text else ""


def _parenthesised(text: str) -> str:
    text = text.strip()
    if len(text) > 1 and _NEEDS_PARENS.search(text) and not (text[0] in "([" and text[-1] in ")]"):
        return f"({text})"
    return text


def _tidy(text: str) -> str:
    text = " ".join(text.split())
    # "≥ 196" -> "≥196", "196 %" -> "196%", "25 °C" -> "25°C": symbols sit against their number.
    text = re.sub(r"([≥≤±≈≠~<>])\s+(?=[-\d])", r"\1", text)
    text = re.sub(r"(?<=\d)\s+(?=[%°‰])", "", text)
    text = re.sub(r"°\s+(?=[CF]\b)", "°", text)
    return unicodedata.normalize("NFC", text).strip()  # "y" and a hat: "ŷ"
