"""The CLI, run in-process: ingest, docs, search, delete, eval; settings from flags or env.

The embedding model is swapped for the HashEmbedder (monkeypatching ``load_embedder``), so these
tests exercise the CLI's own behaviour quickly; the real model has its own slow tests.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

import rag_app.index.embedder as embedder_module
from rag_app.cli.main import main
from rag_app.config import Settings
from rag_app.index.embedder import HashEmbedder
from rag_app.index.library import Library
from rag_app.ingest import chunk_document, load_path
from rag_app.models import SearchFilter
from rag_app.retrieve import make_retriever
from rag_app.understand.analysis import analyse_query

from .conftest import REAL_CACHE_DIR, SAMPLE_CONTENT_LIST, TEST_DATA

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


@pytest.fixture(scope="module")
def sample_chunks(counter):  # type: ignore[no-untyped-def]
    """The sample's chunks as chunking makes them with the default settings."""
    return chunk_document(load_path(SAMPLE_CONTENT_LIST, 10**9)[0].document, counter)


def _ingest_sample(capsys, data_dir: Path) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = run(capsys, "ingest", str(SAMPLE_CONTENT_LIST), "--data-dir", str(data_dir))
    assert code == 0, out
    assert out.startswith("ingested  smic_report_content_list.json -> smic_report: ")


def test_ingest_docs_search_delete(capsys, data_dir: Path, sample_chunks) -> None:  # type: ignore[no-untyped-def]
    _ingest_sample(capsys, data_dir)

    code, out, _ = run(capsys, "docs", "--json", "--data-dir", str(data_dir))
    assert code == 0
    (doc,) = json.loads(out)
    assert doc["doc_id"] == "smic_report" and doc["pages"] == 7
    assert doc["n_chunks"] == len(sample_chunks)
    assert dict(doc["type_counts"]) == dict(Counter(c.type for c in sample_chunks))

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
    assert [h["rank"] for h in hits] == [1, 2, 3, 4, 5]  # --k 5 of the sample's 41 chunks
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
    # rrf takes dense's list too, which ranks every chunk: all three figures, and nothing else
    assert sorted(h["chunk_id"] for h in hits) == sorted(
        c.chunk_id for c in sample_chunks if c.type == "image"
    )

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
    _, out, _ = run(capsys, "docs", "--json", "--data-dir", str(data_dir))
    n_chunks = {d["doc_id"]: d["n_chunks"] for d in json.loads(out)}
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
        # dense ranks every chunk: the default 10, or all the document has
        assert len(hits) == min(10, n_chunks[doc]) and {h["doc_id"] for h in hits} == {doc}


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


def test_ingest_asks_before_a_different_file_takes_a_used_id(  # type: ignore[no-untyped-def]
    capsys, data_dir: Path, tmp_path: Path
) -> None:
    first, second = tmp_path / "one", tmp_path / "two"
    for folder, word in ((first, "alpha"), (second, "beta")):
        folder.mkdir()
        items = [{"type": "text", "text": f"the {word} figure", "page_idx": 0}]
        (folder / "r_content_list.json").write_text(json.dumps(items))
    path_one, path_two = first / "r_content_list.json", second / "r_content_list.json"
    assert run(capsys, "ingest", str(path_one), "--data-dir", str(data_dir))[0] == 0
    code, out, _ = run(capsys, "ingest", str(path_two), "--data-dir", str(data_dir))
    assert code == 1 and out.startswith("conflict  r_content_list.json -> r: ")
    assert "--replace or --keep-both" in out
    code, out, _ = run(capsys, "ingest", str(path_two), "--keep-both", "--data-dir", str(data_dir))
    assert code == 0 and out.startswith("ingested  r_content_list.json -> r (2): ")
    code, out, _ = run(capsys, "ingest", str(path_two), "--replace", "--data-dir", str(data_dir))
    assert code == 0 and out.startswith("duplicate")  # the same bytes are already r (2)
    (path_two.parent / "r_content_list.json").write_text(
        json.dumps([{"type": "text", "text": "gamma", "page_idx": 3}])
    )
    code, out, _ = run(capsys, "ingest", str(path_two), "--replace", "--data-dir", str(data_dir))
    assert code == 0 and "what changed: pages 1 -> 4" in out
    _, out, _ = run(capsys, "docs", "--json", "--data-dir", str(data_dir))
    # listed under the name the file was kept as, not a second r_content_list.json
    names = {d["doc_id"]: d["name"] for d in json.loads(out)}
    assert names == {"r": "r_content_list.json", "r (2)": "r (2)"}


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


def test_eval_reports_the_metrics(
    capsys, data_dir: Path, tmp_path: Path, sample_chunks, counter
) -> None:  # type: ignore[no-untyped-def]
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
    assert summary["n_chunks"] == len(sample_chunks) and summary["ingest_seconds"] >= 0
    assert (summary["retriever"], summary["scope"]) == ("bm25", "doc")
    assert 0 <= summary["query_ms_p50"] <= summary["query_ms_p95"]
    saved = json.loads(details.read_text(encoding="utf-8"))
    assert [q["id"] for q in saved["per_question"]] == [f"q{n}" for n in range(1, 9)]
    # the library it built is usable afterwards
    _, out, _ = run(capsys, "docs", "--json", "--kb", "eval", "--data-dir", str(data_dir))
    assert [d["doc_id"] for d in json.loads(out)] == ["smic_report"]

    # Each question's rank, found here by asking the bm25 retriever of the library the eval
    # built, limited to the question's document: the rank of the first hit holding a gold item.
    library = Library(
        Settings(data_dir=data_dir, cache_dir=REAL_CACHE_DIR), HashEmbedder(), counter=counter
    )
    retriever = make_retriever("bm25", library, "eval")
    ranks = {}
    for line in QUESTIONS.read_text(encoding="utf-8").splitlines():
        question = json.loads(line)
        hits = retriever.retrieve(
            analyse_query(question["question"]), 10, SearchFilter(doc_ids=(question["doc_id"],))
        )
        gold = set(question["gold_item_indices"])
        ranks[question["id"]] = next(
            (n for n, h in enumerate(hits, 1) if gold & set(h.chunk.item_indices)), None
        )
    assert sum(r is not None for r in ranks.values()) >= 6  # bm25 finds most of the evidence
    saved_ranks = {q["id"]: q["rank"] for q in saved["per_question"]}
    assert {q: (r if r is not None and r <= 10 else None) for q, r in saved_ranks.items()} == ranks
    for at in (1, 5, 10):
        found = sum(r is not None and r <= at for r in ranks.values())
        assert summary[f"recall@{at}"] == round(found / 8, 4), at
    assert summary["mrr@10"] == round(sum(1 / r for r in ranks.values() if r) / 8, 4)


def test_eval_with_default_retriever_in_a_temporary_library(
    capsys, tmp_path: Path, sample_chunks
) -> None:  # type: ignore[no-untyped-def]
    code, out, err = run(
        capsys, "eval", "--docs", str(SAMPLE_CONTENT_LIST), "--questions", str(QUESTIONS)
    )
    assert code == 0, err
    summary = json.loads(out)
    assert set(summary) >= EVAL_KEYS and summary["n_questions"] == 8
    assert (summary["retriever"], summary["scope"]) == ("hybrid", "pooled")
    assert summary["n_chunks"] == len(sample_chunks) and summary["n_rejected"] == 0
    # the library lived in a temporary folder, gone afterwards; the data dir was not touched
    (folder,) = re.findall(r"ingesting 1 documents into (\S+)", err)
    assert Path(folder).name.startswith("rag_app_eval_") and not Path(folder).exists()
    assert not (tmp_path / "env-data-dir").exists()


def test_eval_asks_a_row_with_history_as_the_chat_does(capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    rows = [
        {
            "id": "f1",
            "question": "那2026年呢？",
            "history": [
                {"role": "user", "content": "中芯国际2025年的毛利率预测是多少？"},
                {"role": "assistant", "content": "21.8% [Source 1]"},
            ],
            "answer": "23.5",
            "doc_id": "smic_report",
            "gold_item_indices": [9],
        },
        {
            "id": "f2",
            "question": "中芯国际2026年预测市盈率是多少？",
            "answer": "106.2",
            "doc_id": "smic_report",
            "gold_item_indices": [9],
        },
    ]
    questions = tmp_path / "followups.jsonl"
    questions.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    details = tmp_path / "details.json"
    code, out, err = run(
        capsys,
        "eval",
        "--docs",
        str(SAMPLE_CONTENT_LIST),
        "--questions",
        str(questions),
        "--json",
        str(details),
    )
    assert code == 0, err
    first, second = json.loads(details.read_text(encoding="utf-8"))["per_question"]
    assert first["standalone"] == "中芯国际2026年的毛利率预测是多少？" and first["rank"] == 1
    assert "standalone" not in second  # rows without history behave as before
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({**rows[0], "history": [{"role": "system", "content": "x"}]}) + "\n")
    code, _, err = run(capsys, "eval", "--docs", str(SAMPLE_CONTENT_LIST), "--questions", str(bad))
    assert code == 2 and "bad.jsonl:1" in err and "role of user or assistant" in err


def test_eval_with_a_malformed_question_file(capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    bad = tmp_path / "questions.jsonl"
    bad.write_text('{"id": "q1", "question": "x"}\n', encoding="utf-8")
    code, _, err = run(capsys, "eval", "--docs", str(SAMPLE_CONTENT_LIST), "--questions", str(bad))
    assert code == 2 and "questions.jsonl:1" in err


def test_check_finds_missing_vectors_and_repair_restores_them(capsys, data_dir: Path) -> None:  # type: ignore[no-untyped-def]
    _ingest_sample(capsys, data_dir)
    code, out, _ = run(capsys, "check", "--data-dir", str(data_dir))
    assert code == 0 and out.strip().splitlines()[-1].startswith("consistent"), out

    library = Library(Settings(data_dir=data_dir), embedder=HashEmbedder())
    gone = sorted(library.catalogue.chunk_owners("default"))[:3]
    library.store.delete_ids("default", gone)
    code, out, err = run(capsys, "check", "--data-dir", str(data_dir))
    assert code == 1 and "smic_report: 3 of its vectors are missing" in out
    assert "1 problems remain" in out and "check --repair" in err

    code, out, _ = run(capsys, "check", "--repair", "--data-dir", str(data_dir))
    assert code == 0 and "re-embedded 3 missing vectors" in out, out
    code, out, _ = run(capsys, "check", "--json", "--kb", "default", "--data-dir", str(data_dir))
    report = json.loads(out)
    assert code == 0 and report["consistent"] and report["problems"] == []
    (kb,) = report["knowledge_bases"]
    assert kb["kb"] == "default" and kb["chunks"] == kb["vectors"] > 0

    code, _, err = run(capsys, "check", "--kb", "absent", "--data-dir", str(data_dir))
    assert code == 2 and "no knowledge base named 'absent'" in err


def test_eval_answers_adds_each_answer_and_tatqa_scores(
    capsys, data_dir: Path, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    """``eval --answers``: each row's offline answer, its short answer and scale, and TAT-QA's
    exact match and F1 over the questions with gold answers, overall and per answer type."""
    questions = tmp_path / "q.jsonl"
    rows = [
        ("a1", "What was the change in Freight revenue from 2018 to 2019?", 2225, "arithmetic"),
        ("a2", "What was Freight revenue in 2019?", ["$ 12,340"], "span"),
        ("a3", "What was Warehousing revenue in 2019?", ["4,999"], "span"),
    ]
    questions.write_text(
        "".join(
            json.dumps(
                {
                    "id": qid,
                    "question": text,
                    "answer": answer,
                    "answer_type": kind,
                    "scale": "thousand",
                    "doc_id": "tatqa_like",
                    "gold_item_indices": [3],
                }
            )
            + "\n"
            for qid, text, answer, kind in rows
        ),
        encoding="utf-8",
    )
    details = tmp_path / "details.json"
    code, out, err = run(
        capsys,
        "eval",
        "--docs",
        str(TEST_DATA / "tatqa_like_content_list.json"),
        "--questions",
        str(questions),
        "--scope",
        "doc",
        "--answers",
        "--data-dir",
        str(data_dir),
        "--json",
        str(details),
    )
    assert code == 0, err
    summary = json.loads(out)
    assert set(summary) >= EVAL_KEYS
    by_id = {row["id"]: row for row in json.loads(details.read_text())["per_question"]}
    assert set(by_id["a1"]["answer"]) == {"text", "short", "scale", "em", "f1"}
    assert (by_id["a1"]["answer"]["short"], by_id["a1"]["answer"]["scale"]) == ("2225", "thousand")
    assert by_id["a1"]["answer"]["em"] == 1.0 and by_id["a2"]["answer"]["em"] == 1.0
    assert by_id["a3"]["answer"]["em"] == 0.0  # 4,210 is not the gold 4,999
    answers = summary["answers"]
    assert answers["n"] == 3 and answers["em"] == pytest.approx(66.67)
    assert answers["by_type"]["arithmetic"] == {"n": 1, "em": 100.0, "f1": 100.0}
