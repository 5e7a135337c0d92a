"""The audit log: one record per answer, from the pipeline whoever calls it, filtered and
pruned, and never a key (a real SQLite file in tmp_path, and the shared PostgreSQL database:
tests/backends.py; the scripted LLM, the sample library)."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from rag_app.answer.base import LLMError
from rag_app.answer.scripted import ScriptedLLM, ScriptedResponse
from rag_app.chat.audit import AuditLog, record_of, scrub
from rag_app.cli.main import main
from rag_app.index.library import Library
from rag_app.models import AskOptions
from rag_app.pipeline.ask import Pipeline
from rag_app.prompt import Turn
from tests.backends import BACKENDS, backend_url
from tests.conftest import SAMPLE_CONTENT_LIST, hash_library

QUESTION = "中芯国际2026年预测市盈率是多少？"
OPTIONS = AskOptions(kb="default", mode="hybrid", user="analyst")
KEY = "sk-canary-0123456789abcdef"
CONTRACT = {"time", "kb", "question", "mode", "standalone_question", "hits", "timings"}
CONTRACT |= {"answerer", "error"}


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory, counter) -> Library:  # type: ignore[no-untyped-def]
    return hash_library(tmp_path_factory.mktemp("audit"), counter, [SAMPLE_CONTENT_LIST])


@pytest.fixture(params=BACKENDS)
def url(request: pytest.FixtureRequest) -> str:
    return backend_url(request)


@pytest.fixture
def log(tmp_path: Path, url: str) -> AuditLog:
    return AuditLog.in_dir(tmp_path / "data", database_url=url)


def written(log: AuditLog, folder: Path) -> bytes:
    """Everything the log stored: its folder's files, or the shared database's rows."""
    if not log.database_url:
        return b"".join(p.read_bytes() for p in folder.rglob("*") if p.is_file())
    from rag_app.database.postgres import PgConnection

    db = PgConnection(log.database_url)
    rows = db.execute("SELECT records::text FROM records").fetchall()
    rows += db.execute("SELECT feedback::text FROM feedback").fetchall()
    db.close()
    return "\n".join(str(r[0]) for r in rows).encode()


def test_every_answer_is_recorded_with_what_was_retrieved_and_what_answered(
    sample: Library, log: AuditLog
) -> None:
    pipeline = Pipeline(sample.settings, sample, audit=log, client="cli")
    answer = pipeline.ask(QUESTION, OPTIONS)
    (record,) = log.records()
    assert CONTRACT <= set(record.to_json())
    assert record.question == QUESTION and record.kb == "default" and record.mode == "hybrid"
    assert record.user == "analyst" and record.client == "cli"
    assert [h.chunk_id for h in record.hits] == [h.chunk.chunk_id for h in answer.hits]
    assert record.hits[0].score == round(answer.hits[0].score, 4)
    assert record.prompt_tokens == answer.prompt.report.prompt_tokens > 0
    assert record.answerer == answer.answerer and record.error == ""
    assert set(record.timings) >= {"retrieve_ms", "prompt_ms", "generate_ms", "total_ms"}
    assert record.answer_chars == len(answer.text)


def test_a_failed_provider_is_recorded_with_its_error_and_never_its_key(
    sample: Library, log: AuditLog, tmp_path: Path
) -> None:
    failure = LLMError("auth", f"Incorrect API key provided: {KEY}. Bearer {KEY}")
    llm = ScriptedLLM(ScriptedResponse(error=failure), name="provider-model")
    answer = Pipeline(sample.settings, sample, llm, audit=log).ask(QUESTION, OPTIONS)
    assert answer.error and answer.fallback_from == "provider-model"
    (record,) = log.records()
    assert record.error_kind == "auth" and "Incorrect API key provided" in record.error
    assert record.fallback_from == "provider-model" and record.model == "provider-model"
    log.close()
    stored = written(log, tmp_path / "data")
    assert b"provider-model" in stored  # the record is there, its key is not
    assert KEY.encode() not in stored and b"sk-canary" not in stored


def test_a_cited_sentence_off_the_question_is_recorded_with_why(
    sample: Library, log: AuditLog
) -> None:
    # the model quotes the 2025E P/E for a question on 2026: supported, but off the question
    llm = ScriptedLLM(ScriptedResponse(text="中芯国际2025年预测市盈率为132.0倍。[Source 1]"))
    answer = Pipeline(sample.settings, sample, llm, audit=log).ask(
        "中芯国际2026年预测市盈率是多少？", OPTIONS
    )
    (record,) = log.records()
    assert answer.citations is not None and answer.citations.off_question
    assert record.off_question and "2026" in record.off_question[0], record.off_question
    assert record.revisions == ()  # Self-RAG is off by default


def test_a_log_that_cannot_be_written_never_costs_the_answer(
    sample: Library, log: AuditLog
) -> None:
    log.close()
    answer = Pipeline(sample.settings, sample, audit=log).ask(QUESTION, OPTIONS)
    assert answer.text and not answer.error


def test_records_filter_by_kb_time_user_and_words_newest_first(
    sample: Library, log: AuditLog
) -> None:
    answer = Pipeline(sample.settings, sample).ask(QUESTION, OPTIONS)
    base = record_of(answer, OPTIONS)
    now = datetime.now(UTC)
    for n, (kb, user, days) in enumerate(
        [("a", "u1", 10), ("a", "u2", 5), ("b", "u1", 1), ("b", "u1", 0)]
    ):
        when = (now - timedelta(days=days)).isoformat(timespec="milliseconds")
        log.add(replace(base, kb=kb, user=user, time=when, question=f"问题{n} margin"))
    assert [r.question for r in log.records()] == [
        "问题3 margin",
        "问题2 margin",
        "问题1 margin",
        "问题0 margin",
    ]
    assert [r.question for r in log.records(kb="a")] == ["问题1 margin", "问题0 margin"]
    assert len(log.records(user="u1")) == 3
    since = (now - timedelta(days=6)).date().isoformat()
    assert [r.question for r in log.records(since=since)] == [
        "问题3 margin",
        "问题2 margin",
        "问题1 margin",
    ]
    assert [r.question for r in log.records(contains="问题2")] == ["问题2 margin"]
    assert len(log.records(limit=2)) == 2
    with pytest.raises(ValueError, match="not an ISO time"):
        log.records(since="last tuesday")
    assert log.prune(now - timedelta(days=3)) == 2
    assert [r.kb for r in log.records()] == ["b", "b"]


def test_records_older_than_the_retention_are_pruned_on_open(
    sample: Library, tmp_path: Path, url: str
) -> None:
    answer = Pipeline(sample.settings, sample).ask(QUESTION, OPTIONS)
    old = (datetime.now(UTC) - timedelta(days=100)).isoformat(timespec="milliseconds")
    log = AuditLog.in_dir(tmp_path / "d", retention_days=0, database_url=url)
    old_id = log.add(replace(record_of(answer, OPTIONS), time=old))
    log.add(record_of(answer, OPTIONS))
    assert log.give_feedback(old_id, -1, "stale")
    log.close()
    kept = AuditLog.in_dir(tmp_path / "d", retention_days=0, database_url=url).records()
    assert len(kept) == 2 and kept[1].feedback is not None  # 0 keeps all
    assert len(AuditLog.in_dir(tmp_path / "d", retention_days=90, database_url=url).records()) == 1
    # the pruned record's feedback went with it
    assert AuditLog.in_dir(tmp_path / "d", 0, url).records(rated=0) == []


def test_scrub_removes_anything_shaped_like_a_key() -> None:
    text = (
        f"401: key {KEY}; url http://h/v1?api_key=abc123secret; Authorization: Bearer tok_abcdef12"
    )
    cleaned = scrub(text)
    assert KEY not in cleaned and "abc123secret" not in cleaned and "tok_abcdef12" not in cleaned
    assert cleaned.startswith("401: key [redacted]")
    assert scrub("毛利率为21.8%，sk 不是密钥") == "毛利率为21.8%，sk 不是密钥"


def test_the_cli_prints_the_log_as_a_table_and_as_json(
    sample: Library, capsys: pytest.CaptureFixture[str], url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    data_dir = str(sample.settings.data_dir)
    if url:  # the CLI reads the shared database RAG_APP_DATABASE_URL names
        monkeypatch.setenv("RAG_APP_DATABASE_URL", url)
    else:
        monkeypatch.delenv("RAG_APP_DATABASE_URL", raising=False)
    log = AuditLog.in_dir(sample.settings.data_dir, database_url=url)
    answer = Pipeline(sample.settings, sample).ask(QUESTION, OPTIONS)
    log.add(record_of(answer, OPTIONS, client="cli"))
    log.add(replace(record_of(answer, OPTIONS), kb="other", question="another question"))
    assert main(["audit", "--data-dir", data_dir, "--json", "--kb", "default"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["question"] for r in rows] == [QUESTION] and CONTRACT <= set(rows[0])
    assert rows[0]["hits"][0]["chunk_id"] == answer.hits[0].chunk.chunk_id
    assert main(["audit", "--data-dir", data_dir, "--limit", "1"]) == 0
    out = capsys.readouterr().out
    assert "another question" in out and QUESTION not in out and "hybrid" in out
    assert main(["audit", "--data-dir", data_dir, "--since", "yesterday"]) == 2
    assert "not an ISO time" in capsys.readouterr().err


def test_a_record_keeps_the_answer_its_understanding_and_each_sentences_verdict(
    sample: Library, log: AuditLog
) -> None:
    """Was a gap: a record kept the answer's length and its flagged sentences only, so the Audit
    page could not show the answer, its citations or whether each was about the question; and
    an answer off the question counted 0 flagged sentences."""
    # a follow-up answered with the 2025E P/E: supported by its source (the forecast table is
    # [Source 6] of this library's prompt), off the 2026 question
    llm = ScriptedLLM(
        "中芯国际2026年预测市盈率是多少？",  # the model's rewrite of the follow-up
        "中芯国际2025年预测市盈率为132.0倍。[Source 6]",
    )
    answer = Pipeline(sample.settings, sample, llm, audit=log).ask(
        "那2026年呢？", OPTIONS, [Turn("中芯国际2025年预测市盈率是多少？", "132.0倍 [Source 1]")]
    )
    (record,) = log.records()  # read back from the log's JSON
    assert answer.citations is not None and answer.understood is not None
    assert record.answer == answer.text and record.understood == answer.understood
    assert record.checked and record.relevance_checked
    assert [(s.text, s.cited, s.supported, s.relevant) for s in record.sentences] == [
        (s.text, s.cited, s.supported, s.relevant) for s in answer.citations.sentences
    ]
    assert record.sentences[0].supported and not record.sentences[0].relevant
    assert not record.flagged and record.doubtful == 1  # off the question, as the Ask page marks
    assert record.sources[0].chunk_id == answer.prompt.sources[0].hit.chunk.chunk_id
    again = record.restored_answer()
    assert again.text == answer.text and again.understood == answer.understood
    assert [s.off_reasons for s in again.citations.sentences] == [
        s.off_reasons for s in answer.citations.sentences
    ]


def test_a_record_written_before_answers_were_kept_still_loads(log: AuditLog) -> None:
    old = {
        "time": datetime.now(UTC).isoformat(timespec="milliseconds"),
        "user": "local",
        "kb": "default",
        "client": "app",
        "mode": "smart",
        "question": "旧问题",
        "standalone_question": "旧问题",
        "detected_type": "table",
        "hits": [{"chunk_id": "c", "doc_id": "d", "type": "table", "score": 1.0, "strategy": "x"}],
        "prompt_tokens": 10,
        "answerer": "offline-extractive",
        "model": "offline-extractive",
        "timings": {"total_ms": 5.0},
        "flagged": ["甲句。"],
        "off_question": ["甲句。: 2025E", "乙句。: 2025E, the question asks 2026年"],
        "answer_chars": 12,
        "retired_field": 1,
    }
    log._db.execute(
        'INSERT INTO records (time, "user", kb, client, payload) VALUES (?, ?, ?, ?, ?)',
        (old["time"], "local", "default", "app", json.dumps(old, ensure_ascii=False)),
    )
    (record,) = log.records()
    assert record.question == "旧问题" and record.hits[0].chunk_id == "c"
    assert record.answer == "" and record.sentences == () and record.understood is None
    assert record.doubtful == 2  # 甲 once (unsupported and off), 乙
    assert record.restored_answer().citations is None


def test_a_key_in_the_answer_is_not_kept(sample: Library, log: AuditLog, tmp_path: Path) -> None:
    llm = ScriptedLLM(
        ScriptedResponse(text=f"密钥是 {KEY}。中芯国际2026年预测市盈率为106.2倍。[Source 1]")
    )
    Pipeline(sample.settings, sample, llm, audit=log).ask(QUESTION, OPTIONS)
    (record,) = log.records()
    assert "[redacted]" in record.answer and KEY not in json.dumps(record.to_json())
    log.close()
    stored = written(log, tmp_path / "data")
    assert b"[redacted]" in stored and KEY.encode() not in stored


def test_feedback_on_an_answer_is_kept_filtered_and_made_an_evaluation_row(
    sample: Library, log: AuditLog, tmp_path: Path
) -> None:
    """Issue 27: a 👍 or 👎 with a note names the answer's audit record; the Audit page filters
    by it; rated answers become rows `rag-app eval` reads."""
    from rag_app.chat.feedback_rows import feedback_rows, jsonl_bytes
    from rag_app.evaluation.evaluate import load_questions

    pipeline = Pipeline(sample.settings, sample, audit=log, client="app")
    good = pipeline.ask(QUESTION, OPTIONS)
    bad = pipeline.ask("中芯国际2024年的毛利率是多少？", OPTIONS)
    pipeline.ask("中芯国际的总部在哪里？", OPTIONS)  # not rated
    assert good.audit_id and bad.audit_id and good.audit_id != bad.audit_id
    assert log.give_feedback(good.audit_id, 1, user="analyst")
    assert log.give_feedback(bad.audit_id, -1, f"应为18.6% {KEY}", user="analyst")
    assert not log.give_feedback(99999, 1)  # no such record
    with pytest.raises(ValueError):
        log.give_feedback(good.audit_id, 5)
    assert len(log.records()) == 3
    assert [r.id for r in log.records(rated=0)] == [bad.audit_id, good.audit_id]
    (down,) = log.records(rated=-1)
    assert down.feedback is not None and down.feedback.note == "应为18.6% [redacted]"  # scrubbed
    assert log.give_feedback(bad.audit_id, 1)  # changed: the latest verdict counts
    assert [r.id for r in log.records(rated=-1)] == []
    log.give_feedback(bad.audit_id, -1, "应为18.6%")

    rows = feedback_rows(log.records(), sample.chunks)
    assert [r["rating"] for r in rows] == ["down", "up"]
    assert rows[0]["answer"] == "应为18.6%" and rows[0]["gold_item_indices"] == []
    assert rows[1]["question"] == QUESTION and rows[1]["doc_id"] and rows[1]["gold_item_indices"]
    assert "106.2" in str(rows[1]["answer"])  # what the 👍 confirmed
    path = tmp_path / "feedback.jsonl"
    path.write_bytes(jsonl_bytes(rows))
    assert [q.question for q in load_questions(path)][1] == QUESTION  # eval reads them


def test_a_joined_table_source_keeps_its_parts_ids(sample: Library, log: AuditLog) -> None:
    """A table split into sub-tables is one source in the prompt: its record keeps the parts'
    ids, so the Audit page marks their hits as in the prompt under its number."""
    answer = Pipeline(sample.settings, sample, audit=log).ask(
        "2019Q1至2024Q4中芯国际季度营业收入", OPTIONS
    )
    joined = [s for s in answer.prompt.sources if len(s.parts) > 1]
    assert joined, [s.hit.chunk.chunk_id for s in answer.prompt.sources]
    (record,) = log.records()
    kept = {s.number: s.part_ids for s in record.sources}
    for source in joined:
        assert kept[source.number] == tuple(p.chunk.chunk_id for p in source.parts)
    assert all(not s.part_ids for s in record.sources if s.number not in {j.number for j in joined})


def test_a_second_process_lists_the_records_and_feedback_another_wrote(
    sample: Library, tmp_path: Path, url: str
) -> None:
    """Two logs over one file, or one shared database: two processes behind a load balancer."""
    one = AuditLog.in_dir(tmp_path / "data", database_url=url)
    two = AuditLog.in_dir(tmp_path / "data", database_url=url)
    answer = Pipeline(sample.settings, sample, audit=one, client="api").ask(QUESTION, OPTIONS)
    (seen,) = two.records()
    assert seen.id == answer.audit_id and seen.client == "api" and seen.feedback is None
    assert two.give_feedback(seen.id, -1, "wrong year", user="analyst")
    (rated,) = one.records(rated=-1)
    assert rated.feedback is not None and rated.feedback.note == "wrong year"
    assert one.give_feedback(seen.id, 1)  # the latest verdict counts, whichever wrote it
    assert two.records(rated=-1) == [] and len(two.records(rated=1)) == 1
    one.close(), two.close()
