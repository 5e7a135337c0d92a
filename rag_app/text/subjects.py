"""What a report is about, and which reports a question names: the leading name of the document
title that chunking writes first in every chunk's searched text ("比亚迪 > 盈利预测 > ...").

``subject_names`` reads more than the title's first word: a report names its own company the way
listings and filings do, with a ticker ("中芯国际（688981.SH）", "Orvella Robotics（ORVL.US）") or
in its legal form ("杭州拓衡传感科技股份有限公司", "… Co., Ltd."), in its title or, when the title
is a section heading ("第二节 公司简介"), on its first page; the names it gives that company in
brackets ("Orvella Robotics Inc.（奥维拉机器人，NYSE: ORVL）") are its other names.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping, Sequence

from rag_app.models import Chunk
from rag_app.text import lexicon
from rag_app.text.language import CJK_UNIFIED

# Between the title and headings of the searched text's first line (written by chunking).
PATH_SEPARATOR = " > "

_CJK_CHAR = re.compile(f"[{CJK_UNIFIED}]")
# A report title's leading name: the Chinese characters before the first bracket, colon, comma,
# space or digit (比亚迪 of "比亚迪（002594.SZ）深度报告：…", 中芯国际 of "中芯国际2024年年度报告").
_LEADING_NAME = re.compile(rf"^([{CJK_UNIFIED}]{{2,12}})(?=[（(：:，,\s\d]|$)")
_GENERIC_TITLES = lexicon.word_set("generic_titles.txt")
_FORM_IN_NAME = re.compile(r"股份有限公司|有限责任公司|有限公司")
# An ordinal section heading: 第 + a numeral + the unit (第二节, 第三章, 第十二部分).
_SECTION_NUMBER = re.compile(r"第[一二三四五六七八九十百零〇两\d]+[节章篇部卷编条款]")
# A listing's ticker: 688981.SH, 1347.HK, ORVL.US, "NYSE: ORVL".
TICKER = r"\d{4,6}\.[A-Z]{1,2}|[A-Z]{1,5}\.[A-Z]{2}|[A-Z]{2,8}\s*[:：]\s*[A-Z][A-Z0-9.]{0,7}"
_LATIN_NAME = r"[A-Z][A-Za-z&.\-]*(?:\s+[A-Z][A-Za-z&.\-]*){0,4}"
# A Latin company's legal form, as filings write it in any case ("Co., Ltd.", "CO., LTD.").
_LATIN_FORM = r"(?i:Co\.,?\s*Ltd\.?|Inc\.|Corp\.|Corporation|Ltd\.|Limited)|GmbH|AG|PLC"
_LEGAL_FORM = re.compile(rf"(?:股份有限公司|有限责任公司|有限公司)$|[,.]?\s*(?:{_LATIN_FORM})$")
# A Latin name's words: capitalised, joined by the lower-case words names carry ("Bank of
# Rongcheng", "Procter & Gamble").
_LATIN_WORDS = r"[A-Z][A-Za-z&\-]*(?:\s+(?:(?:of|and|the|de|&)\s+)?[A-Z][A-Za-z&\-]*){0,5}"
# A name followed by its ticker in brackets (the ticker may follow other names: "奥维拉机器人，NYSE: ORVL").
# A mainland code written bare, six digits alone in the brackets: "沐溪食品（605376）",
# "（018642/018643）" of a fund's two share classes.
BARE_CODE = r"\d{6}(?:\s*[/、,，]\s*\d{6})*"
_WITH_TICKER = re.compile(
    rf"([{CJK_UNIFIED}]{{2,12}}|{_LATIN_NAME})\s*[（(]([^()（）]{{0,30}}?(?:{TICKER})[^()（）]{{0,20}}|{BARE_CODE})[)）]"
)
# The legal form of a company's name: the shape of the name, not a list of companies.
_LEGAL_NAME = re.compile(
    rf"[{CJK_UNIFIED}（）()]{{4,30}}?(?:股份有限公司|有限责任公司|有限公司)"
    rf"|{_LATIN_WORDS},?\s+(?:{_LATIN_FORM})"
)
# A bracket's names, split: "奥维拉机器人，NYSE: ORVL" -> 奥维拉机器人, NYSE: ORVL
_BRACKET_SPLIT = re.compile(r"\s*[，,、;；/]\s*")


def search_title(chunk: Chunk) -> str:
    """The first element of the "title > heading > ..." line chunking puts before a chunk's
    searched text: its document's title when the document has one (else the first line)."""
    first_line = chunk.search_text.split("\n", 1)[0]
    return first_line.split(PATH_SEPARATOR, 1)[0].strip()


def subject_words(chunk: Chunk) -> frozenset[str]:
    """The name of what a chunk's document is about, from the document title that chunking puts
    first in the searched text ("title > heading > ..."); empty when it does not start with one,
    or starts with a section's number ("第二节 公司简介和主要财务指标" of an annual report's
    excerpt: an ordinal, not a name)."""
    match = _LEADING_NAME.match(search_title(chunk))
    if match is None or match.group(1) in _GENERIC_TITLES or _SECTION_NUMBER.match(match.group(1)):
        return frozenset()
    # a name in legal form ends there: 澜禾牧业股份有限公司 of "…股份有限公司关于2025年10月…的简报"
    form = _FORM_IN_NAME.search(match.group(1))
    return frozenset({match.group(1)[: form.end()] if form else match.group(1)})


def document_subjects(chunks: Iterable[Chunk]) -> dict[str, frozenset[str]]:
    """Per document, the subject most of its chunks give (a title repeats on every chunk; a
    chunk's own first line, when the document has no title, does not), in the order documents
    first appear; empty when none has a majority."""
    votes: dict[str, dict[frozenset[str], int]] = {}
    for chunk in chunks:
        counts = votes.setdefault(chunk.doc_id, {})
        words = subject_words(chunk)
        counts[words] = counts.get(words, 0) + 1
    out = {}
    for doc_id, counts in votes.items():
        words, count = max(counts.items(), key=lambda p: p[1])
        out[doc_id] = words if words and count * 2 >= sum(counts.values()) else frozenset()
    return out


def named_subjects(
    question: str, subjects: Mapping[str, frozenset[str]], doc_ids: Collection[str] = ()
) -> dict[str, tuple[str, ...]]:
    """The subjects (of ``subjects``: doc_id -> its subject words) that ``question`` names, each
    with its documents (only those in ``doc_ids`` when given), in the order the question names
    them."""
    lowered = question.lower()
    named: dict[str, list[str]] = {}
    for doc_id, words in subjects.items():
        if doc_ids and doc_id not in doc_ids:
            continue
        for word in words:
            if word.lower() in lowered:
                named.setdefault(word, []).append(doc_id)
    order = sorted(named, key=lambda w: lowered.index(w.lower()))
    return {w: tuple(named[w]) for w in order}


def written_part(question: str, names: Iterable[str]) -> str:
    """The longest run of four characters or more of one of a company's Chinese ``names`` that
    ``question`` writes (拓衡传感 of 杭州拓衡传感科技股份有限公司: how readers write a legal name
    short); "" when it writes none."""
    best = ""
    for name in (n for n in names if not n.isascii()):
        for i in range(len(name)):
            j = i + max(4, len(best) + 1)
            while j <= len(name) and name[i:j] in question:
                best, j = name[i:j], j + 1
    return best


def writes_name(question: str, names: Iterable[str]) -> bool:
    """Whether ``question`` writes a company by one of its Chinese ``names`` (``written_part``)."""
    return bool(written_part(question, names))


def names_company(question: str, names: Iterable[str], lead: str = "") -> bool:
    """Whether ``question`` names a company by one of its ``names``: written whole, a Chinese one
    written short (``writes_name``), or a Latin one headed by the name it leads with (``lead``:
    "Orvella" of "Orvella Robotics")."""
    spellings = sorted(names)
    lowered = question.lower()
    return (
        any(n.lower() in lowered for n in spellings)
        or writes_name(question, spellings)
        or bool(lead and lead.isascii() and covers(spellings, lead))
    )


def shortest_chinese_name(names: Sequence[str]) -> str:
    """The shortest Chinese name among a company's ``names`` that is not a listing's form (中芯国际;
    澄远智能 of 江苏澄远智能装备股份有限公司), "" when none is: how readers and reports call it."""
    chinese = [n for n in names if _CJK_CHAR.search(n) and not is_listed(n)]
    return min(chinese, key=len) if chinese else ""


def is_listed(name: str) -> bool:
    """Whether a subject name is a company's as listings and filings write it (with a ticker or
    in legal form), as ``subject_names`` finds it in a company's own report."""
    return bool(
        re.fullmatch(TICKER, name) or re.fullmatch(r"\d{6}", name) or _LEGAL_NAME.fullmatch(name)
    )


def subject_names(chunks: Sequence[Chunk]) -> tuple[str, ...]:
    """The names of the company or topic one document is about, its main name first: a name
    its title gives with a ticker or in legal form, else the first such name on its first page
    when its title is a section heading, else the title's leading name (``subject_words``); then
    the other names the document gives it in brackets and the Latin legal names on its first
    page. Empty when the document names no subject."""
    if not chunks:
        return ()
    title = search_title(chunks[0])
    first_page = _first_page_texts(chunks)
    main = _listed_name(title)
    leading = next(iter(document_subjects(chunks).get(chunks[0].doc_id, frozenset())), "")
    whole_text = "\n".join(c.text for c in chunks)
    # a title's leading name the document writes again, in part (a topic: 动力电池 of
    # 动力电池行业), is its subject; else a company its first page names in legal form
    if not main and (not leading or not _named_often(leading, whole_text, 2)):
        main = next(
            (n for n in map(_listed_name, first_page) if n and _named_often(n, whole_text)), ""
        )
    company = bool(main)  # named with a ticker or in legal form, not a title's topic
    main = main or leading
    if not main:
        return ()
    names = dict.fromkeys([main])
    whole = "\n".join([title, *first_page])
    for match in _WITH_TICKER.finditer(whole):
        name = match.group(1).strip()
        if _same(name, main):
            names[name] = None
            names.update(dict.fromkeys(n for n in _BRACKET_SPLIT.split(match.group(2)) if n))
    if not main.isascii() and company:
        for match in _LEGAL_NAME.finditer(whole):
            if match.group(0).isascii():
                names[match.group(0)] = None
                names[latin_core(match.group(0))] = None  # "Bank of Rongcheng", as text writes it
        short = _short_name(main, "\n".join(c.text for c in chunks))
        if short:
            names[short] = None
    return tuple(n for n in names if n)


def latin_core(name: str) -> str:
    """A Latin legal name before its form, in the case names are written ("BANK OF RONGCHENG
    CO., LTD." -> "Bank of Rongcheng"; "Lanbo Pharmaceutical Co., Ltd." -> "Lanbo
    Pharmaceutical")."""
    core = _LEGAL_FORM.sub("", name).strip(" ,.")
    if core.isupper():
        small = {"of", "and", "the", "de"}
        core = " ".join(w.lower() if w.lower() in small else w.capitalize() for w in core.split())
    return core


def _short_name(name: str, text: str) -> str:
    """The short name a report calls its company by: the four characters of its legal name
    (before the legal form) it writes most, three times at least (澄远智能 of
    江苏澄远智能装备股份有限公司), or the whole name before the legal form when that is four
    characters or fewer; "" for a name with no legal form."""
    core = _LEGAL_FORM.sub("", name)
    if core == name:
        return ""
    if len(core) <= 4:  # 嵘城银行 of 嵘城银行股份有限公司: the name before its legal form
        return core if text.count(core) >= 3 else ""
    windows = [core[i : i + 4] for i in range(len(core) - 3)]
    best = max(windows, key=text.count)
    return best if text.count(best) >= 3 else ""


def _listed_name(text: str) -> str:
    """The first name ``text`` gives with a ticker or in legal form ("" when none)."""
    found = [m for m in (_WITH_TICKER.search(text), _LEGAL_NAME.search(text)) if m is not None]
    if not found:
        return ""
    first = min(found, key=lambda m: m.start())
    return (first.group(1) if first.re is _WITH_TICKER else first.group(0)).strip()


def _first_page_texts(chunks: Sequence[Chunk]) -> list[str]:
    pages = [c.page for c in chunks if c.page is not None]
    first = min(pages) if pages else None
    return [c.text for c in chunks if c.page == first or first is None][:40]


def _named_elsewhere(name: str, texts: Sequence[str]) -> bool:
    """Whether a title's leading name is written again on its first page (a subject is; a
    section number is not)."""
    return sum(text.count(name) for text in texts) >= 2


def _named_often(name: str, text: str, times: int = 3) -> bool:
    """Whether a document names a company often: some four characters of its name before the
    legal form (澄远智能 of 江苏澄远智能装备股份有限公司) written ``times`` times, as a report on
    that company does; a news story naming a company once does not."""
    core = _LEGAL_FORM.sub("", name)
    return any(text.count(core[i : i + 4]) >= times for i in range(max(len(core) - 3, 0)))


def _same(name: str, main: str) -> bool:
    a, b = name.lower(), main.lower()
    return bool(a) and (a in b or b in a)


def covers(names: Sequence[str], asked: str) -> bool:
    """Whether a name a question asks about (or a head of it: ``name_prefixes``) is one of a
    document's subject ``names``: one holds the other ("澄远智能" of "江苏澄远智能装备股份有限公司",
    "Orvella" of "Orvella Robotics")."""
    if asked.isascii():
        # Latin names match by whole words, two at least when the name has two ("Chengyuan
        # Intelligent" of "Jiangsu Chengyuan Intelligent Equipment Co., Ltd."; not "Total")
        words = re.findall(r"[a-z0-9&]+", asked.lower())
        if not words:
            return False
        heads = [words[:k] for k in range(len(words), min(2, len(words)) - 1, -1)]
        for name in names:
            held = re.findall(r"[a-z0-9&]+", name.lower())
            for head in heads:
                if any(held[i : i + len(head)] == head for i in range(len(held))):
                    return True
        return False
    lowered = [n.lower() for n in names if len(n) >= 2]
    for a in name_prefixes(asked):
        if any(a in n or n in a for n in lowered):
            return True
    return False


def name_prefixes(name: str, shortest: int = 4) -> list[str]:
    """A name a question gives, then its shorter heads, longest first: a name read off a
    question may run on into what it asks ("拓衡传感董事会" -> 拓衡传感董事, ..., 拓衡传感), down to
    ``shortest`` characters in Chinese (or the name, if shorter), its first word in Latin."""
    a = name.strip().lower()
    if len(a) < 2:
        return []
    if a.isascii():
        words = a.split()
        return [" ".join(words[:k]) for k in range(len(words), 0, -1)]
    return [a[:k] for k in range(len(a), min(shortest, len(a)) - 1, -1)]
