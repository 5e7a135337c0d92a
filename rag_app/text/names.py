"""The name a question asks about: the company or report it names before its period and metric
("宁德时代" of "宁德时代2025年的营业收入预测是多少？", "CATL" of "What is CATL's revenue?"). A Chinese
question names it first, as report titles do: the Chinese run after any leading period and
framing words (根据, 请问), up to a digit, 的, punctuation or a metric, or a capitalised Latin name
it leads with; an English one as a possessive. A run holding a question word names nothing."""

from __future__ import annotations

import re
from itertools import dropwhile

from rag_app.text import lexicon
from rag_app.text.analyzer import in_dictionary, tagged
from rag_app.text.language import CJK_UNIFIED, cjk_share
from rag_app.text.periods import (
    MONTH_NAMED,
    PERIOD_SPAN,
    RELATIVE_PERIOD,
    SINGLE_QUARTER,
    YEARLESS_PART,
)
from rag_app.text.spans import METRICS, strip_modifiers

_WORDS = lexicon.keyed_groups("question_names.txt")
_QUESTION_WORDS = (
    tuple(lexicon.keyed_groups("followup_words.txt")["interrogative"]) + _WORDS["question"]
)
_LEADING = sorted(_WORDS["lead"], key=len, reverse=True)
_STOPS = _WORDS["stop"]
_SENTENCE_WORDS = frozenset(_WORDS["sentence_en"])
_NOT_NAMES = frozenset(_WORDS["not_names"])
# The characters a quantity's noun ends with (杠杆率, 交易额): joined to the noun before them.
_SUFFIXES = frozenset(_WORDS["suffix"])
_CJK_RUN = re.compile(f"[{CJK_UNIFIED}]+")
# A Chinese name in its legal form, from the start of the text.
_LEGAL_CJK = re.compile(f"[{CJK_UNIFIED}（）()]{{2,30}}?(?:股份有限公司|有限责任公司|有限公司)")
# A quarter or half written without its year, and separators, before a name; not the 三一 of
# 三一重工.
_PERIOD_PART = re.compile(
    rf"^[\s，,、：:]*(?:{YEARLESS_PART.pattern}|{SINGLE_QUARTER.pattern})?[\s，,、：:]*"
)
# A Chinese question led by a capitalised Latin name, a period or Chinese words right after it.
_LATIN_LEAD = re.compile(rf"([A-Z][a-z]{{2,}}(?:\s+[A-Z][a-z]+)*)\s*(?=[{CJK_UNIFIED}]|\d{{4}})")
_POSSESSIVE = re.compile(r"\b([A-Z][A-Za-z&.\-]*(?:\s+[A-Z][A-Za-z&.\-]*)*)['’]s\b")


def leading_name(question: str) -> str:
    """The company or report ``question`` names first, before a period or a metric ("" if none)."""
    text = question.strip()
    while True:
        before = text
        if PERIOD_SPAN.match(text) or RELATIVE_PERIOD.match(text):  # 2024年, 去年
            text = (PERIOD_SPAN if PERIOD_SPAN.match(text) else RELATIVE_PERIOD).sub("", text, 1)
            text = text[1:] if text[:1] in ("末", "初", "底") else text  # 2024年末
        for word in _LEADING:
            if text.startswith(word):
                text = text[len(word) :]
                break
        text = _PERIOD_PART.sub("", text, count=1)
        if text == before:
            break
    run = _CJK_RUN.match(text)
    legal = _LEGAL_CJK.match(text)
    if legal is not None:  # a name in legal form is whole: 嵘城市国有资本投资运营集团有限公司
        return legal.group()
    if run is not None:
        name = run.group()
        lowered = name.lower()
        if any(lowered.startswith(m) for m in METRICS if not m.isascii()):
            return ""  # 营业收入是多少: a metric first, no name
        cut = min(
            [lowered.find(m) for m in METRICS if not m.isascii() and lowered.find(m) > 0]
            + [name.find(s) for s in _STOPS if name.find(s) > 0]
            + [m.start() for m in RELATIVE_PERIOD.finditer(name) if m.start() >= 2][:1]
            + [i for i, c in enumerate(name) if c in "和与及" and i >= 2][:1]  # 梅湾和金沙
            + [name.find(w) for w in _QUESTION_WORDS if name.find(w) >= 0]
            + [len(name)]
        )
        name = name[:cut]
        if any(name.startswith(s) for s in _STOPS):
            return ""  # 公司2025年…, 表中…, 图2…: the words a name ends before, no name
        part = YEARLESS_PART.search(name)
        if part is not None and part.start() >= 2:  # 沐溪食品前三季度: the name, then its period
            name = name[: part.start()]
            return name if not _is_clause(name) and not _starts_with_verb(name) else ""
        if not 2 <= len(name) <= 30 or _is_clause(name):
            return ""
        # A subject as report questions name one: right before a period or a metric
        # ("宁德时代2025年…", "中芯国际的毛利率…"); "拳击比赛的收益" names no company.
        rest = re.sub(r"^(的|公司|集团|股份)+|^[（(][^）)]*[）)]", "", text[len(name) :]).lstrip()
        rest = re.sub(r"^(的)+", "", rest)
        lowered_rest = strip_modifiers(rest.lower())
        if (
            PERIOD_SPAN.match(rest)
            or RELATIVE_PERIOD.match(rest)
            or any(lowered_rest.startswith(m) for m in METRICS)
        ):
            return name
        # before 的 and a noun, a name shaped like one: a word the dictionary does not hold
        # (嵘 of 嵘城银行, 沐溪) or a proper noun ("嵘城银行的流动性覆盖率")
        if text[len(name) :].startswith("的") and _name_shaped(name):
            return name
        return ""
    latin = _LATIN_LEAD.match(text) if (cjk_share(text) or 0) >= 0.5 else None
    if latin and (n := latin.group(1)).upper() not in _NOT_NAMES and n.lower() not in METRICS:
        return n  # "Orvella上半年净利润多少？"
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
# Words a clause's subject is made of: common nouns, places-as-words, pronouns.
_COMMON_TAGS = frozenset({"n", "s", "r", "vn", "ng"})


def _starts_with_verb(span: str) -> bool:
    """Whether a run starts with a verb of two characters or more that the dictionary holds
    (排名, 募集; not a brand jieba guesses is one: 锐拓)."""
    words = tagged(span)
    return (
        bool(words) and words[0][1] == "v" and len(words[0][0]) >= 2 and in_dictionary(words[0][0])
    )


def _name_shaped(span: str) -> bool:
    """Whether a Chinese run is shaped like a company's name: its first word a proper noun or
    one jieba's dictionary does not hold (嵘城, 沐溪), not common words ("拳击比赛")."""
    words = tagged(span)
    if len(words) < 2 or _is_clause(span):
        return False
    first, tag = words[0]
    return tag in _PROPER_TAGS or tag == "x" or not in_dictionary(first)


def _is_clause(span: str) -> bool:
    """Whether a run before 的 is a clause, not a name: common nouns and a verb of two
    characters or more ("报告给出", "管理层表示", "分析师预计": what a report or a person says),
    a common noun and what it did ("公司一共实现"), a count after its first words ("表中四家可比")
    or first and then a verb ("四家可比"), or a run starting with such a verb ("排名前三").
    A company's name has a proper noun or a word of another kind before a verb-like last word
    (三一重工, 新希望); a brand jieba reads as a common noun before one (保利发展) is missed."""
    words = tagged(span)
    count = words[0][1] == "m" and len(words[0][0]) >= 2 and not words[0][0].isdigit()
    if count and (len(words) == 1 or words[1][1] == "v"):
        return True  # a count alone or what so many are: 两家, 四家可比 (公司); not 三只松鼠
    if len(words) < 2:  # one word: a verb, adjective or time the dictionary holds (预测, 全年)
        return words[0][1] in ("v", "vn", "a", "ad", "d", "t") and in_dictionary(words[0][0])
    if _starts_with_verb(span) or (
        all(t in ("n", "v") for _, t in words) and any(t == "v" for _, t in words[1:-1])
    ):
        return True  # 排名前三, 募集资金; 商品猪占生猪: common nouns a verb relates
    numerals = len(words) - len(list(dropwhile(lambda w: w[1] == "m", words)))
    if any(t == "m" and len(w) >= 2 and not w.isdigit() for w, t in words[max(1, numerals) :]):
        return True  # a count after its first words: 表中四家可比 (公司); not 三一重工
    last, tag = words[-1]
    if not (len(last) >= 2 and tag in ("v", "vn") and in_dictionary(last)):
        return False
    if tag == "v" and words[0][1] == "n" and in_dictionary(words[0][0]):
        # a common noun, any words, a verb: what it did (公司一共实现, 公司全年实现)
        return not any(t in _PROPER_TAGS for _, t in words[1:-1])
    return all(t in _COMMON_TAGS and t not in _PROPER_TAGS for _, t in words[:-1])


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
    if english:  # in an English question Chinese characters write a name ("北麓乳业's")
        names.extend(m.group(0) for m in _CJK_RUN.finditer(question) if len(m.group(0)) >= 2)
    if not english:
        # in a Chinese question a capitalised Latin word is a name ("Orvella二季度"); an
        # upper-case one is an acronym, a ticker or a metric (ROE, ZPHR) and is left alone
        names.extend(m.group(0) for m in _LATIN_WORD.finditer(question) if m.start() >= asks_from)
    return tuple(dict.fromkeys(n for n in names if n))


def title_genres(title: str) -> frozenset[str]:
    """The nouns a document's title ends its parts with, what it calls itself ("报告" of
    "证券研究报告·公司深度研究", "纪要" of "…业绩说明会纪要", "说明书" of "招股说明书（申报稿）")
    together with the part they end ("证券研究报告"), so a question may call it by a short form
    (研报, 年报)."""
    out: set[str] = set()
    for part in _TITLE_PARTS.split(title):
        words = [(w, t) for w, t in tagged(part) if _CJK_RUN.fullmatch(w)]
        if words and len(words[-1][0]) >= 2:
            out.update((words[-1][0], "".join(w for w, _ in words)))
    return frozenset(out)


def source_clause(question: str, genres: frozenset[str]) -> str:
    """The clause a question names its source by, not what it asks ("报告给出的" of
    "报告给出的目标价是多少？", "该行年报披露的" with 年度报告 a title's genre): common nouns (one
    of them the document's genre, or a short form of it) and a verb of two characters or more,
    before 的. "" when there is none; "投资活动产生的" names no document."""
    words = tagged(question)
    for k in range(1, len(words) - 1):
        verb, tag = words[k]
        if not (len(verb) >= 2 and tag in ("v", "vn") and words[k + 1][0] == "的"):
            continue
        i = k
        while i > 0 and words[i - 1][1] in _COMMON_TAGS | {"f"}:
            i -= 1
        nouns = [w for w, t in words[i:k] if (t.startswith("n") or t == "vn") and len(w) >= 2]
        # said "in" something (文中, 报告中, 表中提到的): where it is said, not what
        located = any(t == "s" or (t == "f" and j > i) for j, (_, t) in enumerate(words[i:k], i))
        if located or any(_short_form(w, g) for w in nouns for g in genres):
            start = question.find(words[i][0])
            end = question.find("的", question.find(verb, start)) + 1
            return question[start:end] if 0 <= start < end else ""
    return ""


def _short_form(word: str, genre: str) -> bool:
    """Whether ``word`` is ``genre`` or a short form of it: its characters in order, its last a
    character of the genre's last two (年报 of 年度报告), or two characters ending with the
    first of the genre's last two (研报 of 深度报告)."""
    if word == genre or (len(word) == 2 and len(genre) >= 2 and word[1] == genre[-2]):
        return True  # X报 of a 报告 (研报, 年报)
    rest = iter(genre)
    return len(word) >= 2 and all(ch in rest for ch in word) and word[-1] in genre[-2:]


_TITLE_PARTS = re.compile(r"[·｜|/\s（）()【】\[\]：:，,—-]+")


def content_words(
    question: str, leave_out: tuple[str, ...] = (), nouns: bool = False
) -> tuple[str, ...]:
    """The words of ``question`` that say what it asks for, in order: not function words,
    punctuation, periods or the names ``leave_out`` ("营业收入" of "北辰智控2024年的营业收入是多少？"
    with 北辰智控 left out). ``nouns``: only its Chinese nouns of two characters or more (what a
    report must write for the question to be about something it holds)."""
    text = _blanked(question, leave_out)
    out = []
    for word, tag in _nouns_joined(text):
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
    words = _nouns_joined(text)
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


def noun_run(question: str, leave_out: tuple[str, ...] = ()) -> tuple[str, str]:
    """A Chinese question's last noun with the nouns written right before it, joined, and that
    last noun ("流动性覆盖率", "覆盖率"); ("", "") when it has no noun of two characters."""
    words = _nouns_joined(_blanked(question, leave_out))
    nouns = _noun_places(words)
    if not nouns:
        return "", ""
    start = nouns[-1]
    while start - 1 in nouns and words[start - 1][1].startswith("n"):
        start -= 1
    return "".join(w for w, _ in words[start : nouns[-1] + 1]), words[nouns[-1]][0]


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
    words = _nouns_joined(text)
    nouns = _noun_places(words)
    if not nouns:
        return "", (), ""
    start = nouns[-1]
    while start - 1 in nouns and words[start - 1][1].startswith("n"):
        start -= 1  # 现金流量 净额: the noun's own words (not 经营 活动, verbs as nouns)
    i = start - 1
    related = i >= 1 and words[i][0] == "的"
    if related:
        i -= 1
    qualifiers: list[str] = []
    while i >= 0 and _qualifies(*words[i]):
        qualifiers.insert(0, words[i][0])
        i -= 1
        if not related and words[i + 1][1] == "v":
            break  # a verb right before the noun takes it as its object: nothing before it qualifies
    if not qualifiers:
        return "", (), ""
    first = text.find(qualifiers[0])
    end = text.find(words[nouns[-1]][0], first) + len(words[nouns[-1]][0])
    return text[first:end], tuple(qualifiers), words[nouns[-1]][0]


def is_verb(word: str) -> bool:
    """Whether jieba reads ``word`` on its own as a verb (来自, 独立; not 投资, a verb as noun)."""
    return [tag for _, tag in tagged(word)] == ["v"]


def _qualifies(word: str, tag: str) -> bool:
    """A content word of two characters or more that can qualify a noun (a verb or noun
    before it: 投资活动, 独立)."""
    return len(word) >= 2 and bool(_CJK_RUN.fullmatch(word)) and tag in _QUALIFIER_TAGS


_QUALIFIER_TAGS = frozenset("v vn n nz a an b x".split())
_CLAUSES = re.compile(r"[，,；;？?。!！]")


def _nouns_joined(text: str) -> list[tuple[str, str]]:
    """jieba's words of ``text``, a noun (or a verb of two characters or more: 退保 率) and the
    quantity suffix written right after it joined into one noun (杠杆 率 -> 杠杆率: jieba reads a
    率 it has not seen with its noun as a verb)."""
    words = list(tagged(text))
    out: list[tuple[str, str]] = []
    for word, tag in words:
        verb = out and out[-1][1].startswith("v") and len(out[-1][0]) >= 2
        if out and word in _SUFFIXES and (_noun(*out[-1]) or verb):
            out[-1] = (out[-1][0] + word, "n")
        else:
            out.append((word, tag))
    return out


def _blanked(question: str, leave_out: tuple[str, ...]) -> str:
    """``question`` with the names ``leave_out`` (longest first) and its periods blanked out."""
    for name in sorted((n for n in leave_out if n), key=len, reverse=True):
        question = question.replace(name, " ")
    return MONTH_NAMED.sub(" ", PERIOD_SPAN.sub(" ", question))  # 4月份 too


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


# The last character of an administrative place's name, or of a sector's of three characters
# or more (制造业: 中国制造业; not 酒业, 剑阳酒业 being a company)
_LOCALITY = "省市县区州镇乡村国洲业"


def is_place(name: str) -> bool:
    """Whether a name is a place's: a place's words (中国, 德国, 常州市武进区), or one place or
    direction word alone (国内, 境外)."""
    words = tagged(name)
    if not words:
        return False
    # a place's name (中国, 德国), or a place word alone (国内, 境外); a name of several words
    # that starts with a direction (北麓乳业), goes on past its place but not to a sector (岱山
    # 重工, 上海电气; not 中国制造业) or is in legal form (常州…有限公司) is a company's
    place = words[0][1] == "ns" or (len(words) == 1 and words[0][1] in ("s", "f"))
    rest = all(
        t in ("ns", "s", "f") or w[-1] in _LOCALITY[:-1] or (w[-1] == "业" and len(w) > 2)
        for w, t in words[1:]
    )
    return place and rest and not _LEGAL_CJK.fullmatch(name)
