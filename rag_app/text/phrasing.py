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
