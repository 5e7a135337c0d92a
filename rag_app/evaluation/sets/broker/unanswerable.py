"""Write questions_unanswerable.jsonl: questions the library cannot answer beside look-alikes it can.

Over the six broker reports: companies no report is about (and no report mentions), years their
tables and text do not reach (2027 and later: forecasts stop at 2026E), metrics none of a
company's report writes (扣非净利润, 经营性现金流, 研发费用, 资本开支, 净利率), and English ones
(a year out of reach, a metric absent). Each has an answerable twin asked the same way about what
the library does hold (a held company, a covered year, a metric its 表1 gives), with its gold item
and answer read off the report's own table. Rows carry ``answerable``; ``make eval`` reports the
share declined of the unanswerable and the share still answered of the answerable.
Written by ``python -m rag_app.evaluation.sets`` after the reports (it reads them back).
"""

from __future__ import annotations

import json
from pathlib import Path

from rag_app.evaluation.sets.broker.followups import ROWS, YEARS, read_tables

ABSENT_COMPANIES = (
    "长江存储",
    "贵州茅台",
    "招商银行",
    "腾讯控股",
    "小米集团",
    "美的集团",
    "格力电器",
    "海康威视",
    "京东方",
    "立讯精密",
    "阳光电源",
    "通威股份",
    "韦尔股份",
    "兆易创新",
)
TEMPLATES = (  # (question with {c}, metric, year)
    ("{c}2025年的营业收入预测是多少？", "营业收入", "2025"),
    ("{c}2024年的毛利率是多少？", "毛利率", "2024"),
    ("{c}2026年预测市盈率是多少？", "市盈率", "2026"),
    ("{c}2023年归母净利润是多少？", "归母净利润", "2023"),
    ("{c}2025年的每股收益预测是多少？", "每股收益", "2025"),
    ("{c}2022年的ROE是多少？", "ROE", "2022"),
    ("{c}2026年的市净率预测是多少？", "市净率", "2026"),
)
OUT_YEARS = ("2028", "2030", "2027")
# (company, absent metric, a metric its 表1 gives instead)
ABSENT_METRICS = (
    ("宁德时代", "扣非净利润", "归母净利润"),
    ("比亚迪", "经营性现金流", "营业收入"),
    ("隆基绿能", "研发费用", "毛利率"),
    ("华虹半导体", "资本开支", "ROE"),
    ("宁德时代", "净利率", "毛利率"),
    ("中芯国际", "扣非归母净利润", "归母净利润"),
    ("北方华创", "经营性现金流", "每股收益"),
    ("比亚迪", "研发费用", "市盈率"),
    ("隆基绿能", "资本开支", "市净率"),
    ("华虹半导体", "扣非净利润", "归母净利润"),
    ("北方华创", "净利率", "毛利率"),
    ("宁德时代", "研发费用", "营业收入"),
)
ENGLISH = (
    ("What is BYD's (比亚迪) forecast revenue for 2028E?", "2028", "营业收入"),
    ("What was SMIC's (中芯国际) gross margin in 2030?", "2030", "毛利率"),
    ("What is LONGi's (隆基绿能) R&D expense in 2024?", "2024", "研发费用"),
    ("What is CATL's (宁德时代) capital expenditure in 2024?", "2024", "资本开支"),
)
ENGLISH_TWINS = (
    ("What is BYD's (比亚迪) forecast revenue for 2026E?", "2026", "营业收入"),
    ("What was SMIC's (中芯国际) gross margin in 2024?", "2024", "毛利率"),
    ("What is LONGi's (隆基绿能) ROE in 2024?", "2024", "ROE"),
    ("What is CATL's (宁德时代) EPS in 2024?", "2024", "每股收益"),
)


def questions(folder: Path) -> list[dict]:
    """The question pairs, read off the set's reports and manifest in ``folder``."""
    manifest = [
        json.loads(line)
        for line in (folder / "manifest.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    docs = {}
    for doc in manifest:
        items = json.loads((folder / doc["file"]).read_text(encoding="utf-8"))
        forecast, values, *_ = read_tables(items)
        docs[doc["company"]] = (doc, forecast, values)
    companies = list(docs)
    out: list[dict] = []

    def add(
        question: str,
        kind: str,
        answerable: bool,
        company: str = "",
        metric: str = "",
        year: str = "",
        lang: str = "zh",
    ) -> None:
        row = {
            "id": f"unans_q{len(out) + 1:03d}",
            "question": question,
            "answerable": answerable,
            "kind": kind,
            "lang": lang,
            "source": "rag_app broker_eval answerability (authored)",
        }
        if answerable:
            doc, forecast, values = docs[company]
            value = values[ROWS[metric]][YEARS.index(year)]
            row.update(
                doc_id=doc["doc_id"], gold_item_indices=[forecast], answer=value, answer_type="span"
            )
        else:
            row.update(doc_id="", gold_item_indices=[], answer=None)
        out.append(row)

    for n, name in enumerate(ABSENT_COMPANIES):
        template, metric, year = TEMPLATES[n % len(TEMPLATES)]
        add(template.format(c=name), "company not held", False)
        held = companies[n % len(companies)]
        add(template.format(c=held), "company held", True, held, metric, year)
    for n, company in enumerate(companies * 3):
        template, metric, year = TEMPLATES[n % len(TEMPLATES)]
        out_year = OUT_YEARS[n % len(OUT_YEARS)]
        if n >= 14:
            break
        add(template.format(c=company).replace(year, out_year), "year outside", False)
        add(template.format(c=company), "year covered", True, company, metric, year)
    for company, absent, held in ABSENT_METRICS:
        add(f"{company}2024年的{absent}是多少？", "metric absent", False)
        add(f"{company}2024年的{held}是多少？", "metric held", True, company, held, "2024")
    for (question, _, _), (twin, year, metric) in zip(ENGLISH, ENGLISH_TWINS, strict=True):
        add(question, "english", False, lang="en")
        company = twin.split("(")[1].split(")")[0]
        add(twin, "english held", True, company, metric, year, lang="en")
    return out


def write_unanswerable(folder: Path) -> None:
    """Write ``questions_unanswerable.jsonl`` into ``folder``, beside the reports it reads."""
    rows = questions(folder)
    target = folder / "questions_unanswerable.jsonl"
    target.write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8"
    )
    n = sum(not r["answerable"] for r in rows)
    print(f"{n} unanswerable and {len(rows) - n} answerable questions -> {target}")
