"""A folder given to `rag-app ingest`: each document once (its content list before its zip and
its markdown), and what is no document (the folder's README, a JSON of questions, a CSV that is
no sheet of examples) left out with its reason. The bundled sample folder holds all of them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from rag_app.ingest.folders import folder_files
from tests.conftest import REPO_ROOT

SAMPLE = REPO_ROOT / "assets" / "sample_report"


def _names(paths: tuple[Path, ...], root: Path) -> list[str]:
    return [str(p.relative_to(root)) for p in paths]


def test_the_sample_folder_gives_its_report_once_and_says_what_it_leaves_out(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "sample"
    shutil.copytree(SAMPLE, folder)
    chosen = folder_files(folder, 10_000_000)
    assert _names(chosen.files, folder) == ["smic_report_content_list.json"]
    reasons = {str(p.relative_to(folder)): why for p, why in chosen.skipped}
    assert set(reasons) == {
        "README.md",
        "eval_set.csv",
        "questions.json",
        "smic_report.md",
        "smic_report.zip",
    }
    assert "README" in reasons["README.md"]
    assert "content list" in reasons["questions.json"]
    assert "smic_report_content_list.json" in reasons["smic_report.zip"]


def test_what_may_be_a_document_goes_to_the_loader(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / ".hidden").mkdir()
    (tmp_path / "a.md").write_text("# A\n\ntext", encoding="utf-8")
    (tmp_path / "sub" / "a.md").write_text("# A again, another folder", encoding="utf-8")
    (tmp_path / "b.zip").write_bytes(b"PK")  # no content list beside it: the zip is taken
    (tmp_path / "c.md").write_text("# C", encoding="utf-8")
    (tmp_path / "c.zip").write_bytes(b"PK")
    (tmp_path / "wrapped.json").write_text(
        json.dumps({"content_list": [{"type": "text", "text": "x"}]}), encoding="utf-8"
    )
    (tmp_path / "sheet.csv").write_text("user_input,agent_response\nq,a\n", encoding="utf-8")
    (tmp_path / "broken.json").write_text("[{", encoding="utf-8")  # the loader says why
    (tmp_path / "deep.json").write_text("[" * 5000 + "]" * 5000, encoding="utf-8")
    (tmp_path / ".hidden" / "x_content_list.json").write_text("[]", encoding="utf-8")
    (tmp_path / "._d_content_list.json").write_text("[]", encoding="utf-8")  # said, not taken
    chosen = folder_files(tmp_path, 10_000_000)
    assert _names(chosen.files, tmp_path) == [
        "a.md",
        "b.zip",
        "broken.json",
        "c.zip",
        "deep.json",
        "sheet.csv",
        "sub/a.md",
        "wrapped.json",
    ]
    assert _names(tuple(p for p, _ in chosen.skipped), tmp_path) == [
        "._d_content_list.json",
        "c.md",
    ]
