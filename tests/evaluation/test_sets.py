"""The generators of the shipped data (rag_app/evaluation/sets) reproduce assets/ byte for byte,
and their verification stops a question whose gold evidence is wrong."""

from __future__ import annotations

import dataclasses
import io
import json
import zipfile
from pathlib import Path

import pytest

from rag_app.evaluation.sets.__main__ import write_sets
from rag_app.evaluation.sets.broker import questions
from rag_app.evaluation.sets.broker.build import COMPANY
from rag_app.evaluation.sets.broker.huahong import build_report
from rag_app.evaluation.sets.fifth import questions as fifth_questions
from rag_app.evaluation.sets.fifth.build import DOCUMENTS as FIFTH_DOCUMENTS
from rag_app.evaluation.sets.fifth.build import FITTING as FIFTH_FITTING
from rag_app.evaluation.sets.fifth.build import HELD_OUT as FIFTH_HELD_OUT
from rag_app.evaluation.sets.fourth import questions as fourth_questions
from rag_app.evaluation.sets.fourth.build import DOCUMENTS as FOURTH_DOCUMENTS
from rag_app.evaluation.sets.fourth.build import FITTING, HELD_OUT
from rag_app.evaluation.sets.sample.report import build_smic
from rag_app.evaluation.sets.second import questions as second_questions
from rag_app.evaluation.sets.second.build import DOCUMENTS
from rag_app.evaluation.sets.third import questions as third_questions
from rag_app.evaluation.sets.third.build import DOCUMENTS as THIRD_DOCUMENTS
from tests.conftest import REPO_ROOT

ASSETS = REPO_ROOT / "assets"
# Written by hand, not generated: the folders' READMEs and the broker questions' routing labels.
AUTHORED = {"README.md", "routing_labels.jsonl"}


def _files(root: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(root)): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file() and path.name not in AUTHORED
    }


def test_the_generators_reproduce_the_shipped_data(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_sets(tmp_path)
    made = _files(tmp_path)
    shipped = {
        name: data
        for folder in (
            "sample_report",
            "broker_eval",
            "second_eval",
            "third_eval",
            "fourth_eval",
            "fifth_eval",
        )
        for name, data in _files(ASSETS).items()
        if name.startswith(folder + "/")
    }
    assert sorted(made) == sorted(shipped)
    changed = [name for name in made if not _same(name, made[name], shipped[name])]
    assert not changed, f"regenerated files differ from assets/: {changed}"


def _same(name: str, made: bytes, shipped: bytes) -> bool:
    """Text and JSON byte for byte; a drawn figure by its pixels (another Pillow or zlib writes
    the same picture in other bytes); a zip by its members, each compared the same way."""
    if name.endswith(".png"):
        from PIL import Image, ImageChops

        a, b = (Image.open(io.BytesIO(data)).convert("RGB") for data in (made, shipped))
        return a.size == b.size and ImageChops.difference(a, b).getbbox() is None
    if name.endswith(".zip"):
        with zipfile.ZipFile(io.BytesIO(made)) as x, zipfile.ZipFile(io.BytesIO(shipped)) as y:
            return x.namelist() == y.namelist() and all(
                _same(member, x.read(member), y.read(member)) for member in x.namelist()
            )
    return made == shipped


def _verify(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, row: dict) -> list[str]:
    (tmp_path / "question_keys.jsonl").write_text(
        json.dumps(row, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    monkeypatch.setattr(questions, "DATA", tmp_path)
    errors: list[str] = []
    docs = {"smic": build_smic(), "huahong": build_report()}
    questions.single_doc_rows(docs, COMPANY, {}, errors)
    return errors


def test_an_answer_outside_its_gold_item_stops_the_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    row = {
        "doc": "smic",
        "question": "中芯国际2024年的毛利率是多少？",
        "answer": "18.6",
        "gold": ["t_rank"],
        "lang": "zh",
        "answer_from": "table",
        "scale": "%",
    }
    assert any("not in gold item" in error for error in _verify(tmp_path, monkeypatch, row))


def test_an_answer_also_in_another_item_stops_the_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """18.6 is in 表1 and in a paragraph: naming only the table is caught; ``ignore`` waives it."""
    row = {
        "doc": "smic",
        "question": "中芯国际2024年的毛利率是多少？",
        "answer": "18.6",
        "gold": ["t_forecast"],
        "lang": "zh",
        "answer_from": "table",
        "scale": "%",
    }
    (error,) = _verify(tmp_path, monkeypatch, row)
    assert "also in non-gold items" in error
    assert _verify(tmp_path, monkeypatch, {**row, "ignore": ["p_revenue_trend"]}) == []


def _verify_second(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, row: dict
) -> list[str]:
    (tmp_path / name).write_text(json.dumps(row, ensure_ascii=False) + "\n", encoding="utf-8")
    reader = dataclasses.replace(second_questions.ROWS, data=tmp_path)
    docs = {key: spec[0]() for key, spec in DOCUMENTS.items()}
    errors: list[str] = []
    if name == "unanswerable.jsonl":
        reader.unanswerable(docs, errors)
    else:
        reader.single(docs, {key: "" for key in docs}, errors)
    return errors


def test_the_second_set_stops_on_a_wrong_gold_item(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """2024's revenue is in 主要会计数据, not in the 主要财务指标 table."""
    row = {
        "doc": "annual",
        "question": "澄远智能2024年营收多少？",
        "answer": "3,286,451,209.37",
        "gold": ["t_indicators"],
        "lang": "zh",
        "answer_from": "table",
        "kind": "table lookup",
    }
    errors = _verify_second(tmp_path, monkeypatch, "questions.jsonl", row)
    assert any("not in gold item" in e for e in errors)
    assert any("also in non-gold items" in e for e in errors)
    fixed = {**row, "gold": ["t_accounts"]}
    assert _verify_second(tmp_path, monkeypatch, "questions.jsonl", fixed) == []


def test_the_second_set_stops_on_an_unanswerable_question_a_document_answers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The prospectus gives 拓衡传感's 资产负债率, so asking for it is not unanswerable."""
    row = {
        "kind": "metric absent",
        "question": "拓衡传感2023年末资产负债率是多少？",
        "lang": "zh",
        "absent": [["prospectus", "资产负债率"]],
        "twin": {
            "kind": "metric held",
            "doc": "prospectus",
            "question": "拓衡传感2023年末资产负债率是多少？",
            "answer": "34.12",
            "gold": ["t_financials"],
        },
    }
    errors = _verify_second(tmp_path, monkeypatch, "unanswerable.jsonl", row)
    assert len(errors) == 1 and "said to be absent" in errors[0]


def _third_arithmetic(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, row: dict) -> tuple:
    (tmp_path / "arithmetic.jsonl").write_text(
        json.dumps(row, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    monkeypatch.setattr(third_questions, "DATA", tmp_path)
    docs = {key: spec[0]() for key, spec in THIRD_DOCUMENTS.items()}
    errors: list[str] = []
    return third_questions.arithmetic_rows(docs, errors), errors


def test_the_third_set_works_its_arithmetic_out_from_named_cells(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cells are named by row and (merged) column headers; the answer is computed, and a
    column that names no single header stops the build."""
    row = {
        "doc": "bank",
        "question": "嵘城银行制造业贷款2024年末较2023年末增长了百分之几？",
        "operation": "change_ratio",
        "cells": [
            ["t_loans", "制造业", "2024年12月31日/金额"],
            ["t_loans", "制造业", "2023年12月31日/金额"],
        ],
        "lang": "zh",
    }
    (made,), errors = _third_arithmetic(tmp_path, monkeypatch, row)
    assert errors == []
    assert (made["answer"], made["scale"]) == ("14.4", "percent")
    assert made["derivation"] == "(512.38-447.90)/447.90"
    vague = {**row, "cells": [["t_loans", "制造业", "2024年12月31日"]] * 2}
    rows, errors = _third_arithmetic(tmp_path, monkeypatch, vague)
    assert rows == [] and "2 columns headed" in errors[0]


def _fourth_arithmetic(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, row: dict) -> tuple:
    (tmp_path / "arithmetic.jsonl").write_text(
        json.dumps(row, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    monkeypatch.setattr(fourth_questions, "DATA", tmp_path)
    docs = {key: spec[0]() for key, spec in FOURTH_DOCUMENTS.items()}
    errors: list[str] = []
    return fourth_questions.arithmetic_rows(docs, errors), errors


def test_the_fourth_set_reads_nested_rows_merged_columns_and_works_out_a_cagr(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """国际 is named under its metric (the airline's table repeats it), 本报告期末 spans two columns,
    and a compound growth rate is worked out from the first and the last cell."""
    nested = {
        "doc": "airline",
        "question": "青岚航空10月国际旅客运输量比上年同月多了多少千人次？",
        "operation": "diff",
        "cells": [
            ["t_ops", "旅客运输量（千人次）>国际", "本月/2025年10月"],
            ["t_ops", "旅客运输量（千人次）>国际", "本月/2024年10月"],
        ],
        "lang": "zh",
    }
    (made,), errors = _fourth_arithmetic(tmp_path, monkeypatch, nested)
    assert errors == [] and made["derivation"] == "682.06-512.84"
    bare = {**nested, "cells": [["t_ops", "国际", "本月/2025年10月"]] * 2}
    rows, errors = _fourth_arithmetic(tmp_path, monkeypatch, bare)
    assert rows == [] and "rows labelled '国际'" in errors[0]
    merged = {
        **nested,
        "doc": "quarterly",
        "operation": "change_ratio",
        "cells": [["t_main", "总资产", "本报告期末"], ["t_main", "总资产", "上年度末"]],
    }
    (made,), errors = _fourth_arithmetic(tmp_path, monkeypatch, merged)
    assert errors == [] and (made["answer"], made["scale"]) == ("7.76", "percent")
    cagr = {
        **nested,
        "doc": "industry",
        "operation": "cagr",
        "years": 2,
        "cells": [
            ["t_makers", "锐驰电池", "动力电池出货量（GWh）/2022年"],
            ["t_makers", "锐驰电池", "动力电池出货量（GWh）/2024年"],
        ],
    }
    (made,), errors = _fourth_arithmetic(tmp_path, monkeypatch, cagr)
    assert errors == [] and made["answer"] == "39.15"
    assert made["derivation"] == "(121.6/62.8)^(1/2)-1"


def test_the_fourth_set_is_split_into_a_fitting_and_a_held_out_half() -> None:
    """Every document is in exactly one half, and every question of the shipped set names one
    document of the set (so a result can be reported per half)."""
    assert sorted(FITTING + HELD_OUT) == sorted(FOURTH_DOCUMENTS)
    doc_ids = {spec[0]().doc_id for spec in FOURTH_DOCUMENTS.values()}
    folder = ASSETS / "fourth_eval"
    for name in ("questions.jsonl", "questions_followup.jsonl", "questions_arithmetic.jsonl"):
        for line in (folder / name).read_text(encoding="utf-8").splitlines():
            assert json.loads(line)["doc_id"] in doc_ids


def test_the_fifth_set_is_split_into_a_fitting_and_a_held_out_half() -> None:
    """As the fourth: every document is in exactly one half, every question of the shipped set
    names one document of the set, and every unanswerable row's twin is answerable."""
    assert sorted(FIFTH_FITTING + FIFTH_HELD_OUT) == sorted(FIFTH_DOCUMENTS)
    doc_ids = {spec[0]().doc_id for spec in FIFTH_DOCUMENTS.values()}
    folder = ASSETS / "fifth_eval"
    for name in ("questions.jsonl", "questions_followup.jsonl", "questions_arithmetic.jsonl"):
        for line in (folder / name).read_text(encoding="utf-8").splitlines():
            assert json.loads(line)["doc_id"] in doc_ids
    lines = (folder / "questions_unanswerable.jsonl").read_text(encoding="utf-8").splitlines()
    rows = {r["id"]: r for r in map(json.loads, lines)}
    for row in rows.values():
        twin = rows[row["pair"]]
        assert twin["pair"] == row["id"] and twin["answerable"] != row["answerable"]
        assert (row if row["answerable"] else twin)["doc_id"] in doc_ids


def test_the_fifth_set_stops_on_a_count_over_a_cell_it_cannot_find(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """表1 has two 同比（%） rows: named under its parent a cell is found, bare it stops the build."""
    row = {
        "doc": "pharma",
        "question": "康屹生物营收同比增速超过50%的有几年？",
        "operation": "count",
        "threshold": "50",
        "cells": [
            ["t_forecast", "营业收入（百万元）>同比（%）", "2023A"],
            ["t_forecast", "营业收入（百万元）>同比（%）", "2027E"],
        ],
        "lang": "zh",
    }
    (tmp_path / "arithmetic.jsonl").write_text(
        json.dumps(row, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    monkeypatch.setattr(fifth_questions, "DATA", tmp_path)
    docs = {key: spec[0]() for key, spec in FIFTH_DOCUMENTS.items()}
    errors: list[str] = []
    (made,) = fifth_questions.arithmetic_rows(docs, errors)
    assert errors == [] and (made["answer"], made["derivation"]) == ("1", "2023A")
    bare = {**row, "cells": [["t_forecast", "同比（%）", "2023A"]]}
    (tmp_path / "arithmetic.jsonl").write_text(
        json.dumps(bare, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    assert fifth_questions.arithmetic_rows(docs, errors) == []
    assert "2 rows labelled" in errors[0]
