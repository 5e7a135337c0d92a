"""The analyzer: one jieba set-up, the index's tokens, match terms, stemming, periods."""

from __future__ import annotations

import re

from rag_app.text import lexicon
from rag_app.text.analyzer import (
    cjk_bigrams,
    cut,
    index_tokens,
    loose_pairs,
    match_terms,
    question_terms,
    stem,
    tagged,
)
from rag_app.text.periods import period_tokens
from rag_app.understand.analysis import analyse_query
from tests.conftest import REPO_ROOT


def test_finance_terms_are_whole_words_whatever_ran_first() -> None:
    # jieba's bundled dictionary cuts 归母净利润; the finance dictionary keeps it whole, for the
    # match terms as for the index (they once used two differently set-up jiebas).
    assert "归母净利润" in match_terms("2025年归母净利润是多少")[0]
    assert "归母净利润" in index_tokens("2025年归母净利润是多少")
    assert "归母净利润" in cut("归母净利润增长")


def test_index_tokens_add_bigrams_years_and_periods() -> None:
    tokens = index_tokens("2024E营业收入")
    assert {"2024e", "2024", "2024fy", "营业", "收入"} <= set(tokens)
    assert "2024q2" in index_tokens("2024年第二季度的毛利率")
    assert "的" not in index_tokens("公司的毛利率")


def test_one_stemmer_for_plurals() -> None:
    assert [stem(w) for w in ("revenues", "companies", "gross", "rsus", "margin")] == [
        "revenue",
        "company",
        "gross",
        "rsu",
        "margin",
    ]
    words, _ = match_terms("What were the revenues of the companies?")
    assert {"revenue", "company"} <= words
    assert "what" not in words


def test_bigrams_skip_function_characters() -> None:
    assert cjk_bigrams("中芯国际的产能") == {"中芯", "芯国", "国际", "产能"}


def test_question_terms_meet_across_languages() -> None:
    terms = question_terms("What is SMIC's P/E for 2026?")
    assert "市盈率" in terms.words
    assert "2026" in terms.words
    assert "市盈率" in terms.synonyms


def test_period_tokens_read_every_way_of_writing_a_quarter() -> None:
    assert period_tokens("2024年二季度 vs Q3 2023 vs 1Q24") == ["2024q2", "2023q3", "2024q1"]


def test_query_analysis_reads_the_question_once_for_every_stage() -> None:
    analysis = analyse_query("中芯国际的产线有哪些？")
    assert analysis.language == "zh"
    assert analysis.asks_for_list and not analysis.asks_for_superlative
    assert "产线" in analysis.terms.words
    assert "生产线" in analysis.synonyms
    assert not analyse_query("哪家公司的毛利率最高？").asks_for_list
    assert analyse_query("Which segment grew the most?").language == "en"


def test_every_word_list_says_where_it_comes_from() -> None:
    files = sorted(lexicon.DATA_DIR.glob("*.txt"))
    # the lists checked are the lists the code reads: none unread, none missing
    read = {
        name
        for source in (REPO_ROOT / "rag_app").rglob("*.py")
        for name in re.findall(
            r'\b(?:word_set|entries|char_set|groups|keyed_groups)\("([\w.]+)"\)',
            source.read_text(encoding="utf-8"),
        )
    }
    assert {path.name for path in files} == read
    for path in files:
        first = path.read_text(encoding="utf-8").splitlines()[0]
        assert first.startswith("# ") and len(first) > 30, path.name


def test_acronym_plurals_meet_their_possessive() -> None:
    # tatqa_dev: "unrecognized compensation cost related to non-vested RSUs" must find a
    # sentence about "RSU's activity"; the stem is also looked for as a prefix in raw text.
    words, _ = match_terms("non-vested RSUs")
    assert "rsu" in words
    assert "rsu" in match_terms("The following table summarizes RSU’s activity")[0]


def test_two_characters_jieba_leaves_alone_side_by_side_are_a_word_it_lacks() -> None:
    # 占比 is cut 占 / 比: the offline answer weighs it as a word, not as a bigram only, or
    # sentences sharing only 收入 and 消费电子 outscore the one giving the share
    assert "占比" in loose_pairs("中芯国际2024年消费电子收入占比是多少？")
    assert "比是" not in loose_pairs("收入占比是多少")  # a function character is no part of one
    # a word of two that a passage writes inside a longer one: "的市占率" is cut 的 / 市 / 占率
    assert "占率" in loose_pairs("中芯国际的市占率是多少？")
    # a label's words stay as matched before: 本年累计 is named by 累计 (本 / 年 no word of it)
    assert match_terms("本年累计")[0] == {"累计"}


def test_words_are_tagged_as_cut_where_posseg_splits_a_noun() -> None:
    # posseg's own model splits 营收 into 营 n + 收 v, so a question's content word was 营 alone
    assert ("营收", "n") in tagged("台积电2024年营收是多少？")
    # a preposition and a direction are not joined into a word (比上 of 比上年末)
    assert [w for w, _ in tagged("比上年末下降了多少？")][:2] == ["比", "上"]
