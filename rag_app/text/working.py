"""A worked answer's arithmetic as written ("12,340 - 10,115 = 2,225", "(4210 - 4480) / 4480 =
-6.03%"): which results follow from the numbers written before them, so a computed number is
traced to its operands rather than looked for in a source."""

from __future__ import annotations

import ast
import operator
import re
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


def worked_results(text: str) -> frozenset[Decimal]:
    """The results (unsigned, as ``cite.evidence`` reads numbers) of the workings in ``text``
    whose expression gives them to the precision they are written with; a percent result is
    the expression times 100."""
    out = set()
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
            out.add(abs(result))
    return frozenset(out)
