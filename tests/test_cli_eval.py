"""``rag-app eval`` over the product's question sets: with --docs the retrieval evaluation reads a
set's .csv / .xlsx / .json / .jsonl (rows it cannot use listed with the reason, the JSON keys as
before); without --docs a run on a knowledge base of the data dir, saved to evals.sqlite as the
Evaluate page saves it. The embedding model is the HashEmbedder, as in test_cli.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rag_app.evals.question_sets import question_rows, read_question_set
from rag_app.evals.store import EvalStore

from .conftest import SAMPLE_CONTENT_LIST, SAMPLE_DIR
from .test_cli import EVAL_KEYS as CLI_EVAL_KEYS
from .test_cli import hash_embedder, run  # noqa: F401 - the embedder, autouse here too

SAMPLE_SET = SAMPLE_DIR / "eval_set.csv"
# The keys other tools read from `rag-app eval --docs` (tests/test_cli.py's EVAL_KEYS, and more).
EVAL_KEYS = CLI_EVAL_KEYS | {"n_documents", "n_rejected", "retriever", "scope"}


def sample_rows() -> list[dict[str, object]]:
    return question_rows(read_question_set(SAMPLE_SET.read_bytes(), SAMPLE_SET.name))


@pytest.mark.parametrize("suffix", [".csv", ".xlsx", ".json", ".jsonl"])
def test_a_question_set_in_each_format_is_measured_with_docs(
    capsys, tmp_path: Path, suffix: str
) -> None:  # type: ignore[no-untyped-def]
    rows = sample_rows()
    path = tmp_path / f"set{suffix}"
    if suffix == ".csv":
        path.write_bytes(SAMPLE_SET.read_bytes())
    elif suffix == ".json":
        path.write_text(json.dumps(rows, ensure_ascii=False), encoding="utf-8")
    elif suffix == ".jsonl":
        path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    else:
        from openpyxl import Workbook

        book = Workbook()
        sheet = book.active
        sheet.append(["id", "question", "expected", "document", "item", "answerable"])
        for r in rows:
            items = ", ".join(str(i) for i in r.get("gold_item_indices", []))  # type: ignore[attr-defined]
            answerable = "false" if r.get("answerable") is False else ""
            sheet.append(
                [r["id"], r["question"], str(r.get("answer", "")), r.get("document", ""), items,
                 answerable]
            )  # fmt: skip
        book.save(path)
    details = tmp_path / "details.json"
    code, out, err = run(
        capsys, "eval", "--docs", str(SAMPLE_CONTENT_LIST), "--questions", str(path),
        "--json", str(details),
    )  # fmt: skip
    assert code == 0, err
    summary = json.loads(out)
    assert set(summary) >= EVAL_KEYS and (summary["retriever"], summary["scope"]) == (
        "hybrid",
        "pooled",
    )
    # every row is usable: 17 with their document's items, 3 unanswerable ones
    assert (summary["n_questions"], summary["n_skipped"]) == (20, 0)
    assert summary["n_unanswerable"] == 3 and summary["recall@10"] > 0.5
    saved = json.loads(details.read_text(encoding="utf-8"))
    assert [q["id"] for q in saved["per_question"]][:2] == ["e01", "e02"]
    assert saved["skipped"] == []


def test_rows_that_cannot_be_measured_are_named_with_the_reason(capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "mixed.csv"
    path.write_text(
        "id,question,expected,document,page,item\n"
        "ok,中芯国际2026年预测市盈率是多少？,106.2,smic_report_content_list.json,1,9\n"
        "nodoc,中芯国际的投资评级是什么？,买入,,,10\n"
        "pages,中芯南方（SN1）采用什么工艺节点？,14nmFinFET,smic_report,5,\n"
        "other,华虹的毛利率是多少？,,hua_hong,1,3\n",
        encoding="utf-8",
    )
    details = tmp_path / "details.json"
    code, out, err = run(
        capsys, "eval", "--docs", str(SAMPLE_CONTENT_LIST), "--questions", str(path),
        "--retriever", "bm25", "--scope", "doc", "--json", str(details),
    )  # fmt: skip
    assert code == 0, err
    summary = json.loads(out)
    assert (summary["n_questions"], summary["n_skipped"], summary["scope"]) == (1, 3, "doc")
    assert "row nodoc cannot be used: it names no document" in err
    assert "row pages cannot be used: its gold is pages only" in err
    assert "row other cannot be used: its document 'hua_hong' is not among the --docs" in err
    skipped = json.loads(details.read_text(encoding="utf-8"))["skipped"]
    assert [s["id"] for s in skipped] == ["nodoc", "pages", "other"]

    path.write_text("question\n中芯国际的投资评级是什么？\n", encoding="utf-8")
    code, _, err = run(capsys, "eval", "--docs", str(SAMPLE_CONTENT_LIST), "--questions", str(path))
    assert code == 2 and "no row of" in err and "names no document" in err
    bad = tmp_path / "set.pdf"
    bad.write_bytes(b"%PDF")
    code, _, err = run(capsys, "eval", "--docs", str(SAMPLE_CONTENT_LIST), "--questions", str(bad))
    assert code == 2 and "set.pdf" in err and ".pdf is not a question set" in err
    code, _, err = run(
        capsys, "eval", "--docs", str(SAMPLE_CONTENT_LIST), "--questions", str(SAMPLE_SET),
        "--top-k", "5",
    )  # fmt: skip
    assert code == 2 and "--top-k is for a run on a knowledge base" in err


def test_a_run_on_a_knowledge_base_is_saved_for_the_evaluate_page(capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    data = tmp_path / "data"
    code, _, err = run(
        capsys, "ingest", str(SAMPLE_CONTENT_LIST), "--kb", "研报", "--data-dir", str(data)
    )
    assert code == 0, err
    exported = tmp_path / "out" / "run.json"
    code, out, err = run(
        capsys, "eval", "--kb", "研报", "--questions", str(SAMPLE_SET), "--data-dir", str(data),
        "--json", str(exported),
    )  # fmt: skip
    assert code == 0, err
    summary = json.loads(out)
    assert (summary["status"], summary["n_done"], summary["n_total"]) == ("done", 20, 20)
    assert summary["settings"] == {
        "kb": "研报",
        "mode": "smart",
        "prompt_mode": "advanced",
        "top_k": None,
        "scope": "kb",
        "answerer": "offline",
    }
    metrics = summary["metrics"]
    assert metrics["n"] == 20 and metrics["passed"] >= 0.5 and metrics["n_unanswerable"] == 3
    assert "questions: 20/20" in err and "run 1: 20 questions on '研报'" in err
    assert "questions" not in summary  # the results are in --json and in the store
    whole = json.loads(exported.read_text(encoding="utf-8"))
    assert len(whole["questions"]) == 20 and whole["metrics"] == metrics

    store = EvalStore.in_dir(data)
    try:
        (saved,) = store.runs(kb="研报")
        assert (saved.id, saved.status, saved.user, saved.set_name) == (
            summary["id"],
            "done",
            "cli",
            "eval_set.csv",
        )
        assert len(store.results(saved.id)) == 20
    finally:
        store.close()

    code, out, err = run(
        capsys, "eval", "--kb", "研报", "--questions", str(SAMPLE_SET), "--data-dir", str(data),
        "--retriever", "hybrid", "--scope", "doc", "--prompt-mode", "simple", "--top-k", "5",
    )  # fmt: skip
    assert code == 0, err
    settings = json.loads(out)["settings"]
    assert (settings["mode"], settings["scope"], settings["prompt_mode"], settings["top_k"]) == (
        "hybrid",
        "doc",
        "simple",
        5,
    )


def test_a_run_refuses_what_it_cannot_do(capsys, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    data = tmp_path / "data"
    code, _, err = run(capsys, "ingest", str(SAMPLE_CONTENT_LIST), "--data-dir", str(data))
    assert code == 0, err
    base = ("eval", "--questions", str(SAMPLE_SET), "--data-dir", str(data))
    code, _, err = run(capsys, *base, "--kb", "nope")
    assert code == 2 and "no knowledge base 'nope'" in err
    code, _, err = run(capsys, *base, "--retriever", "bm25")
    assert code == 2 and "--retriever bm25 measures retrieval only" in err
    code, _, err = run(capsys, *base, "--answers")
    assert code == 2 and "--answers is for the retrieval evaluation" in err
    code, _, err = run(capsys, *base, "--k", "5")
    assert code == 2 and "--top-k" in err
    monkeypatch.delenv("RAG_APP_MODEL", raising=False)
    code, _, err = run(capsys, *base, "--answerer", "model")
    assert code == 2 and "RAG_APP_MODEL" in err
    twice = tmp_path / "twice.csv"
    twice.write_text("id,question\na,x\na,y\n", encoding="utf-8")
    code, _, err = run(capsys, "eval", "--questions", str(twice), "--data-dir", str(data))
    assert code == 2 and "twice.csv: the id a is given twice" in err
    elsewhere = tmp_path / "elsewhere.csv"
    elsewhere.write_text("question,document,item\n华虹的毛利率是多少？,hua_hong,3\n")
    code, out, err = run(capsys, "eval", "--questions", str(elsewhere), "--data-dir", str(data))
    assert code == 0 and "holds no document 'hua_hong'" in err
    assert json.loads(out)["metrics"]["n"] == 1
