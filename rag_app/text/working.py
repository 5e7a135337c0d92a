"""A worked answer's arithmetic as written ("12,340 - 10,115 = 2,225", "(4210 - 4480) / 4480 =
-6.03%"): which results follow from the numbers written before them, so a computed number is
traced to its operands rather than looked for in a source."""

from __future__ import annotations

import ast
import operator
import re
from dataclasses import dataclass
from decimal import Decimal

# An expression of numbers and + - * / ( ) with at least one operator, "=", a result.
_WORKING = re.compile(
    r"(?P<expr>[\d\s.,()$£€¥+\-−*/×÷]*\d[\d\s.,()$£€¥+\-−*/×÷]*)=\s*"
    r"(?P<result>[-−]?[$£€¥]?\s?\d[\d,]*(?:\.\d+)?)(?P<percent>\s?%?)"
)
_OPERATORS = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
}
_TRANSLATE = str.maketrans(
    {"−": "-", "×": "*", "÷": "/", ",": None, "$": None, "£": None, "€": None, "¥": None}
)


def _value(node: ast.AST) -> float:
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        return float(node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_value(node.operand)
    if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
        return _OPERATORS[type(node.op)](_value(node.left), _value(node.right))
    raise ValueError("not arithmetic")


_AVERAGE = re.compile(r"^\((?P<terms>[^()]+)\)\s*/\s*(?P<count>\d+)$")
_PERCENT_FACTOR = re.compile(r"\*\s*100\b")


def _own_numbers(expr: str) -> set[Decimal]:
    """An average's count when it divides a sum of that many terms, and a percentage's 100."""
    own = set()
    average = _AVERAGE.match(expr)
    if average and len(re.split(r"\s*\+\s*", average.group("terms").strip())) == int(
        average.group("count")
    ):
        own.add(Decimal(average.group("count")))
    if _PERCENT_FACTOR.search(expr):
        own.add(Decimal(100))
    return own


@dataclass(frozen=True)
class Working:
    """One written working whose expression gives its result: the result's span in the text
    (its sign and percent sign left out, as ``cite.evidence`` reads numbers), the result
    unsigned, and the span of each number of the expression, in order."""

    start: int
    end: int
    result: Decimal
    operands: tuple[tuple[int, int], ...]
    # what the working adds of its own: an average's count, a percentage's 100
    own: frozenset[Decimal] = frozenset()
    # where its expression begins (a leading bracket included, blanks not)
    begin: int = 0


_OPERAND = re.compile(r"\d[\d,]*(?:\.\d+)?")


def workings(text: str) -> tuple[Working, ...]:
    """The workings of ``text`` whose expression gives their result to the precision it is
    written with (a percent result is the expression times 100)."""
    out = []
    for match in _WORKING.finditer(text):
        expr = match.group("expr").translate(_TRANSLATE).strip()
        if not re.search(r"\d\s*[-+*/]\s*[(\d]", expr):
            continue  # a lone number, not a working
        try:
            value = _value(ast.parse(expr, mode="eval").body)
        except (SyntaxError, ValueError, ZeroDivisionError, RecursionError):
            continue
        raw = match.group("result").translate(_TRANSLATE).replace(" ", "")
        result = Decimal(raw)
        if match.group("percent").strip():
            value *= 100
        places = -result.as_tuple().exponent if result.as_tuple().exponent < 0 else 0  # type: ignore[operator]
        if abs(Decimal(str(value)) - result) <= Decimal(5) * Decimal(10) ** (-places - 1) + Decimal(
            "1e-9"
        ):
            digits = _OPERAND.search(text, match.start("result"), match.end("result"))
            assert digits is not None  # the result holds a digit
            operands = tuple(
                (match.start("expr") + m.start(), match.start("expr") + m.end())
                for m in _OPERAND.finditer(match.group("expr"))
            )
            lead = len(match.group("expr")) - len(match.group("expr").lstrip())
            own = frozenset(_own_numbers(expr))
            begin = match.start("expr") + lead
            out.append(Working(digits.start(), digits.end(), abs(result), operands, own, begin))
    return tuple(out)


def worked_results(text: str) -> frozenset[Decimal]:
    """The results (unsigned, as ``cite.evidence`` reads numbers) of the workings in ``text``
    whose expression gives them to the precision they are written with (a percent result is
    the expression times 100), and the numbers such a working adds of its own: an average's
    count ("(16550 + 14595) / 2") and a percentage's 100."""
    out: set[Decimal] = set()
    for working in workings(text):
        out.add(working.result)
        out.update(working.own)
    return frozenset(out)
