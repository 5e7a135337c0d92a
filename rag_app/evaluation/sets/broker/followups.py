"""Write questions_followup.jsonl: follow-up questions, each with the conversation before it.

Business users ask in turns: a follow-up leaves out what the question before named (the company,
the metric, the period, the table row) or points back to it (它, its). Each row carries
``history`` (chat messages, oldest first), the follow-up as ``question`` and the same question
written out whole as ``written_out``, so ``make eval`` measures retrieval three ways: with the
history, without it, and written out. The kinds (written by hand below, the wording varied
across the six reports): a period switched, a metric switched, a company switched, a pronoun, a
period and metric switched at once, a table row's other column, another row of the same table,
English follow-ups and three-turn chains. Gold items and answers are read off the reports' own
tables (表1 盈利预测与估值 and the 产线一览 table), so they are right by construction.
Written by ``python -m rag_app.evaluation.sets`` after the reports (it reads them back).
"""

from __future__ import annotations

import json
from pathlib import Path

from rag_app.text.tables import column_labels, parse_table

ENGLISH = {
    "中芯国际": "SMIC",
    "华虹半导体": "Hua Hong",
    "北方华创": "NAURA",
    "宁德时代": "CATL",
    "比亚迪": "BYD",
    "隆基绿能": "LONGi",
}
YEARS = ("2022", "2023", "2024", "2025", "2026")
ROWS = {  # the forecast table's rows by the words a reader uses
    "毛利率": "毛利率（%）",
    "归母净利润": "归母净利润（百万元）",
    "每股收益": "每股收益（元）",
    "市盈率": "市盈率（倍）",
    "市净率": "市净率（倍）",
    "ROE": "ROE（%）",
    "营业收入": "营业收入（百万元）",
}
# Follow-up wordings, one per report in turn: each kind is asked several ways.
PERIOD_SWITCH = (
    "那2026年呢？",
    "2025年呢？",
    "那么2023年的呢？",
    "换成2022年呢？",
    "那2025年的呢？",
    "2026年呢？",
)
METRIC_SWITCH = (
    "每股收益呢？",
    "那市盈率呢？",
    "ROE呢？",
    "市净率呢？",
    "那毛利率呢？",
    "营业收入呢？",
)
POINTERS = (
    ("它2026年的每股收益预测是多少？", "2026", "每股收益"),
    ("它2025年的市净率是多少？", "2025", "市净率"),
    ("该公司2024年的ROE是多少？", "2024", "ROE"),
    ("它2022年的毛利率是多少？", "2022", "毛利率"),
    ("这家公司2026年的市盈率预测是多少？", "2026", "市盈率"),
    ("它2023年的归母净利润是多少？", "2023", "归母净利润"),
)


def read_tables(
    items: list[dict],
) -> tuple[int, dict[str, list[str]], int, list[str], list[tuple[str, ...]]]:
    forecast = next(
        i for i, it in enumerate(items) if "盈利预测" in "".join(it.get("table_caption") or [])
    )
    grid = parse_table(items[forecast]["table_body"])
    values = {row[0]: list(row[1:]) for row in grid.data_rows}
    lines = next(
        i for i, it in enumerate(items) if "一览" in "".join(it.get("table_caption") or [])
    )
    line_grid = parse_table(items[lines]["table_body"])
    return forecast, values, lines, column_labels(line_grid), list(line_grid.data_rows)


def _row(
    qid: str,
    doc: dict,
    history: list[str],
    question: str,
    written: str,
    answer: str,
    gold: list[int],
    kind: str,
    lang: str = "zh",
) -> dict:
    messages = []
    for earlier in history:
        messages += [{"role": "user", "content": earlier}, {"role": "assistant", "content": "……"}]
    return {
        "id": qid,
        "question": question,
        "history": messages,
        "written_out": written,
        "answer": answer,
        "answer_type": "span",
        "doc_id": doc["doc_id"],
        "gold_item_indices": gold,
        "lang": lang,
        "kind": kind,
        "company": doc["company"],
        "source": "rag_app broker_eval follow-ups (authored)",
    }


def questions(folder: Path) -> list[dict]:
    """The follow-up rows, read off the set's reports and manifest in ``folder``."""
    manifest = [
        json.loads(line)
        for line in (folder / "manifest.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    docs = []
    for doc in manifest:
        items = json.loads((folder / doc["file"]).read_text(encoding="utf-8"))
        docs.append((doc, *read_tables(items)))
    out: list[dict] = []

    def add(*args, **kwargs) -> None:  # type: ignore[no-untyped-def]
        out.append(_row(f"followup_q{len(out) + 1:03d}", *args, **kwargs))

    for n, (doc, forecast, values, lines, labels, rows) in enumerate(docs):
        c = doc["company"]

        def cell(metric: str, year: str, values: dict[str, list[str]] = values) -> str:
            return values[ROWS[metric]][YEARS.index(year)]

        # a period switched
        follow = PERIOD_SWITCH[n]
        year = next(y for y in YEARS if y in follow)
        add(
            doc,
            [f"{c}2024年的毛利率是多少？"],
            follow,
            f"{c}{year}年的毛利率是多少？",
            cell("毛利率", year),
            [forecast],
            "period",
        )
        # a metric switched
        follow = METRIC_SWITCH[n]
        metric = next(m for m in ROWS if m in follow)
        add(
            doc,
            [f"{c}2025年预测归母净利润是多少？"],
            follow,
            f"{c}2025年预测{metric}是多少？",
            cell(metric, "2025"),
            [forecast],
            "metric",
        )
        # a company switched
        other = docs[(n + 1) % len(docs)]
        o = other[0]["company"]
        follow = f"{o}呢？" if n % 2 == 0 else f"那{o}的呢？"
        metric = "市盈率" if other[2][ROWS["市盈率"]][2] not in ("—", "-") else "市净率"
        add(
            other[0],
            [f"{c}2024年的{metric}是多少？"],
            follow,
            f"{o}2024年的{metric}是多少？",
            other[2][ROWS[metric]][2],
            [other[1]],
            "company",
        )
        # a pronoun
        follow, year, metric = POINTERS[n]
        add(
            doc,
            [f"{c}2023年营业收入是多少？"],
            follow,
            follow.replace(follow[: follow.index(year)], c),
            cell(metric, year),
            [forecast],
            "pronoun",
        )
        # a period and a metric at once
        add(
            doc,
            [f"{c}2022年的营业收入是多少？"],
            "那2025年的归母净利润呢？",
            f"{c}2025年的归母净利润是多少？",
            cell("归母净利润", "2025"),
            [forecast],
            "period+metric",
        )
        # a table row named before: its other column, then another row
        name, planned, current = (
            labels.index(x) for x in ("厂区", "产能 规划产能", "产能 当前产能")
        )
        known = [
            r for r in rows if r[current] not in ("—", "-", "") and r[planned] not in ("—", "-", "")
        ]
        first, second = known[1], known[3]

        def named(row: tuple[str, ...], name: int = name, c: str = c) -> str:
            # 中芯天津（T1） names its company already
            return row[name] if row[name].startswith(c[:2]) else f"{c}{row[name]}"

        asked = f"{named(first)}的当前产能是多少？"
        add(
            doc,
            [asked],
            "规划产能呢？",
            f"{named(first)}的规划产能是多少？",
            first[planned],
            [lines],
            "row column",
        )
        add(
            doc,
            [asked],
            f"{second[name]}呢？",
            f"{named(second)}的当前产能是多少？",
            second[current],
            [lines],
            "row",
        )
        # English
        e = ENGLISH[c]
        add(
            doc,
            [f"What was {e}'s ({c}) gross margin in 2024?"],
            "And in 2026?",
            f"What was {e}'s ({c}) gross margin in 2026?",
            cell("毛利率", "2026"),
            [forecast],
            "english period",
            lang="en",
        )
        # three turns: the third leans on the second, which leaned on the first
        if n < 4:
            add(
                doc,
                [f"{c}2024年的毛利率是多少？", "那2025年呢？"],
                "市盈率呢？",
                f"{c}2025年的市盈率是多少？",
                cell("市盈率", "2025"),
                [forecast],
                "chain",
            )
    return out


def write_followups(folder: Path) -> None:
    """Write ``questions_followup.jsonl`` into ``folder``, beside the reports it reads."""
    rows = questions(folder)
    target = folder / "questions_followup.jsonl"
    target.write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8"
    )
    print(f"{len(rows)} follow-up questions -> {target}")
