"""The name a question asks about: the company or report it names before its period and metric
("宁德时代" of "宁德时代2025年的营业收入预测是多少？", "CATL" of "What is CATL's revenue?").

A Chinese question names its subject first, the way report titles do: the run of Chinese
characters after any leading period and framing words ("根据", "请问", "截至"), up to a digit,
的, punctuation or a metric term. An English one names it as a possessive or an acronym. A run
holding a question word (哪, 什么, which) names nothing. The answerability check holds the name
against what the library holds.
"""

from __future__ import annotations

import re

from rag_app.text import lexicon
from rag_app.text.language import CJK_UNIFIED
from rag_app.text.periods import PERIOD_SPAN
from rag_app.text.spans import METRICS, strip_modifiers

_WORDS = lexicon.keyed_groups("question_names.txt")
_QUESTION_WORDS = (
    tuple(lexicon.keyed_groups("followup_words.txt")["interrogative"]) + _WORDS["question"]
)
_LEADING = sorted(_WORDS["lead"], key=len, reverse=True)
_STOPS = _WORDS["stop"]
_SENTENCE_WORDS = frozenset(_WORDS["sentence_en"])
_NOT_NAMES = frozenset(_WORDS["not_names"])
_CJK_RUN = re.compile(f"[{CJK_UNIFIED}]+")
_POSSESSIVE = re.compile(r"\b([A-Z][A-Za-z&.\-]*(?:\s+[A-Z][A-Za-z&.\-]*)*)['’]s\b")


def leading_name(question: str) -> str:
    """The company or report ``question`` names first, as a report question names it: before
    a period or a metric ("" when it names none)."""
    text = question.strip()
    while True:
        before = text
        text = PERIOD_SPAN.sub("", text, count=1) if PERIOD_SPAN.match(text) else text
        for word in _LEADING:
            if text.startswith(word):
                text = text[len(word) :]
                break
        text = text.lstrip(" ，,、：:第一二三四季度上下半年末初")
        if text == before:
            break
    run = _CJK_RUN.match(text)
    if run is not None:
        name = run.group()
        lowered = name.lower()
        cut = min(
            [lowered.find(m) for m in METRICS if not m.isascii() and lowered.find(m) > 0]
            + [name.find(s) for s in _STOPS if name.find(s) > 0]
            + [name.find(w) for w in _QUESTION_WORDS if name.find(w) >= 0]
            + [len(name)]
        )
        name = name[:cut]
        if not 2 <= len(name) <= 16:
            return ""
        # A subject as report questions name one: right before a period or a metric
        # ("宁德时代2025年…", "中芯国际的毛利率…"); "拳击比赛的收益" names no company.
        rest = re.sub(r"^(的|公司|集团|股份)+|^[（(][^）)]*[）)]", "", text[len(name) :]).lstrip()
        rest = re.sub(r"^(的)+", "", rest)
        lowered_rest = strip_modifiers(rest.lower())
        if PERIOD_SPAN.match(rest) or any(lowered_rest.startswith(m) for m in METRICS):
            return name
        return ""
    # English: a possessive name ("CATL's"); acronyms alone are too often metrics (COGS, IFRS)
    for pattern in (_POSSESSIVE,):
        for match in pattern.finditer(question):
            words = match.group(1).split()
            while words and words[0].lower() in _SENTENCE_WORDS:
                words = words[1:]
            name = " ".join(words)
            if name and name.upper() not in _NOT_NAMES and name.lower() not in METRICS:
                if not any(w == name.lower() for w in _QUESTION_WORDS):
                    return name
    return ""
