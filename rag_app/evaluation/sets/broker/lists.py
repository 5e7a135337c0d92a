"""Write questions_list.jsonl: questions asking for a list, answered by a report's 产线一览 table.

Each report holds one table listing its production lines (厂区, 地点, 状态, ...). The questions ask
for all of them, for those in one place, for those under construction, or for one category, so
the gold answers are read off the table itself (every name the question asks for, as written in
the 厂区 column). They measure how an answer lists things (``make eval``: answer_in_offline and
its "-list answers" row); retrieval is measured as for the other sets (the table is the gold
item). Written by ``python -m rag_app.evaluation.sets`` after the reports (it reads them back).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from rag_app.text.tables import column_labels, parse_table


def _list_table(items: list[dict]) -> tuple[int, list[str], list[tuple[str, ...]]]:
    for index, item in enumerate(items):
        if item.get("type") == "table" and "一览" in "".join(item.get("table_caption") or []):
            grid = parse_table(item["table_body"])
            return index, column_labels(grid), list(grid.data_rows)
    raise ValueError("no 一览 table")


def questions(folder: Path) -> list[dict]:
    """The list questions, read off the set's reports and manifest in ``folder``."""
    manifest = [
        json.loads(line)
        for line in (folder / "manifest.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    out: list[dict] = []
    for doc in manifest:
        items = json.loads((folder / doc["file"]).read_text(encoding="utf-8"))
        index, labels, rows = _list_table(items)
        kind_column = "类别" if "类别" in labels else "晶圆尺寸"
        name, place, status, kind = (labels.index(c) for c in ("厂区", "地点", "状态", kind_column))
        company = doc["company"]
        asked = [(f"{company}的产线有哪些？", rows)]
        building = [r for r in rows if r[status] == "在建"]
        if building:
            asked.append((f"{company}有哪些在建的产线？", building))
        places = Counter(r[place] for r in rows)
        common = [p for p, n in places.most_common() if 2 <= n < len(rows)]
        if common:
            located = [r for r in rows if r[place] == common[0]]
            asked.append((f"请列出{company}位于{common[0]}的产线。", located))
        kinds = [k for k, n in Counter(r[kind] for r in rows).most_common() if 2 <= n < len(rows)]
        if kinds:
            of_kind = [r for r in rows if r[kind] == kinds[0]]
            asked.append((f"{company}有哪几条{kinds[0]}的产线？", of_kind))
        for question, keep in asked:
            out.append(
                {
                    "id": f"broker_l{len(out) + 1:03d}",
                    "question": question,
                    "answer": [r[name] for r in keep],
                    "answer_type": "multi-span",
                    "answer_from": "table",
                    "doc_id": doc["doc_id"],
                    "doc_file": doc["file"],
                    "gold_item_indices": [index],
                    "gold_item_types": ["table"],
                    "lang": "zh",
                    "scope": "single_doc",
                    "company": company,
                    "source": "rag_app broker_eval (authored; answers read off the list table)",
                }
            )
    return out


def write_lists(folder: Path) -> None:
    """Write ``questions_list.jsonl`` into ``folder``, beside the reports it reads."""
    rows = questions(folder)
    path = folder / "questions_list.jsonl"
    path.write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8"
    )
    print(f"{len(rows)} list questions -> {path}")
