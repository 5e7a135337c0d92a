"""The question's analysis: every field is what the words room's own reader gives, read once (the
costly ones when a stage first asks), and a follow-up carries how it was made standalone."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rag_app.models import Understood
from rag_app.text.analyzer import question_terms
from rag_app.text.aspects import question_aspects
from rag_app.text.language import cjk_share, detect_language
from rag_app.text.names import leading_name
from rag_app.text.phrasing import asks_about_figure, content_references
from rag_app.text.spans import spans
from rag_app.understand import analysis as analysis_module
from rag_app.understand.analysis import analyse_query

QUESTIONS = (
    "中芯国际2026年预测市盈率是多少？",
    "请列出表6 中芯国际产线一览表",
    "图3显示的营收趋势如何？",
    "中芯国际和华虹半导体2025年的毛利率分别是多少？",
    "According to the revenue chart (Figure 1), what was revenue in 2021?",
    "What is CATL's revenue in Table 2?",
    "SMIC 2024年 revenue growth",
    "2024",
)
SUBJECTS = ("中芯国际", "华虹半导体")


@pytest.mark.parametrize("question", QUESTIONS)
def test_each_field_is_what_the_words_room_reads(question: str) -> None:
    analysis = analyse_query(question)
    assert analysis.text == analysis.asked == question
    assert analysis.understood == Understood(question)
    assert analysis.references == tuple(content_references(question).items())
    assert analysis.reference("image") == content_references(question).get("image", "")
    assert analysis.reference("table") == content_references(question).get("table", "")
    assert analysis.asks_about_figure == asks_about_figure(question)
    assert analysis.cjk_share == cjk_share(question)
    assert analysis.language == detect_language(question)
    for share in (0.0, 0.3, 0.5, 0.7, 1.0):
        assert analysis.language_at(share) == detect_language(question, share)
    assert analysis.name == leading_name(question)
    for subjects in ((), SUBJECTS):
        assert analysis.spans(subjects) == tuple(spans(question, subjects))
        assert analysis.aspects(subjects) == question_aspects(question, subjects)


def test_the_references_a_question_makes() -> None:
    analysis = analyse_query("表2和图3说明了什么？")
    assert analysis.references == (("table", "表2"), ("image", "图3"))
    assert analysis.asks_about_figure
    plain = analyse_query("中芯国际的毛利率是多少？")
    assert plain.references == () and plain.reference("image") == ""
    assert not plain.asks_about_figure


def test_a_follow_up_is_analysed_as_made_standalone() -> None:
    meant = Understood(
        "中芯国际2026年的毛利率预测是多少？", "carried", ("period 2025年 -> 2026年",)
    )
    analysis = analyse_query("那2026年呢？", meant)
    assert analysis.asked == "那2026年呢？" and analysis.understood == meant
    assert analysis.text == meant.text
    assert analysis.terms == question_terms(meant.text)
    assert analysis.name == "中芯国际"
    assert [s.text for s in analysis.spans() if s.kind == "metric"] == ["毛利率"]


def test_names_and_spans_are_read_when_first_asked_for_then_kept(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    read: list[str] = []

    def counted(question: str) -> str:
        read.append(question)
        return leading_name(question)

    monkeypatch.setattr(analysis_module, "leading_name", counted)
    analysis = analyse_query("中芯国际2026年预测市盈率是多少？")
    assert read == []  # the hot path does not pay for it
    assert analysis.name == analysis.name == "中芯国际"
    assert read == ["中芯国际2026年预测市盈率是多少？"]
    assert analysis.spans(SUBJECTS) is analysis.spans(list(SUBJECTS))
    # what is kept is no part of the analysis' value
    assert analysis == analyse_query("中芯国际2026年预测市盈率是多少？")
    assert hash(analysis) == hash(analyse_query("中芯国际2026年预测市盈率是多少？"))


def test_no_stage_takes_an_optional_analysis_or_the_raw_question_instead() -> None:
    # The stages read the question through its analysis, handed down by the pipeline.
    package = Path(analysis_module.__file__).resolve().parents[1]
    pattern = re.compile(r"QueryAnalysis \| None|str \| QueryAnalysis|QueryAnalysis \| str")
    found = [
        f"{path.relative_to(package)}:{n}"
        for path in sorted(package.rglob("*.py"))
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if pattern.search(line)
    ]
    assert found == []


def test_a_counted_quarter_is_no_metrics_modifier() -> None:
    """季度 widens a metric (单季度营业收入) unless a numeral counts it: 三季度 is a period's."""
    metric = [s.text for s in spans("海星速运三季度营业收入是多少？") if s.kind == "metric"]
    assert metric == ["营业收入"]
    metric = [s.text for s in spans("海星速运单季度营业收入是多少？") if s.kind == "metric"]
    assert metric == ["单季度营业收入"]
