"""Prompt building: golden prompts, budget edge cases, sub-table merge, templates.

Golden files live in tests/golden/prompt/; run with UPDATE_GOLDEN=1 to rewrite them, then read
the diff as you would read a prompt before sending it.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import pytest

from rag_app.models import Chunk, Hit
from rag_app.prompt import (
    NOT_FOUND,
    PromptSettings,
    Turn,
    build_prompt,
    fit_to_budget,
    get_template,
    merge_subtables,
    turns_from_messages,
)
from rag_app.prompt.format import SEPARATOR
from rag_app.text.language import detect_language
from rag_app.text.table_rows import split_rows, table_shape
from rag_app.text.tokens import TiktokenCounter, get_token_counter
from rag_app.understand.analysis import analyse_query

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "prompt"
DOC_NAMES = {"smic": "中芯国际深度报告.pdf", "industry": "半导体行业周报.pdf"}


@pytest.fixture(scope="module")
def counter() -> TiktokenCounter:
    result = get_token_counter()
    assert isinstance(result, TiktokenCounter)
    return result


def assert_golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("UPDATE_GOLDEN") == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return
    assert path.exists(), f"{path} is missing: run with UPDATE_GOLDEN=1 and review it"
    assert text == path.read_text(encoding="utf-8"), f"{name} changed (UPDATE_GOLDEN=1 to accept)"


# --- fixtures: chunks as the ingest stage writes them ---------------------------------------


def text_chunk(chunk_id: str, text: str, *, doc: str = "smic", page: int = 1, **kw) -> Chunk:
    return Chunk(chunk_id, doc, "text", text, text, (1,), pages=(page,), **kw)


def table_html(rows: list[list[str]], header: list[str] | None = None) -> str:
    body = ""
    if header:
        body += "<tr>" + "".join(f"<td>{c}</td>" for c in header) + "</tr>"
    body += "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><tbody>{body}</tbody></table>"


LINE_HEADER = ["序号", "公司", "类型", "地点", "产能（千片/月）", "备注", "工艺节点"]
LINE_ROWS = [
    ["1", "中芯上海", "FAB", "上海", "135", "8英寸", "0.35μm-90nm"],
    ["2", "中芯北方", "FAB", "北京", "62", "12英寸，合资", "65nm-24nm"],
    ["3", "中芯南方", "FAB", "上海", "13.5", "注册资本65亿美元", "14nmFinFET"],
    ["4", "中芯东方", "FAB", "上海", "10", "在建", "65nm-24nm"],
]

TEXT_LAYOUT = text_chunk(
    "smic-t12",
    "公司在上海、北京、天津、深圳拥有多座8英寸和12英寸晶圆厂。截至2023年末，公司月产能"
    "折合8英寸约80.6万片，全年平均产能利用率为75%。",
    page=12,
    heading_path=("三、公司分析", "3.2 产能布局"),
)
TEXT_FINANCE = text_chunk(
    "smic-t08",
    "2023年公司实现营业收入452.5亿元，同比下降8.6%；归母净利润48.2亿元，同比下降50.4%。",
    page=8,
    heading_path=("二、财务分析",),
)
TABLE_LINES = Chunk(
    "smic-tab13",
    "smic",
    "table",
    "表6：中芯国际产线一览",
    "表6：中芯国际产线一览",
    (40,),
    pages=(13,),
    heading_path=("三、公司分析", "3.2 产能布局"),
    table_html=table_html(LINE_ROWS, LINE_HEADER),
    caption="表6：中芯国际产线一览",
    footnote="资料来源：公司公告，上海证券研究所",
    context="公司目前在上海、北京、天津、深圳共有多条8英寸与12英寸产线，具体情况见下表。",
    n_rows=5,
    n_cols=7,
    header_rows=1,
)
IMAGE_CAPACITY = Chunk(
    "smic-img14",
    "smic",
    "image",
    "图3：中芯国际月产能（万片/月，折合8英寸）",
    "图3：中芯国际月产能",
    (45,),
    pages=(14,),
    caption="图3：中芯国际月产能（万片/月，折合8英寸）",
    description="柱状图：2019-2023年公司月产能由45.0万片增至80.6万片，逐年上升。",
    image_path="images/smic_capacity.jpg",
)


def mixed_hits() -> list[Hit]:
    # Deliberately not in score order: the budget takes them by score.
    return [
        Hit(IMAGE_CAPACITY, 0.55, rank=4, strategy="dense"),
        Hit(TEXT_FINANCE, 0.61, rank=3, strategy="bm25"),
        Hit(TABLE_LINES, 0.77, rank=2, strategy="dense"),
        Hit(TEXT_LAYOUT, 0.82, rank=1, strategy="dense"),
    ]


def golden_text(result) -> str:
    return result.render() + "\n=== report ===\n" + result.report.render() + "\n"


def check_report_adds_up(result, counter) -> None:
    report = result.report
    exact = 3 + sum(4 + counter.count(m["content"]) for m in result.messages)
    assert report.prompt_tokens == exact
    assert sum(s.tokens for s in report.sections) == report.total_tokens
    assert report.context_tokens == counter.count(result.context)
    assert report.context_tokens <= report.context_limit <= report.context_budget
    assert report.fits


# --- golden prompts --------------------------------------------------------------------------


def test_golden_chinese_text_table_image(counter):
    history = [
        Turn(
            "中芯国际2023年的营收是多少？",
            "2023年公司实现营业收入452.5亿元，同比下降8.6% [Source 2]。",
        )
    ]
    result = build_prompt(
        analyse_query("中芯国际的产线布局和产能利用率情况如何？"),
        mixed_hits(),
        history,
        counter=counter,
        doc_names=DOC_NAMES,
    )
    assert result.language == "zh" and result.mode == "advanced"
    assert [m["role"] for m in result.messages] == ["system", "user", "assistant", "user"]
    # Earlier answers lose their stale [Source N] markers.
    assert "[Source 2]" not in result.messages[2]["content"]
    # Grouped by type, numbered in that final order: text by score, then table, then figure.
    assert [s.hit.chunk.chunk_id for s in result.sources] == [
        "smic-t12",
        "smic-t08",
        "smic-tab13",
        "smic-img14",
    ]
    user = result.messages[-1]["content"]
    assert user.index("文本信息：") < user.index("表格数据：") < user.index("图片信息：")
    assert "[Source 3] (文件: 中芯国际深度报告.pdf, 页: 14)" in user
    assert (
        "表格结构: 5 行 7 列（含表头 1 行）" in user
        and "图片路径: images/smic_capacity.jpg" in user
    )
    assert NOT_FOUND["zh"] in user
    check_report_adds_up(result, counter)
    assert_golden("zh_text_table_image.txt", golden_text(result))


def test_golden_english_question(counter):
    result = build_prompt(
        analyse_query("What is SMIC's production line layout and capacity utilisation?"),
        mixed_hits(),
        counter=counter,
        doc_names=DOC_NAMES,
        settings=PromptSettings(mode="precise"),
    )
    assert result.language == "en"
    user = result.messages[-1]["content"]
    assert user.index("Text:") < user.index("Tables:") < user.index("Figures:")
    assert "[Source 1] (file: 中芯国际深度报告.pdf, page: 13)" in user
    assert "Table structure: 5 rows × 7 columns (incl. 1 header row)" in user
    assert NOT_FOUND["en"] in user and "Answer in English" in user
    check_report_adds_up(result, counter)
    assert_golden("en_question.txt", golden_text(result))


def test_golden_no_sources(counter):
    result = build_prompt(analyse_query("中芯国际的海外收入占比是多少？"), [], counter=counter)
    assert result.sources == () and result.context == ""
    assert [m["role"] for m in result.messages] == ["system", "user"]
    user = result.messages[-1]["content"]
    assert "（未检索到相关参考资料。）" in user and NOT_FOUND["zh"] in user
    assert not result.report.by_kind("source")
    check_report_adds_up(result, counter)
    assert_golden("zh_no_sources.txt", golden_text(result))


# --- budget edge cases -----------------------------------------------------------------------


def test_empty_retrieval_in_english(counter):
    result = build_prompt(
        analyse_query("What is SMIC's overseas revenue share?"), [], counter=counter
    )
    assert "(No sources were retrieved.)" in result.messages[-1]["content"]
    assert result.report.context_tokens == 0
    check_report_adds_up(result, counter)


def big_table(n_rows: int = 400) -> Chunk:
    rows = [
        [str(i), f"产线{i}", "FAB", "上海", str(10 + i % 90), "在建", "28nm"] for i in range(n_rows)
    ]
    html = table_html(rows, LINE_HEADER)
    return replace(
        TABLE_LINES,
        chunk_id="huge-table",
        table_html=html,
        n_rows=n_rows + 1,
        caption="表9：全部产线明细",
    )


def test_one_huge_table_is_cut_by_rows(counter):
    small_text = replace(TEXT_FINANCE, chunk_id="after")
    hits = [Hit(big_table(), 0.9), Hit(small_text, 0.5)]
    result = build_prompt(
        analyse_query("全部产线明细有哪些？"), hits, counter=counter, doc_names=DOC_NAMES
    )
    [table_section] = [s for s in result.report.by_kind("source") if s.chunk_id == "huge-table"]
    assert table_section.status == "cut"
    assert table_section.full_tokens > 3000 and "table rows kept" in table_section.reason
    assert result.report.context_tokens <= 3000
    assert result.report.context_tokens > 2800  # the table uses the budget, not a sliver of it
    [source] = [s for s in result.sources if s.hit.chunk.chunk_id == "huge-table"]
    assert source.status == "cut"
    # Still a well-formed (pipe) table that starts with its header, and the model is told it
    # is cut.
    pipe = [line for line in source.text.splitlines() if line.startswith("|")]
    assert pipe[0].startswith("| 序号 |") and pipe[1].startswith("|---|")
    assert all(line.count("|") == 8 for line in pipe)  # 7 columns in every row
    rows = len(pipe) - 1  # header + data rows, as the note counts them
    assert 20 < rows < 401
    assert f"仅列出前 {rows} 行，共 401 行" in source.text
    # Nothing fits after it.
    [after] = [s for s in result.report.by_kind("source") if s.chunk_id == "after"]
    assert after.status == "dropped" and after.tokens == 0
    check_report_adds_up(result, counter)


def test_huge_table_cut_by_rows_in_html_form(counter):
    settings = PromptSettings(table_format="html")
    result = build_prompt(
        analyse_query("全部产线明细有哪些？"),
        [Hit(big_table(), 0.9)],
        counter=counter,
        doc_names=DOC_NAMES,
        settings=settings,
    )
    [source] = result.sources
    html = source.text[source.text.index("<table>") : source.text.index("</table>") + 8]
    rows, cols = table_shape(html)
    assert cols == 7 and 20 < rows < 401
    assert split_rows(html).rows[0].startswith("<tr><td>序号</td>")
    assert f"仅列出前 {rows} 行，共 401 行" in source.text


def test_markdown_table_takes_fewer_tokens_than_html(counter):
    hits = [Hit(big_table(), 0.9)]
    sizes = {}
    for form in ("markdown", "html"):
        settings = PromptSettings(table_format=form, context_budget=100_000, context_window=200_000)
        result = build_prompt(analyse_query("产线？"), hits, counter=counter, settings=settings)
        sizes[form] = result.report.context_tokens
    assert sizes["markdown"] < 0.8 * sizes["html"]


def test_long_first_text_is_cut_not_dropped(counter):
    long_text = replace(TEXT_LAYOUT, chunk_id="long", text="公司产能持续扩张。" * 800)
    settings = PromptSettings(context_budget=500)
    result = build_prompt(
        analyse_query("产能如何？"), [Hit(long_text, 0.9)], counter=counter, settings=settings
    )
    [section] = result.report.by_kind("source")
    assert section.status == "cut" and section.source == 1
    assert 480 < result.report.context_tokens <= 500
    assert result.sources[0].text.endswith("……（内容过长，以下已截断）")
    check_report_adds_up(result, counter)


def test_a_source_that_does_not_fit_is_skipped_and_smaller_ones_still_enter(counter):
    medium = replace(TEXT_LAYOUT, chunk_id="medium", text="产能利用率回升。" * 120)
    hits = [Hit(TEXT_FINANCE, 0.9), Hit(medium, 0.8), Hit(IMAGE_CAPACITY, 0.7)]
    settings = PromptSettings(context_budget=400, excerpts=False)
    result = build_prompt(analyse_query("产能如何？"), hits, counter=counter, settings=settings)
    status = {s.chunk_id: s.status for s in result.report.by_kind("source")}
    assert status == {"smic-t08": "kept", "medium": "dropped", "smic-img14": "kept"}
    dropped = next(s for s in result.report.sections if s.chunk_id == "medium")
    assert "left of 400" in dropped.reason
    assert [s.number for s in result.sources] == [1, 2]


def test_long_history_drops_oldest_turns_first(counter):
    history = [
        Turn(
            f"第{i}个问题：中芯国际第{i}季度的毛利率是多少？", f"第{i}季度毛利率为{20 + i}%。" * 12
        )
        for i in range(1, 11)
    ]
    result = build_prompt(
        analyse_query("那净利率呢？"), [Hit(TEXT_FINANCE, 0.8)], history, counter=counter
    )
    sections = result.report.by_kind("history")
    assert [s.name for s in sections] == [f"history turn {i}/10" for i in range(1, 11)]
    statuses = [s.status for s in sections]
    kept = [i for i, s in enumerate(statuses, start=1) if s == "kept"]
    # The kept turns are the newest ones, contiguous, and within the history budget.
    assert kept and kept == list(range(11 - len(kept), 11))
    assert len(kept) < 6  # the 800-token budget binds before max_history_turns
    assert all(s == "dropped" for s in statuses[: 10 - len(kept)])
    assert sections[0].reason == "older than the last 6 turns"
    assert "did not fit" in sections[10 - len(kept) - 2].reason
    assert result.report.history_tokens <= 800
    # Messages keep chronological order: oldest kept turn first, the new question last.
    users = [m["content"] for m in result.messages if m["role"] == "user"]
    assert users[0].startswith(f"第{kept[0]}个问题") and users[-2].startswith("第10个问题")
    check_report_adds_up(result, counter)


def test_max_history_turns_limits_even_short_turns(counter):
    history = [Turn(f"问题{i}", f"回答{i}") for i in range(10)]
    settings = PromptSettings(max_history_turns=3)
    result = build_prompt(
        analyse_query("还有呢？"), [], history, settings=settings, counter=counter
    )
    assert [m["content"] for m in result.messages if m["role"] == "assistant"] == [
        "回答7",
        "回答8",
        "回答9",
    ]


def test_newest_turn_too_long_is_cut_not_dropped(counter):
    history = [Turn("上一个问题", "短回答"), Turn("介绍一下公司", "公司是晶圆代工龙头。" * 400)]
    result = build_prompt(analyse_query("继续"), [], history, counter=counter)
    sections = result.report.by_kind("history")
    assert [s.status for s in sections] == ["dropped", "cut"]
    assert result.messages[2]["content"].endswith("……（内容过长，以下已截断）")
    assert result.report.history_tokens <= 800


def test_small_window_shrinks_the_context_limit(counter):
    settings = PromptSettings(context_window=2200, answer_reserve=1024)
    result = build_prompt(
        analyse_query("产线布局？"), mixed_hits(), counter=counter, settings=settings
    )
    assert result.report.context_limit < 3000
    assert result.report.total_tokens <= 2200
    check_report_adds_up(result, counter)


def test_window_too_small_for_the_instructions_raises(counter):
    with pytest.raises(ValueError, match="no room for the question"):
        build_prompt(
            analyse_query("产线？"),
            [],
            counter=counter,
            settings=PromptSettings(context_window=1100),
        )


def test_duplicate_hits_enter_once(counter):
    hits = [Hit(TEXT_FINANCE, 0.9), Hit(TEXT_FINANCE, 0.4)]
    result = build_prompt(analyse_query("营收？"), hits, counter=counter)
    assert len(result.sources) == 1
    statuses = [s.status for s in result.report.by_kind("source")]
    assert statuses == ["kept", "dropped"]


INTRO = text_chunk("smic-t13", TABLE_LINES.context, page=13, heading_path=("三、公司分析",))


@pytest.mark.parametrize("order", ["paragraph first", "table first"])
def test_a_tables_introduction_is_shown_once(counter, order):
    """The paragraph that introduces a table is in the table block (表格上下文) unless it is a
    source of its own; whichever of the two enters first, it appears once and the tokens saved
    stay free for other sources."""
    scores = (0.9, 0.8) if order == "paragraph first" else (0.8, 0.9)
    hits = [Hit(INTRO, scores[0]), Hit(TABLE_LINES, scores[1])]
    result = build_prompt(analyse_query("中芯国际有哪些产线？"), hits, counter=counter)
    assert len(result.sources) == 2
    assert result.context.count(TABLE_LINES.context) == 1
    assert "表格上下文" not in result.context
    alone = build_prompt(
        analyse_query("中芯国际有哪些产线？"), [Hit(TABLE_LINES, 0.9)], counter=counter
    )
    assert f"表格上下文: {TABLE_LINES.context}" in alone.context.replace("：", ": ")
    with_both = counter.count(result.context)
    assert with_both < counter.count(alone.context) + counter.count(INTRO.text) + 40


# --- sub-tables ------------------------------------------------------------------------------


def subtables(count: int = 3) -> list[Chunk]:
    """Table 6 split by rows as ingest does it: each part repeats the header row."""
    per_part = [LINE_ROWS[i::count] for i in range(count)]
    ordered = [row for part in per_part for row in part]
    ordered.sort(key=lambda row: int(row[0]))
    chunks, start = [], 0
    sizes = [len(p) for p in per_part]
    for index, size in enumerate(sizes, start=1):
        rows = ordered[start : start + size]
        start += size
        chunks.append(
            replace(
                TABLE_LINES,
                chunk_id=f"smic-tab13-part{index}",
                table_html=table_html(rows, LINE_HEADER),
                n_rows=size + 1,
                pages=(13,) if index < count else (14,),
                footnote="资料来源：公司公告，上海证券研究所" if index == count else "",
                parent_table_id="smic-tab13",
                subtable_index=index,
                subtable_count=count,
            )
        )
    return chunks


def test_subtables_merge_into_one_block(counter):
    parts = subtables(3)
    hits = [Hit(parts[2], 0.5), Hit(TEXT_FINANCE, 0.6), Hit(parts[0], 0.8), Hit(parts[1], 0.7)]
    result = build_prompt(analyse_query("产线一览？"), hits, counter=counter, doc_names=DOC_NAMES)
    tables = [s for s in result.sources if s.hit.chunk.type == "table"]
    assert len(tables) == 1
    [table] = tables
    assert [h.chunk.subtable_index for h in table.parts] == [1, 2, 3]
    assert table.hit.score == 0.8 and table.hit.chunk.chunk_id == "smic-tab13"
    html = table.hit.chunk.table_html
    assert html == TABLE_LINES.table_html  # header once, rows back in order
    assert html.count("序号") == 1
    assert "(文件: 中芯国际深度报告.pdf, 页: 14-15)" in table.text
    assert "子表信息: 由原表全部 3 个子表合并而成，是完整表格" in table.text
    assert "\n资料来源：公司公告，上海证券研究所\n" in table.text
    [section] = [s for s in result.report.by_kind("source") if s.chunk_id == "smic-tab13"]
    assert "sub-tables 1+2+3 merged" in section.name and section.status == "kept"
    check_report_adds_up(result, counter)


def test_partial_subtables_say_what_is_missing(counter):
    parts = subtables(3)
    candidates, _ = merge_subtables([Hit(parts[0], 0.8), Hit(parts[2], 0.7)])
    [candidate] = candidates
    rows = split_rows(candidate.chunk.table_html).rows
    assert len(rows) == 1 + 2 + 1  # header, part 1's two rows, part 3's row
    result = build_prompt(
        analyse_query("产线？"), [Hit(parts[2], 0.7), Hit(parts[0], 0.8)], counter=counter
    )
    assert "由原表（共 3 个子表）的第 1、3 个子表合并而成；第 2 个子表未检索到" in result.context
    alone = build_prompt(analyse_query("产线？"), [Hit(parts[1], 0.7)], counter=counter)
    assert "这是原表（共 3 个子表）的第 2 个子表，其余子表未检索到" in alone.context


def test_subtables_of_different_documents_stay_apart():
    parts = subtables(2)
    other = replace(parts[1], doc_id="industry", chunk_id="other-part2")
    candidates, _ = merge_subtables([Hit(parts[0], 0.9), Hit(other, 0.8)])
    assert [(c.chunk.chunk_id, c.chunk.doc_id) for c in candidates] == [
        ("smic-tab13-part1", "smic"),
        ("other-part2", "industry"),
    ]


# --- templates, language, settings ----------------------------------------------------------


@pytest.mark.parametrize("mode", ["simple", "advanced", "precise"])
@pytest.mark.parametrize("language", ["zh", "en"])
def test_every_mode_asks_for_citations_and_the_not_found_answer(mode, language, counter):
    question = "产能利用率是多少？" if language == "zh" else "What is the utilisation rate?"
    result = build_prompt(
        analyse_query(question), mixed_hits(), counter=counter, settings=PromptSettings(mode=mode)
    )
    user = result.messages[-1]["content"]
    assert "[Source N]" in user and NOT_FOUND[language] in user
    assert result.messages[0]["content"] == get_template(mode, language).system
    assert result.mode == mode and result.language == language


def test_custom_system_prompt_replaces_the_role_but_keeps_the_rules(counter):
    settings = PromptSettings(system_prompt="你是券商研究所的资深分析师。")
    result = build_prompt(analyse_query("产能？"), mixed_hits(), counter=counter, settings=settings)
    assert result.messages[0]["content"] == "你是券商研究所的资深分析师。"
    assert "[Source N]" in result.messages[-1]["content"]


def test_language_override(counter):
    result = build_prompt(
        analyse_query("产能？"), [], counter=counter, settings=PromptSettings(language="en")
    )
    assert result.language == "en" and "Sources:" in result.messages[-1]["content"]


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("中芯国际2023年营收是多少？", "zh"),
        ("What is SMIC's revenue in 2023?", "en"),
        ("SMIC 的 capex 计划", "zh"),
        ("What does 中芯国际 say about capex?", "en"),
        ("2023？", "zh"),
    ],
)
def test_detect_language(question, expected):
    assert detect_language(question) == expected


def test_settings_are_validated():
    with pytest.raises(ValueError):
        PromptSettings(mode="fancy")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        PromptSettings(context_budget=0)
    defaults = PromptSettings()
    assert (defaults.context_budget, defaults.answer_reserve, defaults.history_budget) == (
        3000,
        1024,
        800,
    )
    assert (defaults.max_history_turns, defaults.mode, defaults.system_prompt) == (
        6,
        "advanced",
        None,
    )


def test_empty_question_is_rejected(counter):
    with pytest.raises(ValueError):
        build_prompt(analyse_query("   "), [], counter=counter)


def test_turns_from_messages():
    messages = [
        {"role": "system", "content": "x"},
        {"role": "user", "content": "q1"},
        {"role": "assistant", "content": "a1"},
        {"role": "user", "content": "q2"},
    ]
    assert turns_from_messages(messages) == [Turn("q1", "a1"), Turn("q2", "")]


def test_qa_examples_get_their_own_group_after_figures(counter):
    qa = Chunk("qa-1", "smic", "qa", "问：产能利用率？\n答：75%。", "", (0,))
    result = build_prompt(
        analyse_query("产能利用率？"), [Hit(qa, 0.9), Hit(IMAGE_CAPACITY, 0.5)], counter=counter
    )
    assert result.context.index("图片信息：") < result.context.index("问答资料：")
    assert [s.hit.chunk.chunk_id for s in result.sources] == ["smic-img14", "qa-1"]
    assert "[Source 2] (文件: smic)" in result.context  # no page, no known file name


def test_fit_to_budget_alone_reports_every_section(counter):
    fitted = fit_to_budget(
        mixed_hits(), "产线布局？", [Turn("q", "a")], counter=counter, system="s", instructions="i"
    )
    kinds = [s.kind for s in fitted.sections]
    assert kinds[:2] == ["system", "instructions"] and kinds[-2:] == ["question", "reserve"]
    assert kinds.count("source") == 4 and kinds.count("history") == 1
    assert fitted.layout.text.count(SEPARATOR) == 1  # two text sources share one group


# --- question-focused excerpts ----------------------------------------------------------------

FORECAST_HEADER = ["指标", "2023A", "2024E", "2025E", "2026E"]
FORECAST_ROWS = [
    ["营业收入（亿元）", "452.5", "577.9", "675.3", "774.6"],
    ["归母净利润（亿元）", "48.2", "37.0", "45.6", "55.1"],
    ["毛利率（%）", "19.3", "18.6", "20.1", "21.5"],
    ["资本开支（亿元）", "538.0", "520.0", "500.0", "480.0"],
    ["每股收益（元）", "0.61", "0.47", "0.57", "0.69"],
    ["市盈率（倍）", "85.1", "110.4", "91.1", "75.3"],
    ["市净率（倍）", "3.6", "3.5", "3.3", "3.1"],
]


def forecast_table(chunk_id: str, doc: str) -> Chunk:
    return Chunk(
        chunk_id,
        doc,
        "table",
        "盈利预测",
        "盈利预测",
        (5,),
        pages=(2,),
        table_html=table_html(FORECAST_ROWS, FORECAST_HEADER),
        caption="盈利预测与估值",
        n_rows=8,
        n_cols=5,
        header_rows=1,
    )


def plain_table(chunk_id: str, header: list[str], rows: list[list[str]], **extra) -> Chunk:
    """A captionless table of ``rows`` under one ``header`` row (English report pages)."""
    return replace(
        forecast_table(chunk_id, "doc1"),
        table_html=table_html(rows, header),
        caption="",
        n_rows=len(rows) + 1,
        n_cols=len(header),
        **extra,
    )


def test_sources_after_the_best_become_excerpts_of_the_rows_the_question_names(counter):
    # Three look-alike forecast tables: the best is shown whole, the later ones only with the
    # header and the row the question asks about, so all three fit where two whole ones did.
    hits = [Hit(forecast_table(f"t{i}", f"doc{i}"), 0.9 - 0.1 * i) for i in range(3)]
    question = "2025年的毛利率预测是多少？"
    whole = build_prompt(
        analyse_query(question), hits, counter=counter, settings=PromptSettings(excerpts=False)
    ).report.context_tokens
    settings = PromptSettings(whole_sources=1, context_budget=whole)  # room for all three whole
    result = build_prompt(analyse_query(question), hits, counter=counter, settings=settings)
    status = {s.chunk_id: (s.status, s.reason) for s in result.report.by_kind("source")}
    assert status["t0"][0] == "kept"
    for chunk_id in ("t1", "t2"):
        assert status[chunk_id][0] == "cut"
        assert "excerpt: 1 of 7 table rows" in status[chunk_id][1]
    excerpt = result.sources[1].text
    assert "| 毛利率（%） | 19.3 | 18.6 | 20.1 | 21.5 |" in excerpt  # the row, under its header
    assert "| 指标 | 2023A | 2024E | 2025E | 2026E |" in excerpt
    assert "营业收入" not in excerpt and "市盈率" not in excerpt
    assert "（节选：与问题相关的 1 行，共 7 行）" in excerpt
    assert "营业收入" in result.sources[0].text  # the best source is whole
    assert result.report.context_tokens < whole
    check_report_adds_up(result, counter)


def test_a_source_too_long_whole_enters_as_an_excerpt_instead_of_being_dropped(counter):
    first = forecast_table("t0", "doc0")
    long_text = text_chunk(
        "long",
        "行业景气度持续回升。" * 40
        + "公司2025年资本开支计划为500亿元，主要投向12英寸产线。"
        + "下游需求仍需观察。" * 40,
    )
    question = "公司2025年资本开支计划是多少？"
    hits = [Hit(first, 0.9), Hit(long_text, 0.8)]
    # Whole-share limit off: the source is excerpted because it does not fit.
    settings = PromptSettings(context_budget=420, max_whole_share=1.0)
    result = build_prompt(analyse_query(question), hits, counter=counter, settings=settings)
    section = next(s for s in result.report.by_kind("source") if s.chunk_id == "long")
    [(number, excerpt)] = [
        (s.number, s.text) for s in result.sources if s.hit.chunk.chunk_id == "long"
    ]
    assert section.status == "cut" and section.source == number == 1  # text before tables
    assert section.reason.startswith("too long whole")
    assert "sentences that match the question" in section.reason
    assert "资本开支计划为500亿元" in excerpt
    assert "景气度" not in excerpt
    check_report_adds_up(result, counter)
    # With room for it whole, it is still excerpted: after the first source it would take over
    # a quarter of the budget.
    roomy = build_prompt(analyse_query(question), hits, counter=counter, settings=PromptSettings())
    section = next(s for s in roomy.report.by_kind("source") if s.chunk_id == "long")
    assert section.status == "cut" and section.reason.startswith("over 25% of the budget whole")
    assert "景气度" not in next(s.text for s in roomy.sources if s.hit.chunk.chunk_id == "long")


def test_a_source_sharing_no_word_with_the_question_is_not_excerpted(counter):
    first = forecast_table("t0", "doc0")
    unrelated = text_chunk("other", "行业景气度持续回升。" * 60)
    settings = PromptSettings(context_budget=300)
    result = build_prompt(
        analyse_query("毛利率是多少？"),
        [Hit(first, 0.9), Hit(unrelated, 0.8)],
        counter=counter,
        settings=settings,
    )
    section = next(s for s in result.report.by_kind("source") if s.chunk_id == "other")
    assert section.status == "dropped"


def test_english_excerpt_and_settings_bounds(counter):
    header = ["(In millions)", "2019", "2018"]
    rows = [
        ["Revenue", "125,843", "110,360"],
        ["Depreciation", "2,500", "2,600"],
        ["Net income", "39,240", "16,571"],
    ]
    chunk = plain_table("en", header, rows)
    hits = [Hit(TEXT_FINANCE, 0.9), Hit(chunk, 0.8)]
    question = "What was the depreciation in 2019?"
    # A table of three rows is shown whole: it costs little more than an excerpt
    small = build_prompt(
        analyse_query(question), hits, counter=counter, settings=PromptSettings(whole_sources=1)
    )
    assert "Revenue" in small.sources[-1].text and "Excerpt" not in small.sources[-1].text
    settings = PromptSettings(whole_sources=1, whole_table_rows=2)
    result = build_prompt(analyse_query(question), hits, counter=counter, settings=settings)
    excerpt = result.sources[-1].text
    assert "| Depreciation | 2,500 | 2,600 |" in excerpt and "Revenue" not in excerpt
    assert "(Excerpt: 1 of 3 rows, those related to the question.)" in excerpt
    # ... unless it does not fit whole: then it is excerpted rather than dropped
    room = small.report.context_tokens - 1
    tight = build_prompt(
        analyse_query(question),
        hits,
        counter=counter,
        settings=PromptSettings(whole_sources=1, context_budget=room),
    )
    assert "(Excerpt: 1 of 3 rows" in tight.sources[-1].text
    with pytest.raises(ValueError):
        PromptSettings(excerpt_units=0)
    with pytest.raises(ValueError):
        PromptSettings(excerpt_min_share=1.5)
    with pytest.raises(ValueError):
        PromptSettings(whole_table_rows=-1)


def _excerpted(question: str, chunk: Chunk, counter) -> str:
    """The text ``chunk`` is shown as when it comes after one whole source."""
    settings = PromptSettings(whole_sources=1, whole_table_rows=0)
    result = build_prompt(
        analyse_query(question),
        [Hit(TEXT_FINANCE, 0.9), Hit(chunk, 0.8)],
        counter=counter,
        settings=settings,
    )
    return result.sources[-1].text


def test_an_excerpt_keeps_what_its_rows_and_sentences_cannot_be_read_without(counter):
    header = ["", "2019 $'000", "2018 $'000"]
    rows = [
        ["Continuing Operations", "", ""],
        ["Operating revenue", "154,159", "176,931"],
        ["Gross profit", "52,963", "45,139"],
        ["EBITDA", "7,202", "10,878"],
        ["Reported Results", "", ""],
        ["Operating revenue", "154,585", "178,139"],
        ["NPAT", "(4,360)", "(15,640)"],
        ["", "150,225", "162,499"],
    ]
    table = plain_table("groups", header, rows)
    # a group heading brings the rows under it, not those of the next group
    excerpt = _excerpted("What are the components of Continuing Operations?", table, counter)
    assert "| EBITDA | 7,202 | 10,878 |" in excerpt and "| Gross profit |" in excerpt
    assert "Reported Results" not in excerpt and "NPAT" not in excerpt
    # a row with values and no label under other rows is their total
    excerpt = _excerpted("What was the total in 2019?", table, counter)
    assert "150,225" in excerpt and "EBITDA" not in excerpt

    text = text_chunk(
        "cash",
        "Net cash provided by operating activities increased $224 million for fiscal 2019. "
        "Revenue grew in every segment. "
        "Net cash provided by operating activities increased $242 million for fiscal 2018. "
        "The increase was primarily due to lower payments for taxes. "
        "Capital expenditure was flat. "
        "Headcount rose by 4%. "
        "Net cash used in investing activities rose.",
    )
    excerpt = _excerpted(
        "Why did net cash provided by operating activities increase in 2018?", text, counter
    )
    # the sentence that continues a kept one comes with it, joined as written (no ellipsis
    # between sentences that were next to each other); an ellipsis marks a gap
    assert (
        "increased $242 million for fiscal 2018. The increase was primarily due to lower payments"
        in excerpt.replace("\n", " ")
    )
    assert " … " in excerpt and "Headcount" not in excerpt


def test_a_group_heading_brings_its_rows_only_when_the_question_is_about_the_group(counter):
    header = ["", "2019", "2018"]
    rows = [
        ["Deferred tax assets:", "", ""],
        *[[f"Reserve {n}", f"{n},100", f"{n},200"] for n in range(1, 10)],
        ["Total", "20,101", "47,233"],
        ["Deferred tax liabilities:", "", ""],
        ["Fixed assets", "(246)", "(1,391)"],
        ["Net deferred tax assets", "7,561", "37,187"],
    ]
    table = plain_table("deferred", header, rows)
    # the row named by the question matches better than the heading: the heading's nine
    # rows stay out, the answer row is in
    excerpt = _excerpted("What was the net deferred tax assets in 2019?", table, counter)
    assert "| Net deferred tax assets | 7,561 | 37,187 |" in excerpt
    assert "Reserve 1" not in excerpt and "Reserve 9" not in excerpt
    # the heading is the best match and no row under it matches as well: it brings them
    excerpt = _excerpted("Which items make up the deferred tax assets?", table, counter)
    assert "| Reserve 1 | 1,100 | 1,200 |" in excerpt and "| Reserve 9 |" in excerpt


def test_table_notes_are_labelled_and_an_excerpt_keeps_the_notes_of_its_rows(counter):
    header = ["(In thousands)", "2019", "2018"]
    rows = [
        ["Salaries", "345,041", "317,118"],
        ["Service delivery costs(1)", "661,214", "615,267"],
        ["Customer related costs(2)", "260,215", "261,307"],
        ["Other external purchases", "101,332", "92,418"],
    ]
    chunk = plain_table(
        "notes",
        header,
        rows,
        footnote="(1) Include cost of equipment sold.\n"
        "(2) Include advertising and marketing expenses.\n"
        "Source: annual report",
    )
    whole = (
        build_prompt(
            analyse_query("What is included in customer related costs?"),
            [Hit(chunk, 0.9)],
            counter=counter,
        )
        .sources[0]
        .text
    )
    assert "Notes: (1) Include cost of equipment sold.\n(2) Include advertising" in whole
    assert "Source: annual report" in whole and "Data source: Source" not in whole
    excerpt = _excerpted("What is included in customer related costs?", chunk, counter)
    assert "Customer related costs(2)" in excerpt and "Salaries" not in excerpt
    assert "(2) Include advertising and marketing expenses." in excerpt
    assert "equipment sold" not in excerpt  # the note of a row the excerpt leaves out
