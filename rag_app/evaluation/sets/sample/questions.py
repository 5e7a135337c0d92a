"""The sample report's example questions for the UI, each with the items that answer it."""

from __future__ import annotations

from rag_app.evaluation.sets.docgen import Doc, contains_answer
from rag_app.evaluation.sets.sample.figures import app_values
from rag_app.evaluation.sets.tables import thousands


def ui_questions(d: Doc) -> list[dict]:
    items = d.items
    apps = app_values()
    qs = [
        (
            "q1",
            "zh",
            "table",
            "中芯国际2026年预测市盈率是多少？",
            "106.2",
            ["t_forecast"],
            "表1 盈利预测与估值：2026E 市盈率 106.2 倍",
        ),
        (
            "q2",
            "zh",
            "table",
            "中芯南方（SN1）采用什么工艺节点？",
            "14nmFinFET",
            ["t_fabs"],
            "表6 中芯国际产线一览：中芯南方（SN1），上海，14nmFinFET",
        ),
        (
            "q3",
            "zh",
            "table",
            "2024年第二季度中芯国际的产能利用率是多少？",
            "85.2",
            ["t_capacity", "t_quarterly"],
            "表4 与表7 均给出 2024Q2 产能利用率 85.2%",
        ),
        (
            "q4",
            "zh",
            "table",
            "2024年第四季度中芯国际来自工业与汽车领域的营收是多少？",
            thousands(apps[7][4]),
            ["t_app"],
            f"表2：2024Q4 工业与汽车 {apps[7][4]} 百万美元",
        ),
        (
            "q5",
            "zh",
            "figure",
            "图3显示中芯国际营收同比增速在2023年四季度之后呈现什么趋势？",
            "由负转正并持续扩大",
            ["fig3"],
            "图3 的图表描述（content 字段）",
        ),
        (
            "q6",
            "zh",
            "text",
            "报告认为中芯国际2025年资本开支大约是多少？",
            "73亿美元",
            ["kp_capacity"],
            "投资要点：公司指引2025年资本开支与2024年大致持平，约为73亿美元",
        ),
        (
            "q7",
            "en",
            "table",
            "What is the planned monthly capacity of SMIC's 中芯京城 fab, and what is its status?",
            "产能爬坡",
            ["t_fabs"],
            "表6: 中芯京城 规划产能 10.0 万片/月, 当前产能 5.0, 状态 产能爬坡",
        ),
        (
            "q8",
            "en",
            "text",
            "What valuation method and multiple does the report use for SMIC's target price?",
            "5.3倍PB",
            ["kp_forecast", "p_valuation"],
            "PB valuation: 2025E 5.3x PB, target price 98.90元",
        ),
    ]
    out = []
    for qid, lang, kind, question, span, keys, note in qs:
        idx = sorted(d.index(k) for k in keys)
        for i in idx:
            if not contains_answer(items[i], span):
                raise SystemExit(f"UI question {qid}: {span!r} not in item {i}")
        out.append(
            {
                "id": qid,
                "question": question,
                "lang": lang,
                "kind": kind,
                "answer_span": span,
                "answer_note": note,
                "evidence": [
                    {
                        "item_index": i,
                        "type": items[i]["type"],
                        "page_idx": items[i]["page_idx"],
                        "caption": (
                            items[i].get("table_caption") or items[i].get("image_caption") or [""]
                        )[0],
                    }
                    for i in idx
                ],
            }
        )
    return out
