"""The prompt inspector's words (ui/render_prompt.py, issue 26): every part of the prompt, its
kind, the messages' roles and the budget chart's labels and fields read in the UI's language; a
source reads by its number, title and type, its chunk id kept in a column of its own; a long
label wraps beside its bar rather than being cut, whole in the tooltip."""

from __future__ import annotations

import re

from rag_app.models import Chunk, Hit
from rag_app.prompt import PromptSettings, Turn, build_prompt
from rag_app.text.tokens import get_token_counter
from rag_app.understand.analysis import analyse_query
from ui.render_prompt import (
    LABEL_UNITS,
    budget_chart_rows,
    budget_chart_spec,
    display_units,
    role_label,
    section_label,
    sections_frame,
    wrap_label,
)

CJK = re.compile(r"[\u4e00-\u9fff]")


def _report():  # type: ignore[no-untyped-def]
    rows = "".join(f"<tr><td>产线{i}</td><td>{i}</td></tr>" for i in range(200))
    table = Chunk(
        "smic#table9",
        "smic",
        "table",
        "x",
        "x",
        (1,),
        table_html=f"<table>{rows}</table>",
        header_rows=1,
        caption="表9：中芯国际产线一览",
    )
    text = Chunk("smic:0007", "smic", "text", "产线1的产能为1万片。" * 80, "x", (2,))
    figure = Chunk("smic:0009", "smic", "image", "营收", "x", (3,), caption="图1：中芯国际年度营收")
    hits = [Hit(table, 0.9), Hit(text, 0.8), Hit(figure, 0.7)]
    return build_prompt(
        analyse_query("产线1的产能是多少？"),
        hits,
        [Turn("之前的问题", "之前的回答")],
        counter=get_token_counter(),
        settings=PromptSettings(context_budget=400, history_budget=300),
    ).report


def test_every_part_of_the_prompt_reads_in_the_users_language(lang: str) -> None:
    report = _report()
    labels = [section_label(s, {}) for s in report.sections]
    zh = lang == "zh"
    for section, label in zip(report.sections, labels, strict=True):
        assert section.chunk_id == "" or section.chunk_id not in label  # no raw ids
        if section.kind == "source":
            head = ("[来源 " if zh else "[Source ") if section.source else "✗"
            assert label.startswith(head), label
        elif zh:
            assert not re.search(r"[A-Za-z]{3,}", label), label  # no English word left
        else:
            assert not CJK.search(label), label
    first = next(s for s in report.sections if s.kind == "source" and s.source)
    assert section_label(first, {}) == (
        "[来源 1] 表9：中芯国际产线一览（表格）"
        if zh
        else "[Source 1] 表9：中芯国际产线一览 (Table)"
    )
    assert section_label(first, {}, details=False).endswith("产线一览")
    assert ("历史对话 第 1/1 轮" if zh else "History turn 1/1") in labels
    frame = sections_frame(report)
    kinds = set(frame.iloc[:, 1])
    assert kinds >= ({"系统", "要求", "来源", "问题"} if zh else {"System", "Source", "Question"})
    assert "smic#table9" in list(frame.iloc[:, -1])  # the id, for developers, in its column
    assert role_label("assistant") == ("助手" if zh else "assistant")


def test_the_budget_chart_wraps_long_labels_and_names_its_fields(lang: str) -> None:
    name = "05 [来源 3] 表2：中芯国际分应用领域季度营收占比及同比变化情况一览（2023Q1-2024Q4）"
    lines = wrap_label(name)
    assert "".join(lines).replace(" ", "") == name.replace(" ", "")  # nothing left out
    assert len(lines) == 2 and all(display_units(line) <= LABEL_UNITS for line in lines)
    assert "…" not in "".join(lines)  # whole, on two lines
    report = _report()
    names = [f"{i:02d} " + section_label(s, {}) for i, s in enumerate(report.sections)]
    labels = ["\n".join(wrap_label(n)) for n in names]
    rows = budget_chart_rows(report.sections, labels, names)
    assert {r["name"] for r in rows} == set(names)  # the tooltip's text is whole
    spec = budget_chart_spec(labels)
    encoding = spec["encoding"]
    assert encoding["y"]["axis"]["labelExpr"] == "split(datum.label, '\\n')"
    titles = [f["title"] for f in encoding["tooltip"]] + [encoding["x"]["title"]]
    if lang == "zh":
        assert titles == ["部分", "已发送/未发送", "token 数", "token 数"]
    else:
        assert titles == ["Section", "Sent / not sent", "tokens", "tokens"]
