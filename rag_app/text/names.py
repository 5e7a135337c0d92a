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
from rag_app.text.analyzer import tagged
from rag_app.text.language import CJK_UNIFIED, cjk_share
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


# Proper nouns by jieba's tags: place, person, organisation, other.
_PROPER_TAGS = frozenset({"ns", "nr", "nt", "nz", "nrt", "nrfg"})
# Words that carry no content of their own: pronouns and question words (r), numerals and
# measures (m, q, mq), particles (u*), modal words (y), prepositions (p), conjunctions (c),
# adverbs (d), auxiliary verbs and copulas (one-character v), direction words (f).
_FUNCTION_TAGS = ("r", "m", "q", "u", "y", "p", "c", "d", "f", "e", "o", "t")
_WORD = re.compile(rf"[{CJK_UNIFIED}A-Za-z]")
# A Latin name: two or more capitalised words, or one with its possessive ("Orvella's").
_LATIN_NAMES = re.compile(
    r"(?<![A-Za-z])([A-Z][a-z][A-Za-z&\-]*(?:\s+(?:[A-Z][A-Za-z&\-]*\.?))+|[A-Z][a-z]{2,}(?=['’]s\b))"
)


_OPENING_WORD = re.compile(r"\s*([A-Z][a-z]+)\s+[a-z]")
_FIRST_WORD = re.compile(r"\s*([A-Z][a-z]+)(?!['’]s)\b")
_LATIN_WORD = re.compile(r"(?<![A-Za-z])[A-Z][a-z]{2,}(?:\s+[A-Z][A-Za-z]+)*(?![A-Za-z])")


def proper_names(question: str) -> tuple[str, ...]:
    """The names ``question`` gives that are not words: a Chinese proper noun (jieba tags it a
    place, person or organisation: 德国, 北辰, 华虹) with the words after it up to a function
    word ("北辰智控"), and a Latin name of capitalised words not starting the sentence
    ("Sorvik Robotics", "the United States"), or in a Chinese question any capitalised Latin
    word ("Orvella二季度"). The first word of an English sentence asks ("What are"): no name."""
    names: list[str] = []
    words = tagged(question)
    i = 0
    while i < len(words):
        word, tag = words[i]
        if tag in _PROPER_TAGS and _CJK_RUN.fullmatch(word):
            run = word
            j = i + 1
            while (
                j < len(words)
                and _CJK_RUN.fullmatch(words[j][0])
                and (words[j][1] in ("ng", "n", "nz", "vn") or words[j][1].startswith("n"))
                and len(run) < 6
            ):
                run += words[j][0]
                j += 1
            if len(run) >= 2:
                names.append(run)
            i = j
            continue
        i += 1
    # an English sentence's first word asks ("What are the ...", "How much ..."): not a name
    english = (cjk_share(question) or 0.0) < 0.5
    opening = (_FIRST_WORD if english else _OPENING_WORD).match(question)
    asks_from = opening.end(1) if opening else 0
    for match in _LATIN_NAMES.finditer(question):
        name = match.group(1).rstrip(".")
        if match.start() < asks_from:
            rest = name.split(None, 1)
            if len(rest) < 2 or not rest[1][:1].isupper():
                continue
            name = rest[1]
        names.append(name)
    if not english:
        # in a Chinese question a capitalised Latin word is a name ("Orvella二季度"); an
        # upper-case one is an acronym, a ticker or a metric (ROE, ZPHR) and is left alone
        names.extend(m.group(0) for m in _LATIN_WORD.finditer(question) if m.start() >= asks_from)
    return tuple(dict.fromkeys(n for n in names if n))


def content_words(
    question: str, leave_out: tuple[str, ...] = (), nouns: bool = False
) -> tuple[str, ...]:
    """The words of ``question`` that say what it asks for, in order: not function words,
    punctuation, periods or the names ``leave_out`` ("营业收入" of "北辰智控2024年的营业收入是多少？"
    with 北辰智控 left out). ``nouns``: only its Chinese nouns of two characters or more (what a
    report must write for the question to be about something it holds)."""
    text = _blanked(question, leave_out)
    out = []
    for word, tag in tagged(text):
        if not _WORD.search(word) or word.isdigit():
            continue
        if (tag != "eng" and tag.startswith(_FUNCTION_TAGS)) or (
            tag.startswith("v") and len(word) == 1
        ):
            continue
        if nouns and not (_noun(word, tag) and len(word) >= 2):
            continue
        out.append(word)
    return tuple(out)


def head_noun(question: str, leave_out: tuple[str, ...] = ()) -> str:
    """The noun a Chinese question asks for: its last noun of three characters or more
    ("资产负债率", "增加额"), or its last two-character noun with the noun right before it
    ("速动 比率", "现金流 净额": a compound, its halves apart); "" when it ends on a two-character
    word alone ("什么变化", "哪些
    指标", "时候投产"), which says what kind of answer it wants, not what a report must hold."""
    text = _blanked(question, leave_out)
    words = tagged(text)
    nouns = _noun_places(words)
    if not nouns:
        return ""
    last = nouns[-1]
    word, tag = words[last]
    if len(word) >= 3:
        return word
    before = words[last - 1] if last - 1 in nouns else ("", "")
    if tag.startswith("n") and before[1].startswith("n"):
        return f"{before[0]} {word}"
    return ""


def qualified_noun(
    question: str, leave_out: tuple[str, ...] = ()
) -> tuple[str, tuple[str, ...], str]:
    """A Chinese question's asked noun as it qualifies it: the phrase ("投资活动产生的现金流量净额",
    "独立董事"), the words qualifying the noun ("投资", "活动", "产生"; "独立": words of two
    characters or more right before it, across one 的) and the noun's last word ("净额", "董事");
    ("", (), "") when nothing qualifies it. A report that gives the one but not the other (the
    operating line's 现金流量净额, not the investing one's) does not give what is asked."""
    if len([c for c in _CLAUSES.split(question) if c.strip()]) > 1:
        return "", (), ""  # several clauses (a comparison, a check): not one noun asked
    text = _blanked(question, leave_out)
    words = tagged(text)
    nouns = _noun_places(words)
    if not nouns:
        return "", (), ""
    start = nouns[-1]
    while start - 1 in nouns and words[start - 1][1].startswith("n"):
        start -= 1  # 现金流量 净额: the noun's own words (not 经营 活动, verbs as nouns)
    i = start - 1
    if i >= 1 and words[i][0] == "的":
        i -= 1
    qualifiers: list[str] = []
    while i >= 0 and _qualifies(*words[i]):
        qualifiers.insert(0, words[i][0])
        i -= 1
    if not qualifiers:
        return "", (), ""
    first = text.find(qualifiers[0])
    end = text.find(words[nouns[-1]][0], first) + len(words[nouns[-1]][0])
    return text[first:end], tuple(qualifiers), words[nouns[-1]][0]


def _qualifies(word: str, tag: str) -> bool:
    """A content word of two characters or more that can qualify a noun (a verb or noun
    before it: 投资活动, 独立)."""
    return len(word) >= 2 and bool(_CJK_RUN.fullmatch(word)) and tag in _QUALIFIER_TAGS


_QUALIFIER_TAGS = frozenset("v vn n nz a an b x".split())
_CLAUSES = re.compile(r"[，,；;？?。!！]")


def _blanked(question: str, leave_out: tuple[str, ...]) -> str:
    """``question`` with the names ``leave_out`` (longest first) and its periods blanked out."""
    for name in sorted((n for n in leave_out if n), key=len, reverse=True):
        question = question.replace(name, " ")
    return PERIOD_SPAN.sub(" ", question)


def _noun_places(words: list[tuple[str, str]]) -> list[int]:
    """The places of the Chinese nouns of two characters or more among tagged ``words``."""
    return [i for i, (word, tag) in enumerate(words) if _noun(word, tag) and len(word) >= 2]


def _noun(word: str, tag: str) -> bool:
    """A Chinese noun by jieba's tag (a term of our finance dictionary, tagged "x", is one)."""
    return bool(_CJK_RUN.fullmatch(word)) and (tag.startswith("n") or tag in ("vn", "x"))


def is_proper(word: str) -> bool:
    """Whether jieba reads a word as a proper noun first (宁德, 华虹), not a common one (传感)."""
    words = tagged(word)
    return bool(words) and words[0][1] in _PROPER_TAGS


def is_place(name: str) -> bool:
    """Whether a name starts as a place does (jieba tags its first word a place or a
    direction: 中国, 国内, 德国)."""
    words = tagged(name)
    return bool(words) and words[0][1] in ("ns", "s", "f")


def sounds_like(latin: str, chinese: str) -> bool:
    """Whether a Latin name is a Chinese name written in pinyin, as companies' English names
    often are ("Hua Hong" of 华虹半导体, "LONGi" of 隆基绿能, "Chengyuan Intelligent" of
    澄远智能): its letters, or their start, within one edit of the pinyin of two or more
    characters of the Chinese name (pypinyin's readings), starting at one of its first four."""
    from pypinyin import lazy_pinyin

    letters = re.sub(r"[^a-z]", "", latin.lower())
    if len(letters) < 4:
        return False
    run = _CJK_RUN.match(chinese)
    syllables = lazy_pinyin(run.group()) if run else []
    # a legal name may lead with its place (江苏澄远智能…): the name may start up to 3 in
    for start in range(min(4, max(len(syllables) - 1, 0))):
        for end in range(start + 2, len(syllables) + 1):
            reading = "".join(syllables[start:end])
            if _within_one_edit(letters[: len(reading) + 1], reading) or _within_one_edit(
                letters, reading
            ):
                return True
    return False


def _within_one_edit(a: str, b: str) -> bool:
    if abs(len(a) - len(b)) > 1:
        return False
    if len(a) > len(b):
        a, b = b, a
    i = 0
    while i < len(a) and a[i] == b[i]:
        i += 1
    return a[i:] == b[i + 1 :] or (len(a) == len(b) and a[i + 1 :] == b[i + 1 :])
