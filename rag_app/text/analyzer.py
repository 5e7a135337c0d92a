"""The analyzer: the one place that segments words. jieba is set up here once, with the finance
dictionary, and everything that needs words (the keyword index and its queries, the prompt's
excerpts, the offline answerer, the citation check, routing) gets them from here.

Two views of a text, as Lucene has one analyzer per field:
- ``index_tokens``: what BM25 indexes and queries with (jieba precise-mode words, lower-cased,
  index stopwords dropped, period tokens, plus every Chinese character bigram);
- ``match_terms``: the words and bigrams a question and a passage share (jieba search-mode
  words of two or more characters, question stopwords dropped, English stemmed, period tokens;
  bigrams without function characters), used by excerpts and the offline answerer;
  ``question_terms`` adds the finance synonyms of a question's words.
"""

from __future__ import annotations

import functools
import logging
import marshal
import re
import tempfile
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rag_app.text import lexicon
from rag_app.text.language import CJK_BASIC, CJK_CLASS, WORD_CHAR, stem
from rag_app.text.periods import labelled_year, period_tokens, year_tokens
from rag_app.text.synonyms import FINANCE_SYNONYMS

_CJK_CHAR = re.compile(f"[{CJK_CLASS}]")
_CJK_RUN = re.compile(f"[{CJK_CLASS}]+")
# The index's bigrams and the phrases read the basic CJK block only (not Extension A or the
# compatibility ideographs): changing it changes every stored token (TOKENIZER_VERSION).
_CJK_RUN_2 = re.compile(f"[{CJK_BASIC}]{{2,}}")
_KEEP = re.compile(f"[\\w{CJK_BASIC}]", re.UNICODE)
_CJK_RUN_3 = re.compile(f"[{CJK_BASIC}]{{3,}}")
_LATIN_WORD = re.compile(r"[a-z0-9]+")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*%?")

# Bump when index_tokens() changes: stored tokens of older versions are recomputed on next load.
TOKENIZER_VERSION = "jieba-bigram-5"

INDEX_STOPWORDS = lexicon.word_set("index_stopwords.txt")
PHRASE_STOPWORDS = lexicon.word_set("phrase_stopwords.txt")
QUESTION_STOPWORDS_ZH = lexicon.word_set("question_stopwords_zh.txt")
QUESTION_STOPWORDS_EN = lexicon.word_set("question_stopwords_en.txt")
BIGRAM_STOP_CHARS = lexicon.char_set("bigram_stop_chars.txt")

_lock = threading.Lock()
_jieba: Any = None


def _segmenter() -> Any:
    """jieba, initialised once per process with the finance terms (about 0.6 s the first time)."""
    global _jieba
    if _jieba is None:
        with _lock:
            if _jieba is None:
                import jieba

                jieba.setLogLevel(logging.WARNING)
                _load_dictionary(jieba)
                for term in lexicon.entries("finance_terms.txt"):
                    jieba.add_word(term)
                _jieba = jieba
    return _jieba


def _load_dictionary(jieba: Any) -> None:
    """jieba's default dictionary from the cache jieba keeps in the temp folder, read whole and
    then unmarshalled: jieba's own ``initialize`` unmarshals from the open file, about three
    times slower (0.82 s against 0.27 s here, on every start of the app, the API and the CLI).
    Anything unusual (no cache yet, another dictionary set) is left to ``initialize``, which
    also writes the cache the first time."""
    tokenizer = jieba.dt
    cache = Path(tokenizer.tmp_dir or tempfile.gettempdir()) / "jieba.cache"
    if tokenizer.dictionary == jieba.DEFAULT_DICT and not tokenizer.cache_file and cache.is_file():
        try:
            freq, total = marshal.loads(cache.read_bytes())
        except (OSError, ValueError, EOFError, TypeError):
            pass  # a cache half-written or from another Python: initialize builds it again
        else:
            with tokenizer.lock:
                if not tokenizer.initialized:
                    tokenizer.FREQ, tokenizer.total = freq, total
                    tokenizer.initialized = True
    jieba.initialize()  # a no-op once initialised


def cut(text: str, search_mode: bool = False) -> list[str]:
    """jieba's words of ``text`` as written (precise mode, or search mode which adds the parts
    of long words: 营业收入 -> 营业, 收入, 营业收入).

    jieba cuts a text block by block (runs of its word characters, and what lies between) and
    each block on its own, so the words of a short block are kept and reused: a report's
    English words, numbers and short phrases recur all through it (a third of ingesting
    TAT-QA's pages went to cutting them again)."""
    jieba = _segmenter()
    words: list[str] = []
    for block in jieba.re_han_default.split(text):
        if block:
            if len(block) <= _MEMO_BLOCK_CHARS:
                words.extend(_cut_block(block, search_mode))
            else:
                words.extend(jieba.cut_for_search(block) if search_mode else jieba.cut(block))
    return words


# Blocks at most this long are cut once per process (longer ones, whole Chinese sentences,
# seldom recur); how many are kept.
_MEMO_BLOCK_CHARS = 24
_MEMO_BLOCKS = 200_000


@functools.lru_cache(maxsize=_MEMO_BLOCKS)
def _cut_block(block: str, search_mode: bool) -> tuple[str, ...]:
    jieba = _segmenter()
    return tuple(jieba.cut_for_search(block) if search_mode else jieba.cut(block))


def in_dictionary(word: str) -> bool:
    """Whether jieba's dictionary holds ``word`` (a word of the language, not one its model
    guessed from unseen characters: 排名, not 锐拓)."""
    return bool(_segmenter().dt.FREQ.get(word))


def tagged(text: str) -> list[tuple[str, str]]:
    """jieba's words of ``text`` with their part of speech (jieba.posseg's tags, learned from
    its corpus: ns a place, nr a person, nt an organisation, nz another proper noun, eng a
    Latin word; a finance term of our dictionary is "x", like punctuation)."""
    return list(_tagged(text))


# Chunks' and questions' words are tagged again and again (names, subjects); this many kept.
TAGGED_CACHE = 20_000


@functools.lru_cache(maxsize=TAGGED_CACHE)
def _tagged(text: str) -> tuple[tuple[str, str], ...]:
    _segmenter()
    import jieba.posseg as posseg

    pairs = [(pair.word, pair.flag) for pair in posseg.cut(text)]
    return tuple(_as_cut(pairs, cut(text)))


def _content(tags: list[str]) -> bool:
    """Whether tagged parts make a content word: a noun among nouns, verbs and adjectives."""
    return any(t[0] == "n" for t in tags) and all(t[0] in "nva" for t in tags)


def _as_cut(pairs: list[tuple[str, str]], words: list[str]) -> list[tuple[str, str]]:
    """posseg's tagged words joined where ``cut`` keeps one word that posseg's own model splits
    (营收 of "营收是多少" tagged 营 n, 收 v): one reading of the words for every stage. Only a noun
    made of content words is joined (not 比上 of "比上年末"), of two characters: a longer word jieba's
    model guesses may glue a verb on (占营收). It takes its first noun's tag."""
    ends, at = {}, 0
    for word in words:
        ends[at] = at + len(word)
        at += len(word)
    out: list[tuple[str, str]] = []
    at = i = 0
    while i < len(pairs):
        end, j, reach = ends.get(at, -1), i, at
        while j < len(pairs) and reach < end:
            reach += len(pairs[j][0])
            j += 1
        tags = [t for _, t in pairs[i:j]]
        if j - i == 2 and reach == end == at + 2 and _content(tags):
            tag = next(t for t in tags if t[0] == "n")
            out.append(("".join(w for w, _ in pairs[i:j]), tag))
            i, at = j, end
            continue
        out.append(pairs[i])
        at += len(pairs[i][0])
        i += 1
    return out


def cjk_bigrams(text: str, stop_chars: frozenset[str] = BIGRAM_STOP_CHARS) -> set[str]:
    """Adjacent Chinese character pairs of ``text`` that contain none of ``stop_chars``."""
    bigrams: set[str] = set()
    for run in _CJK_RUN.findall(text):
        for i in range(len(run) - 1):
            pair = run[i : i + 2]
            if pair[0] not in stop_chars and pair[1] not in stop_chars:
                bigrams.add(pair)
    return bigrams


def index_words(text: str, search_mode: bool = False) -> list[str]:
    """jieba words, lower-cased, without punctuation and index stopwords, each period label
    followed by its bare year (2024E -> 2024, 2024fy) and the text's period tokens last; no
    bigrams. ``search_mode`` adds the parts of long words, which suits overlap measures such as
    the citation check's."""
    out = []
    lowered = text.lower()
    periods = period_tokens(lowered)
    part_years = {p[:4] for p in periods}  # years named with a quarter or half here
    for token in cut(lowered, search_mode):
        token = token.strip()
        if token and _KEEP.search(token) and token not in INDEX_STOPWORDS:
            out.append(token)
            out.extend(year_tokens(token, part_years))
    seen = set(out)
    out.extend(t for t in periods if t not in seen)
    return out


def index_tokens(text: str) -> list[str]:
    """The keyword index's tokens: ``index_words`` (precise mode) plus the character bigrams of
    every Chinese run.

    Bigrams make a query's 轻工业增加值 meet a text's 轻工业 / 增加值 however jieba segments
    either, which word tokens alone miss (measured on crud_zh_dev: BM25 r@1 0.685 -> 0.725,
    mrr@10 0.792 -> 0.818). A report's period labels (2024E, 2023A, 2024年) also yield the bare
    year, so "2024 revenue" meets 2024E.
    """
    lowered = text.lower()
    out = index_words(lowered)
    for run in _CJK_RUN_2.findall(lowered):
        out.extend(run[i : i + 2] for i in range(len(run) - 1))
    return out


def match_terms(text: str) -> tuple[set[str], set[str]]:
    """(words, bigrams) of ``text`` for matching a question with a passage: jieba search-mode
    words (Chinese of 2+ characters, English lower-cased and stemmed, numbers) without question
    stopwords, period tokens (2024年第二季度 meets a row labelled 2024Q2) and the years of
    whole-year labels (2026E -> 2026); and Chinese bigrams without function characters."""
    words: set[str] = set()
    for token in cut(text, search_mode=True):
        token = token.strip().lower()
        if not token or not WORD_CHAR.search(token):
            continue
        if _CJK_CHAR.search(token):
            if len(token) >= 2 and token not in QUESTION_STOPWORDS_ZH:
                words.add(token)
        elif token not in QUESTION_STOPWORDS_EN:
            words.add(stem(token))
    words.update(period_tokens(text))
    words.update(year for w in list(words) if (year := labelled_year(w)))
    return words, cjk_bigrams(text) - QUESTION_STOPWORDS_ZH


def loose_pairs(text: str) -> set[str]:
    """Pairs of Chinese characters ``text`` means as words, which a passage may write inside a
    longer word: its words of two (占率, of 市占率 elsewhere: "的市占率" is cut 的 / 市 / 占率), and
    two characters jieba leaves alone side by side (占比 of 收入占比, cut 占 / 比, a word its
    dictionary lacks); of its bigrams (no function character)."""
    pairs, single = set(), ""
    for token in cut(text):
        alone = len(token) == 1 and _CJK_CHAR.match(token) is not None
        if (single and alone) or (len(token) == 2 and _CJK_CHAR.match(token)):
            pairs.add(single + token if alone else token)
        single = token if alone else ""
    return pairs & (cjk_bigrams(text) - QUESTION_STOPWORDS_ZH)


@dataclass(frozen=True)
class QuestionTerms:
    """A question's words and Chinese bigrams, its finance synonyms included; ``synonyms`` is the
    expansion's text ("" when none applied)."""

    words: frozenset[str]
    bigrams: frozenset[str]
    synonyms: str = ""


def question_terms(question: str, expansion: Sequence[str] | None = None) -> QuestionTerms:
    """The terms of ``question`` to match passages with: its own words and bigrams, plus those of
    its finance synonyms (营收 meets 营业收入, P/E meets 市盈率; ``expansion`` when the caller has
    expanded the question already). A two-character word counts once, as a word, not again as a
    bigram."""
    words, bigrams = match_terms(question)
    synonyms = " ".join(FINANCE_SYNONYMS.expand(question) if expansion is None else expansion)
    if synonyms:
        s_words, s_bigrams = match_terms(synonyms)
        words |= s_words
        bigrams |= s_bigrams
    return QuestionTerms(frozenset(words), frozenset(bigrams - words), synonyms)


def phrases(text: str) -> list[str]:
    """Character trigrams of the text's Chinese runs and pairs of its other words (phrase
    evidence: a passage holding the question's phrase, not only its words)."""
    lowered = text.lower()
    out = [run[i : i + 3] for run in _CJK_RUN_3.findall(lowered) for i in range(len(run) - 2)]
    words = [w for w in _LATIN_WORD.findall(lowered) if w not in PHRASE_STOPWORDS]
    out += [f"{a} {b}" for a, b in zip(words, words[1:])]
    return list(dict.fromkeys(out))


def numbers(text: str) -> set[str]:
    """The numbers written in the text ("2024", "1,234.5", "12%")."""
    return set(_NUMBER.findall(text))
