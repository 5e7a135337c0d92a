"""Citation markers in an answer: find them in every form models write, and rewrite them to
the canonical ``[Source N]`` the UI links.

Recognised: ``[Source 1]`` in any case, ``[Sources 1, 2]``, ``[1]``, ``[1][2]``, ``[1, 2]``,
``[Source 1-3]`` (ranges expanded), ``[来源1]``, ``[来源 1]``, ``【来源1】``, full-width brackets
and digits (``［１］``), and labelled parentheses (``(Source 1)``, ``（来源1）``). Not citations:
footnotes (``[^1]``), Markdown links and images (``[1](url)``), reference definitions
(``[1]: url`` at the start of a line), anything inside inline code or fenced code blocks, and
unlabelled numbers too large to be a source (``[2023]``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# A range such as [Source 1-300] expands to at most this many numbers: a prompt holds about 8
# sources, so anything longer is a slip, not 300 citations.
MAX_RANGE = 20
# An unlabelled [N] above this is not a citation ([2023] is a year) unless the answer's sources
# go that high. Prompts hold tens of sources at most; 200 leaves room and excludes years.
MAX_BARE_NUMBER = 200

CANONICAL = re.compile(r"\[Source (\d+)\]")

_LABEL = r"(?:sources?|src|refs?|references?|来源|出处|参考资料|参考|资料|引用)"
_NUM = r"[0-9０-９]+"
_DASH = r"(?:-|–|—|－|~|～|至|到)"
_ITEM = rf"(?:{_LABEL}\s*[:：#]?\s*)?{_NUM}(?:\s*{_DASH}\s*{_NUM})?"
_SEP = r"\s*(?:[,，、;；]|\band\b|&|和|与|及)\s*"
_LIST = rf"{_ITEM}(?:{_SEP}{_ITEM})*"
_MARKER = re.compile(
    rf"(?P<open>[\[［【])\s*(?P<label>{_LABEL}\s*[:：#]?\s*)?(?P<list>{_LIST})\s*[\]］】]"
    rf"|[(（]\s*(?P<plabel>{_LABEL})\s*[:：#]?\s*(?P<plist>{_LIST})\s*[)）]",
    re.IGNORECASE,
)
_ITEM_RE = re.compile(rf"({_NUM})(?:\s*{_DASH}\s*({_NUM}))?")
_LABEL_RE = re.compile(_LABEL, re.IGNORECASE)
_CODE = re.compile(r"```.*?(?:```|\Z)|~~~.*?(?:~~~|\Z)|`[^`\n]+`", re.S)


@dataclass(frozen=True)
class CitationRef:
    """One cited number: ``text[start:end]`` is the whole marker it came from (a marker such
    as ``[Source 1, 2]`` yields one ref per number, all with the same span)."""

    number: int
    start: int
    end: int
    marker: str


def _numbers(body: str) -> list[int]:
    out: list[int] = []
    for match in _ITEM_RE.finditer(_LABEL_RE.sub(" ", body)):
        first = int(match.group(1))  # int() reads full-width digits too
        last = int(match.group(2)) if match.group(2) else first
        low, high = min(first, last), max(first, last)
        for n in range(low, min(high, low + MAX_RANGE - 1) + 1):
            if n not in out:
                out.append(n)
    return out


def _code_spans(text: str) -> list[tuple[int, int]]:
    return [m.span() for m in _CODE.finditer(text)] if "`" in text or "~~~" in text else []


def parse_citations(text: str, *, max_number: int | None = None) -> list[CitationRef]:
    """Every citation in ``text``, in order of position (then of the numbers in a marker).

    ``max_number`` is the highest source number the answer could cite, when known: an
    unlabelled ``[N]`` with N above both it and ``MAX_BARE_NUMBER`` is not a citation. Labelled
    markers always count, so ``[Source 9]`` among 5 sources is a (dangling) citation.
    """
    refs: list[CitationRef] = []
    code = _code_spans(text)
    bare_limit = max(MAX_BARE_NUMBER, max_number or 0)
    for match in _MARKER.finditer(text):
        start, end = match.span()
        if any(a <= start < b for a, b in code):
            continue
        labelled = bool(match.group("label") or match.group("plabel"))
        body = match.group("list") if match.group("open") else match.group("plist")
        following = text[end : end + 1]
        if match.group("open"):
            if following in ("(", "（"):
                continue  # a Markdown link or image: [1](url)
            line_start = start == 0 or text[start - 1] == "\n"
            if following == ":" and line_start:
                continue  # a reference definition: [1]: url
        numbers = _numbers(body)
        if not labelled and (not numbers or min(numbers) < 1 or max(numbers) > bare_limit):
            continue  # [0] is an index, [2023] a year
        marker = text[start:end]
        refs.extend(CitationRef(n, start, end, marker) for n in numbers)
    return refs


def marker_spans(refs: list[CitationRef]) -> list[tuple[int, int, tuple[int, ...]]]:
    """(start, end, numbers) per distinct marker, in order."""
    spans: dict[tuple[int, int], list[int]] = {}
    for ref in refs:
        spans.setdefault((ref.start, ref.end), []).append(ref.number)
    return [(a, b, tuple(nums)) for (a, b), nums in sorted(spans.items())]


def canonical_marker(numbers: tuple[int, ...] | list[int]) -> str:
    """``[Source 1] [Source 2]`` for (1, 2): one canonical marker per number."""
    return " ".join(f"[Source {n}]" for n in numbers)


def normalize_markers(text: str, *, max_number: int | None = None) -> str:
    """``text`` with every recognised marker rewritten to canonical ``[Source N]`` markers.

    A marker naming several numbers becomes one marker per number, joined by a space
    (``[Source 1, 2]`` -> ``[Source 1] [Source 2]``, ``[1-3]`` -> three markers). Everything
    that is not a recognised marker is left byte-identical; ``max_number`` is as in
    ``parse_citations``.
    """
    out: list[str] = []
    position = 0
    for start, end, numbers in marker_spans(parse_citations(text, max_number=max_number)):
        out.append(text[position:start])
        out.append(canonical_marker(numbers))
        position = end
    out.append(text[position:])
    return "".join(out)


def strip_markers(text: str, spans: list[tuple[int, int, tuple[int, ...]]] | None = None) -> str:
    """``text`` without its citation markers, spaces tidied where a marker was removed."""
    if spans is None:
        spans = marker_spans(parse_citations(text))
    out = ""
    position = 0
    for start, end, _ in spans:
        out = _join(out, text[position:start])
        position = end
    out = _join(out, text[position:])
    return out.strip()


def _join(left: str, right: str) -> str:
    # "grew 20% [Source 1]." must read "grew 20%.", "收入[1]为" "收入为", "A [1] B" "A B".
    if not left:
        return right
    stripped_left, stripped_right = left.rstrip(" \t"), right.lstrip(" \t")
    if not stripped_right:
        return stripped_left
    had_space = stripped_left != left or stripped_right != right
    if (
        had_space
        and stripped_left
        and _SPACED.match(stripped_left[-1])
        and _SPACED.match(stripped_right[0])
    ):
        return stripped_left + " " + stripped_right
    return stripped_left + stripped_right


_SPACED = re.compile(r"[A-Za-z0-9%$€£¥(\[\])]")
