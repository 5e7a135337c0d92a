"""Words a question and a passage share: the lexical matching of the offline answerer and of
the prompt's question-focused excerpts.

``tokenize`` gives jieba search-mode words (Chinese of two characters or more, English words
lower-cased and lightly stemmed, numbers, period tokens like 2024q2) without stopwords, and
Chinese character bigrams without function characters (a fallback when jieba cuts a name
differently in the question and in the text). ``question_terms`` adds the finance synonyms of
the question's words, across languages ("P/E" meets 市盈率).
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass

from rag_app.ingest.chunking import search_title
from rag_app.models import Chunk
from rag_app.retrieve.expansion import FINANCE_SYNONYMS

_CJK_CHAR = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_CJK_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
_WORDISH = re.compile(r"[0-9A-Za-z\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_YEAR_LABEL = re.compile(r"^((?:19|20)\d\d)[aef]$")

# Function words and question words that say nothing about where the answer is.
_ZH_STOP = frozenset(
    "的 了 和 与 及 或 是 在 有 对 为 之 等 也 都 这 那 其 吗 呢 吧 啊 被 将 把 从 到 由 以 于 "
    "多少 什么 哪些 哪个 哪家 哪里 如何 怎么 怎样 为什么 是否 请问 一下 介绍 说明 分别 "
    "主要 情况 相关 以及 通过 进行 我们 你们 他们 这个 那个 这些 那些 可以 能否 根据".split()
)
_EN_STOP = frozenset(
    "a an the of in on at to for from by with and or is are was were be been being do does did "
    "what which who whom whose when where why how much many about into than that this these "
    "those it its as per vs can could would should will shall may might please tell me give "
    "show list there their they them we our you your i".split()
)
# Characters that make a Chinese bigram uninformative ("的产", "是多").
_ZH_STOP_CHARS = frozenset("的了和与及或是在有对为之等也都这那其吗呢吧啊被将把从到由以于个")

_jieba_lock = threading.Lock()
_jieba_ready = False


def _cut(text: str) -> list[str]:
    global _jieba_ready
    import jieba  # lazily: building its dictionary takes about 0.6 s the first time

    if not _jieba_ready:
        with _jieba_lock:
            if not _jieba_ready:
                jieba.setLogLevel(logging.WARNING)
                jieba.initialize()
                _jieba_ready = True
    return jieba.lcut_for_search(text)


def _stem(word: str) -> str:
    # Just enough English normalisation for "revenues" ~ "revenue", "margins" ~ "margin".
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def tokenize(text: str) -> tuple[set[str], set[str]]:
    """(words, bigrams) of ``text``: jieba search-mode words (Chinese of 2+ characters, English
    words lower-cased and lightly stemmed, numbers) without stopwords, and Chinese character
    bigrams without function characters."""
    words: set[str] = set()
    for token in _cut(text):
        token = token.strip().lower()
        if not token or not _WORDISH.search(token):
            continue
        if _CJK_CHAR.search(token):
            if len(token) >= 2 and token not in _ZH_STOP:
                words.add(token)
        elif token not in _EN_STOP:
            words.add(_stem(token))
    from rag_app.index.keywords import period_tokens  # lazily: it imports numpy and bm25s

    words.update(period_tokens(text))  # 2024年第二季度 meets a row labelled 2024Q2
    # A column labelled 2026E or 2024A is that year: "P/E for 2026" meets it.
    words.update(m.group(1) for w in list(words) if (m := _YEAR_LABEL.match(w)))
    return words, cjk_bigrams(text, _ZH_STOP_CHARS) - _ZH_STOP


def cjk_bigrams(text: str, stop_chars: frozenset[str]) -> set[str]:
    """Adjacent Chinese character pairs of ``text`` that contain none of ``stop_chars``."""
    bigrams: set[str] = set()
    for run in _CJK_RUN.findall(text):
        for i in range(len(run) - 1):
            pair = run[i : i + 2]
            if pair[0] not in stop_chars and pair[1] not in stop_chars:
                bigrams.add(pair)
    return bigrams


@dataclass(frozen=True)
class QuestionTerms:
    """A question's words and Chinese bigrams, its finance synonyms included; ``synonyms`` is the
    expansion's text ("" when none applied)."""

    words: frozenset[str]
    bigrams: frozenset[str]
    synonyms: str = ""


def question_terms(question: str) -> QuestionTerms:
    """The terms of ``question`` to match passages with: its own words and bigrams, plus those of
    its finance synonyms (营收 meets 营业收入, P/E meets 市盈率). A two-character word counts once,
    as a word, not again as a bigram."""
    words, bigrams = tokenize(question)
    synonyms = " ".join(FINANCE_SYNONYMS.expand(question))
    if synonyms:
        s_words, s_bigrams = tokenize(synonyms)
        words |= s_words
        bigrams |= s_bigrams
    return QuestionTerms(frozenset(words), frozenset(bigrams - words), synonyms)


# A report title's leading name: the Chinese characters before the first bracket, colon, comma,
# space or digit (比亚迪 of "比亚迪（002594.SZ）深度报告：…", 中芯国际 of "中芯国际2024年年度报告").
_LEADING_NAME = re.compile(r"^([\u3400-\u4dbf\u4e00-\u9fff]{2,12})(?=[（(：:，,\s\d]|$)")
_GENERIC_NAMES = frozenset(
    "年度报告 年报 半年报 深度报告 研究报告 公司 行业 点评 附录 目录".split()
)


def subject_words(chunk: Chunk) -> frozenset[str]:
    """The name of what a chunk's document is about, from the document title that chunking puts
    first in the searched text ("title > heading > ..."); empty when it does not start with one."""
    match = _LEADING_NAME.match(search_title(chunk))
    if match is None or match.group(1) in _GENERIC_NAMES:
        return frozenset()
    return frozenset({match.group(1)})


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


def asks_for_list(question: str) -> bool:
    """Whether ``question`` asks for a list of things ("中芯国际的产线有哪些？", "What are the
    segments of revenue?", "Which fabs does SMIC have?") rather than one value or the one that
    stands out ("Which segment grew most?")."""
    return _ASKS_FOR_LIST.search(question) is not None and _SUPERLATIVE.search(question) is None
