"""The Audit page's words and open record (ui/audit_table.py), without a model or a library:
every name the log stores worded in the UI's language, a provider's error in that language
only, columns as wide as their longest text, and an opened record showing its answer, the
question as understood, each citation's verdict and the flagged sentences (AppTest, drawn from
the record alone)."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from streamlit.testing.v1 import AppTest

from tests.ui.audit_support import (
    MEANT,
    OFF_QUESTION,
    ON_QUESTION,
    answered_record,
)
from ui.audit_table import _text_px, column_config, rows, timings_line

CJK = re.compile(r"[\u4e00-\u9fff]")


def test_the_table_words_the_logs_names_and_its_error_in_the_uis_language(lang: str) -> None:
    """Was English in the Chinese UI (smart, app) and both languages in the error column, Chinese
    first in the English UI; and 0 flagged sentences for an answer off the question."""
    row = rows([answered_record()]).iloc[0]
    if lang == "zh":
        assert (row["模式"], row["来源"], row["理解为"]) == ("智能", "网页", MEANT)
        # worded, without the exception's class (issue 26)
        assert row["错误"] == "无法连接大模型服务"
        assert "Could not" not in row["错误"]
        assert row["存疑句"] == 1  # the sentence about 2025, as the Ask page marks it
    else:
        assert (row["Mode"], row["Client"]) == ("Smart", "Web app")
        assert row["Error"] == "Could not connect to the language model service"
        assert not CJK.search(row["Error"])
        assert row["Flagged"] == 1


def test_the_timings_line_names_every_stage(lang: str) -> None:
    line = timings_line(answered_record().timings)
    assert line == (
        "理解 1 ms · 检索 98 ms · 引用核查 16 ms · 总计 208 ms"
        if lang == "zh"
        else "understand 1 ms · retrieve 98 ms · citations 16 ms · total 208 ms"
    )


def test_columns_are_as_wide_as_their_longest_text(lang: str) -> None:
    """Was: the grid sized columns by their first rows, so a follow-up's 理解为 further down
    showed "中芯国际" and the error was cut mid-word, with no way to read either whole."""
    plain = replace(answered_record(), standalone_question=answered_record().question, error="")
    table = rows([plain] * 6 + [answered_record()])
    config = column_config(table)
    understood, error = table.columns[6], table.columns[-1]
    assert config[understood]["width"] >= _text_px(MEANT)
    assert config[error]["width"] >= min(480, _text_px(table[error].iloc[-1]))
    assert config[understood]["help"] and config[error]["help"]  # where the whole text is


def _record_page(record):  # type: ignore[no-untyped-def]  # AppTest runs its source alone
    from ui.audit_table import render_record

    render_record(record)


def _open(record: Any, lang: str) -> AppTest:
    at = AppTest.from_function(_record_page, args=(record,), default_timeout=30)
    at.session_state["lang"] = lang
    at.run()
    assert not at.exception, at.exception
    return at


def _shown(at: AppTest) -> str:
    parts = [m.value for m in at.markdown] + [c.value for c in at.caption]
    return "\n".join([*parts, *(w.value for w in at.warning)])


def test_an_opened_record_shows_its_answer_and_each_citations_verdict(lang: str) -> None:
    """Was: the question, an error box, the hits and a raw timings line only."""
    at = _open(answered_record(), lang)
    shown = _shown(at)
    zh = lang == "zh"
    assert ("理解为：" if zh else "Understood as: ") + MEANT in shown
    assert ("回答" if zh else "Answer") in shown
    marker = "\\[来源 1\\]" if zh else "\\[Source 1\\]"
    assert "106.2倍" in shown and marker in shown  # the answer, its citations, worded
    assert ("引用核查" if zh else "Citation check") in shown
    assert ("2/2 有来源支持" if zh else "2/2 supported") in shown
    assert ("1/2 切题" if zh else "1/2 about the question") in shown
    assert f"✅ {ON_QUESTION}" in shown and f"⚠️ {OFF_QUESTION}" in shown  # per sentence
    assert ("存疑句（1）" if zh else "Flagged sentences (1)") in shown
    off = "此句与问题不符：2025年，问题问的是2026年" if zh else "Not about the question: 2025年"
    assert off in shown
    warning = at.warning[0].value
    assert ("无法连接大模型服务" if zh else "Could not connect") in warning
    assert ("Could not" not in warning) if zh else not CJK.search(warning.split("(")[0])
    hits = at.dataframe[0].value
    assert list(hits.columns)[1] == ("片段" if zh else "Chunk")
    assert list(hits.iloc[:, 3]) == (["表格", "文本"] if zh else ["Table", "Text"])
    assert list(hits.iloc[:, 5]) == (["语义", "关键词"] if zh else ["semantic", "keyword"])
    assert ("[来源 1]" if zh else "[Source 1]") in list(hits.iloc[:, 6])
    assert "understand_ms" not in shown and "total_ms" not in shown


def test_a_record_from_before_answers_were_kept_shows_what_it_has(lang: str) -> None:
    old = replace(
        answered_record(),
        answer="",
        understood=None,
        sentences=(),
        sources=(),
        checked=False,
        relevance_checked=False,
    )
    shown = _shown(_open(old, lang))
    assert MEANT in shown  # the understood question, from the standalone one
    assert ("1/2 切题" if lang == "zh" else "1/2 about the question") not in shown  # no check
    assert OFF_QUESTION in shown  # its off-question sentence, from the old field
