"""The sample report's evaluation set (``assets/sample_report/eval_set.csv``): 20 questions the
Evaluate page offers as its sample, in the sheet format users upload (rag_app.evals): lookups
in tables and text, two follow-ups with their conversation, three questions the report cannot
answer. Each answerable row names the items that answer it (by key) and is checked here to hold
its expected answer, so the set cannot drift from the report."""

from __future__ import annotations

import csv
import io
import json

from rag_app.evaluation.sets.docgen import Doc, contains_answer

# (id, question, expected, item keys, earlier messages); no keys: the report cannot answer it
ROWS: tuple[tuple[str, str, str, tuple[str, ...], tuple[tuple[str, str], ...]], ...] = (
    ("e01", "中芯国际2026年预测市盈率是多少？", "106.2", ("t_forecast",), ()),
    ("e02", "中芯国际2024年营业收入是多少？", "57,796", ("t_forecast",), ()),
    ("e03", "2024年中芯国际的毛利率是多少？", "18.6", ("t_forecast",), ()),
    ("e04", "报告给出的目标价是多少？", "98.90", ("target",), ()),
    ("e05", "中芯国际的投资评级是什么？", "买入", ("rating",), ()),
    ("e06", "2024年第二季度中芯国际的产能利用率是多少？", "85.2", ("t_capacity",), ()),
    ("e07", "2024年第四季度中芯国际的月产能是多少万片？", "94.8", ("t_capacity",), ()),
    ("e08", "2024年第四季度中芯国际来自工业与汽车领域的营收是多少？", "201", ("t_app",), ()),
    ("e09", "2024年全球晶圆代工厂营收排名第一的是哪家？", "台积电", ("t_rank",), ()),
    ("e10", "华虹集团2024年的市占率是多少？", "3.0", ("t_rank",), ()),
    ("e11", "中芯南方（SN1）采用什么工艺节点？", "14nmFinFET", ("t_fabs",), ()),
    ("e12", "2025年中芯国际的资本开支预计是多少亿美元？", "73", ("kp_capacity", "t_capex"), ()),
    ("e13", "2024年中芯国际的折旧及摊销是多少亿美元？", "38.9", ("t_capex",), ()),
    ("e14", "What valuation method does the report use for SMIC?", "PB", ("p_valuation",), ()),
    ("e15", "What was SMIC's capacity utilization in 2024Q3?", "90.4", ("t_capacity",), ()),
    (
        "e16",
        "它四季度呢？",
        "85.5",
        ("t_capacity",),
        (
            ("user", "2024年第三季度中芯国际的产能利用率是多少？"),
            ("assistant", "2024年第三季度产能利用率为90.4%。"),
        ),
    ),
    (
        "e17",
        "那毛利率呢？",
        "22.6",
        ("p_util_text",),
        (("user", "2024年四季度中芯国际的产能利用率是多少？"),),
    ),
    ("e18", "中芯国际2024年的研发费用是多少？", "", (), ()),
    ("e19", "台积电2024年的资本开支是多少？", "", (), ()),
    ("e20", "What was Intel's foundry revenue in 2024?", "", (), ()),
)
HEADER = ("id", "question", "expected", "document", "page", "item", "history", "answerable")


def eval_set_csv(d: Doc, doc_name: str) -> str:
    """The set as CSV text; raises ValueError for a row whose items do not hold its answer."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(HEADER)
    for qid, question, expected, keys, history in ROWS:
        items = [d.index(k) for k in keys]
        if keys and not any(contains_answer(d.items[i], expected) for i in items):
            raise ValueError(f"{qid}: {expected!r} is in none of {keys}")
        pages = sorted({d.items[i]["page_idx"] + 1 for i in items})
        messages = [{"role": role, "content": text} for role, text in history]
        writer.writerow(
            (
                qid,
                question,
                expected,
                doc_name if keys else "",
                ";".join(map(str, pages)),
                ";".join(map(str, items)),
                json.dumps(messages, ensure_ascii=False) if messages else "",
                "" if keys else "false",
            )
        )
    return out.getvalue()
