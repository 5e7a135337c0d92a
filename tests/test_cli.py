"""The CLI, run in-process: ingest, docs, search, delete, eval; settings from flags or env.

The embedding model is swapped for the HashEmbedder (monkeypatching ``load_embedder``), so these
tests exercise the CLI's own behaviour quickly; the real model has its own slow tests.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import rag_app.index.embedder as embedder_module
from rag_app.cli import main
from rag_app.index.embedder import HashEmbedder

from .conftest import SAMPLE_CONTENT_LIST, TEST_DATA

QUESTIONS = TEST_DATA / "sample_report_questions.jsonl"
HIT_KEYS = {
    "rank",
    "score",
    "strategy",
    "note",
    "chunk_id",
    "doc_id",
    "type",
    "pages",
    "item_indices",
    "signals",
    "text",
}
EVAL_KEYS = {
    "n_questions",
    "recall@1",
    "recall@5",
    "recall@10",
    "mrr@10",
    "ingest_seconds",
    "n_chunks",
    "query_ms_p50",
    "query_ms_p95",
}


@pytest.fixture(autouse=True)
def hash_embedder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(embedder_module, "load_embedder", lambda settings: HashEmbedder())


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    return tmp_path / "cli-data"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _ingest_sample(capsys, data_dir: Path) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = run(capsys, "ingest", str(SAMPLE_CONTENT_LIST), "--data-dir", str(data_dir))
    assert code == 0, out
    assert out.startswith("ingested  smic_report_content_list.json -> smic_report: ")


def test_ingest_docs_search_delete(capsys, data_dir: Path) -> None:  # type: ignore[no-untyped-def]
    _ingest_sample(capsys, data_dir)

    code, out, _ = run(capsys, "docs", "--json", "--data-dir", str(data_dir))
    assert code == 0
    (doc,) = json.loads(out)
    assert doc["doc_id"] == "smic_report" and doc["n_chunks"] > 0 and doc["pages"] == 7
    assert dict(doc["type_counts"])["table"] > 0

    code, out, _ = run(capsys, "docs", "--data-dir", str(data_dir))
    assert code == 0 and "smic_report" in out

    code, out, _ = run(
        capsys,
        "search",
        "中芯南方的工艺节点是什么",
        "--json",
        "--k",
        "5",
        "--data-dir",
        str(data_dir),
    )
    assert code == 0
    hits = json.loads(out)
    assert 0 < len(hits) <= 5
    assert [h["rank"] for h in hits] == list(range(1, len(hits) + 1))
    for hit in hits:
        assert set(hit) >= HIT_KEYS
        assert hit["doc_id"] == "smic_report"
        assert hit["signals"] and all({"score", "rank"} <= set(s) for s in hit["signals"].values())
    assert any(55 in h["item_indices"] for h in hits[:3]), [h["chunk_id"] for h in hits]

    code, out, _ = run(
        capsys,
        "search",
        "中芯国际 营收",
        "--json",
        "--type",
        "image",
        "--retriever",
        "rrf",
        "--data-dir",
        str(data_dir),
    )
    assert code == 0
    hits = json.loads(out)
    assert hits and all(h["type"] == "image" for h in hits)

    code, out, _ = run(
        capsys, "search", "产线 工艺节点", "--retriever", "bm25", "--data-dir", str(data_dir)
    )
    assert code == 0
    assert out.splitlines()[0].startswith(" 1. [table] smic_report p5 score=")

    code, out, _ = run(capsys, "delete", "smic_report", "--data-dir", str(data_dir))
    assert (code, out.strip()) == (0, "deleted smic_report")
    code, out, _ = run(capsys, "docs", "--json", "--data-dir", str(data_dir))
    assert json.loads(out) == []
    code, out, _ = run(capsys, "search", "中芯南方", "--json", "--data-dir", str(data_dir))
    assert code == 0 and json.loads(out) == []
    code, _, err = run(capsys, "delete", "smic_report", "--data-dir", str(data_dir))
    assert code == 1 and "no document 'smic_report'" in err


def test_search_filters_by_document(capsys, data_dir: Path) -> None:  # type: ignore[no-untyped-def]
    code, _, _ = run(
        capsys,
        "ingest",
        str(SAMPLE_CONTENT_LIST),
        str(TEST_DATA / "tatqa_like_content_list.json"),
        "--data-dir",
        str(data_dir),
    )
    assert code == 0
    for doc in ("smic_report", "tatqa_like"):
        code, out, _ = run(
            capsys,
            "search",
            "revenue 营收 产能",
            "--json",
            "--doc",
            doc,
            "--retriever",
            "dense",
            "--data-dir",
            str(data_dir),
        )
        assert code == 0
        hits = json.loads(out)
        assert hits and {h["doc_id"] for h in hits} == {doc}


@pytest.mark.parametrize("query", ["", "   ", "\t\n"])
def test_empty_query_exits_2(capsys, data_dir: Path, query: str) -> None:  # type: ignore[no-untyped-def]
    code, out, err = run(capsys, "search", query, "--data-dir", str(data_dir))
    assert code == 2 and out == ""
    assert "the query is empty" in err


def test_unknown_retriever_is_a_usage_error(capsys, data_dir: Path) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(SystemExit) as exit_info:
        main(["search", "x", "--retriever", "magic", "--data-dir", str(data_dir)])
    assert exit_info.value.code == 2


def test_data_dir_from_environment(
    capsys,
    tmp_path: Path,  # type: ignore[no-untyped-def]
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    env_dir = tmp_path / "from-env"
    monkeypatch.setenv("RAG_APP_DATA_DIR", str(env_dir))
    code, _, _ = run(capsys, "ingest", str(TEST_DATA / "tatqa_like_content_list.json"))
    assert code == 0
    assert (env_dir / "catalogue.sqlite").is_file()
    code, out, _ = run(capsys, "docs", "--json")
    assert [d["doc_id"] for d in json.loads(out)] == ["tatqa_like"]
    # the flag wins over the environment
    code, out, _ = run(capsys, "docs", "--json", "--data-dir", str(tmp_path / "other"))
    assert json.loads(out) == []


def test_knowledge_base_flag(capsys, data_dir: Path) -> None:  # type: ignore[no-untyped-def]
    code, _, _ = run(
        capsys,
        "ingest",
        str(TEST_DATA / "qa_examples.csv"),
        "--kb",
        "示例库",
        "--data-dir",
        str(data_dir),
    )
    assert code == 0
    _, out, _ = run(capsys, "docs", "--json", "--data-dir", str(data_dir))
    assert json.loads(out) == []
    _, out, _ = run(capsys, "docs", "--json", "--kb", "示例库", "--data-dir", str(data_dir))
    assert [d["doc_id"] for d in json.loads(out)] == ["qa_examples"]


def test_ingest_reports_rejections_and_warnings(capsys, data_dir: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    bad = tmp_path / "broken_content_list.json"
    bad.write_text("[{", encoding="utf-8")
    code, out, _ = run(
        capsys, "ingest", str(bad), str(TEST_DATA / "qa_examples.csv"), "--data-dir", str(data_dir)
    )
    assert code == 1
    lines = out.splitlines()
    assert lines[0].startswith("rejected  broken_content_list.json: ")
    assert "not valid JSON" in lines[0]
    assert any(
        line.startswith("ingested  qa_examples.csv -> qa_examples: 3 chunks") for line in lines
    )
    assert any("warning: rejected csv row 3" in line for line in lines)


def test_ingest_a_folder_and_nothing_to_ingest(capsys, data_dir: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    empty = tmp_path / "empty-folder"
    empty.mkdir()
    (empty / "notes.txt").write_text("not supported")
    code, _, err = run(capsys, "ingest", str(empty), "--data-dir", str(data_dir))
    assert code == 2 and "nothing to ingest" in err
    folder = tmp_path / "folder"
    folder.mkdir()
    (folder / "a_content_list.json").write_bytes(
        (TEST_DATA / "tatqa_like_content_list.json").read_bytes()
    )
    (folder / "skip.txt").write_text("ignored")
    code, out, _ = run(capsys, "ingest", str(folder), "--data-dir", str(data_dir))
    assert code == 0 and "-> a:" in out


def test_eval_reports_the_metrics(capsys, data_dir: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    details = tmp_path / "eval" / "details.json"
    code, out, err = run(
        capsys,
        "eval",
        "--docs",
        str(SAMPLE_CONTENT_LIST),
        "--questions",
        str(QUESTIONS),
        "--retriever",
        "bm25",
        "--scope",
        "doc",
        "--data-dir",
        str(data_dir),
        "--json",
        str(details),
    )
    assert code == 0, err
    summary = json.loads(out)
    assert set(summary) >= EVAL_KEYS
    assert summary["n_questions"] == 8 and summary["n_rejected"] == 0
    assert summary["n_chunks"] > 0 and summary["ingest_seconds"] >= 0
    assert 0 <= summary["recall@1"] <= summary["recall@5"] <= summary["recall@10"] <= 1
    assert 0 <= summary["mrr@10"] <= summary["recall@10"]
    assert summary["mrr@10"] >= summary["recall@1"]
    assert 0 <= summary["query_ms_p50"] <= summary["query_ms_p95"]
    assert summary["recall@10"] >= 0.5  # bm25 alone finds most of the sample's evidence
    saved = json.loads(details.read_text(encoding="utf-8"))
    assert [q["id"] for q in saved["per_question"]] == [f"q{n}" for n in range(1, 9)]
    # the library it built is usable afterwards
    _, out, _ = run(capsys, "docs", "--json", "--kb", "eval", "--data-dir", str(data_dir))
    assert [d["doc_id"] for d in json.loads(out)] == ["smic_report"]


def test_eval_with_default_retriever_in_a_temporary_library(capsys) -> None:  # type: ignore[no-untyped-def]
    code, out, err = run(
        capsys, "eval", "--docs", str(SAMPLE_CONTENT_LIST), "--questions", str(QUESTIONS)
    )
    assert code == 0, err
    summary = json.loads(out)
    assert set(summary) >= EVAL_KEYS and summary["n_questions"] == 8
    assert all(0 <= summary[k] <= 1 for k in ("recall@1", "recall@5", "recall@10", "mrr@10"))


def test_eval_with_a_malformed_question_file(capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    bad = tmp_path / "questions.jsonl"
    bad.write_text('{"id": "q1", "question": "x"}\n', encoding="utf-8")
    code, _, err = run(capsys, "eval", "--docs", str(SAMPLE_CONTENT_LIST), "--questions", str(bad))
    assert code == 2 and "questions.jsonl:1" in err
