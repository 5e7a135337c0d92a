"""What a sentence or a question's phrasing says, beyond its words: a sentence that continues the
one before it, a question that asks for a list rather than one value."""

from __future__ import annotations

import re

# A sentence continuing the one before: it refers back to it ("The increase was due to ...").
_CONTINUES = re.compile(
    r"^(?:this|these|that|those|it|its|such|they|their|also|the (?:increase|decrease|decline|"
    r"growth|change|rise|improvement|reduction|drop|difference|shortfall)s?)\b"
    r"|^(?:这|此|该|其|主要(?:系|是|由于|受|因为|原因)|原因)",
    re.I,
)


def continues(sentence: str) -> bool:
    """Whether a sentence continues the one before ("The increase was due to ...", "这主要由于")."""
    return _CONTINUES.match(sentence.strip()) is not None


# How a paragraph that leads to a table ends: a colon, or words pointing at what follows.
_INTRODUCES = re.compile(
    r"[:：]\s*$|如下|下表|见表|详见|表\s*\d|following|below|as follows|table", re.IGNORECASE
)


def introduces_what_follows(paragraph: str) -> bool:
    """Whether a paragraph's end points at what follows it ("如下：", "see the table below")."""
    return _INTRODUCES.search(paragraph[-60:]) is not None


# A question asking for a list: "有哪些产线", "列出…", "Which segments are …", "What are the …".
_ASKS_FOR_LIST = re.compile(
    r"有哪些|哪几|列出|列举|分别是(?:什么|哪)|包括哪|包含哪"
    r"|\b(?:which|what)\s+(?:[\w-]+\s+){0,3}?(?:are|were)\b"
    r"|\bwhich\s+(?:[\w-]+\s+){0,2}?(?!(?:has|was|is|does|its|this)\b)[\w-]*[^\Ws]s\b"
    r"|\blist\b|\bname the\b",
    re.I,
)
# ... unless it asks for the one that stands out: "哪些公司的毛利率最高", "Which segments grew most".
_SUPERLATIVE = re.compile(
    r"最|\b(?:most|least|best|worst|(?:high|low|larg|small|bigg|great|fast|strong|weak)est)\b",
    re.I,
)


def asks_for_superlative(question: str) -> bool:
    """Whether ``question`` asks for the one that stands out ("毛利率最高", "grew the most")."""
    return _SUPERLATIVE.search(question) is not None


def asks_for_list(question: str) -> bool:
    """Whether ``question`` asks for a list of things ("中芯国际的产线有哪些？", "What are the
    segments of revenue?", "Which fabs does SMIC have?") rather than one value or the one that
    stands out ("Which segment grew most?")."""
    return _ASKS_FOR_LIST.search(question) is not None and not asks_for_superlative(question)


# A question pointing at a numbered table or figure: "表3", "table 2", "图1", "Fig. 3".
_REFERENCES = {
    "table": re.compile(r"表\s*[0-9一二三四五六七八九十]+|\btable\s*\d+", re.I),
    "image": re.compile(r"图\s*[0-9一二三四五六七八九十]+|\b(fig\.?|figure)\s*\d+", re.I),
}


def content_references(question: str) -> dict[str, str]:
    """Per content type, the numbered table or figure ``question`` points at ("图3"), in the
    words it uses; types it points at none of are left out."""
    out = {}
    for kind, pattern in _REFERENCES.items():
        match = pattern.search(question)
        if match:
            out[kind] = match.group(0)
    return out
