"""English names of a Chinese report's terms (``data/glossary_en_zh.txt``): an English question
reaches the Chinese words, for keyword search alone; a Chinese question is not changed."""

from __future__ import annotations

from rag_app.text import lexicon
from rag_app.text.synonyms import FINANCE_SYNONYMS, SYNONYM_GROUPS, SynonymDictionary
from rag_app.understand.analysis import analyse_query


def test_an_english_name_brings_its_chinese_term() -> None:
    assert FINANCE_SYNONYMS.bridge("What was the bank's non-performing loan ratio in 2024?") == [
        "不良贷款率"
    ]
    assert "流动性覆盖率" in FINANCE_SYNONYMS.bridge("And the LCR?")
    assert FINANCE_SYNONYMS.bridge("What was operating-cost growth?") == []  # whole words only
    assert FINANCE_SYNONYMS.bridge("嵘城银行的不良贷款率是多少？") == []


def test_bridges_are_kept_apart_from_synonyms() -> None:
    words = SynonymDictionary(groups=(), bridges=(("净息差", "net interest margin", "nim"),))
    assert words.expand("What was the net interest margin?") == []
    assert words.bridge("What was the net interest margin?") == ["净息差"]


def test_the_glossary_repeats_no_synonym_group() -> None:
    grouped = {term for group in SYNONYM_GROUPS for term in group}
    bridged = lexicon.groups("glossary_en_zh.txt")
    assert all(group[0] not in grouped for group in bridged)
    assert all(len(group) >= 2 and not group[0].isascii() for group in bridged)
    assert all(name.isascii() for group in bridged for name in group[1:])


def test_keyword_search_reads_the_bridged_words_and_nothing_else_changes() -> None:
    english = analyse_query("What was the cost-to-income ratio in 2024?")
    assert {"成本", "收入", "本收", "入比"} <= set(english.bridged_tokens)
    assert not {"成本", "收入"} & set(english.index_tokens)  # the other signals read as written
    assert {"成本", "收入"} <= english.terms.words  # the answerer's terms hold them
    chinese = analyse_query("2024年成本收入比是多少？")
    assert chinese.bridged_tokens == ()
