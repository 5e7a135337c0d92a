"""The generators of the shipped data (rag_app/evaluation/sets) reproduce assets/ byte for byte,
and their verification stops a question whose gold evidence is wrong."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest

from rag_app.evaluation.sets.__main__ import write_sets
from rag_app.evaluation.sets.broker import questions
from rag_app.evaluation.sets.broker.build import COMPANY
from rag_app.evaluation.sets.broker.huahong import build_report
from rag_app.evaluation.sets.sample.report import build_smic
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
        for folder in ("sample_report", "broker_eval")
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
