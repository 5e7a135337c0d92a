"""Runs of a question set over a real library (Chroma on disk, the hash embedder): answered and
scored question by question, kept in evals.sqlite with each answer's saved turn, in the
background, cancelled and resumed without asking a question twice, compared and exported."""

from __future__ import annotations

import csv
import io
import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rag_app.answer.scripted import ScriptedLLM
from rag_app.chat.saved_turns import restored_answer, turn_from_json
from rag_app.evals.compare import compare_runs
from rag_app.evals.export import CSV_COLUMNS, csv_bytes, run_json
from rag_app.evals.question_sets import EvalQuestion, read_question_set
from rag_app.evals.runner import EvalRunner, run_now, unknown_documents
from rag_app.evals.store import STALE_S, EvalStore, RunSettings
from rag_app.index.library import Library
from tests.backends import BACKENDS, backend_url
from tests.conftest import SAMPLE_CONTENT_LIST, SAMPLE_DIR, hash_library

SET = SAMPLE_DIR / "eval_set.csv"


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> Library:
    from rag_app.text.tokens import get_token_counter

    folder = tmp_path_factory.mktemp("evals")
    return hash_library(folder, get_token_counter(), [SAMPLE_CONTENT_LIST])


@pytest.fixture(params=BACKENDS)
def url(request: pytest.FixtureRequest) -> str:
    return backend_url(request)


@pytest.fixture
def store(tmp_path: Path, url: str) -> EvalStore:
    return EvalStore.in_dir(tmp_path, url)


@pytest.fixture(autouse=True)
def runners_stopped(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Every runner a test makes is stopped after it: no heartbeat outlives its database."""
    made: list[EvalRunner] = []
    init = EvalRunner.__init__

    def recorded(self: EvalRunner, *args: Any, **kwargs: Any) -> None:
        init(self, *args, **kwargs)
        made.append(self)

    monkeypatch.setattr(EvalRunner, "__init__", recorded)
    yield
    for runner in made:
        runner.stop()


def stop_beating(store: EvalStore, run_id: int | None = None) -> None:
    """What a runner that died leaves: its runs (one, or every one) running without a recent
    heartbeat; written over a connection of its own, as another process would."""
    from rag_app.database import open_database

    db = open_database(store.path, (), store.database_url)
    where, args = (" WHERE id = ?", (run_id,)) if run_id is not None else ("", ())
    db.execute(
        f"UPDATE runs SET status = 'running', heartbeat = ?{where}",
        (time.time() - STALE_S - 1, *args),
    )
    db.close()


def sample_set(store: EvalStore) -> tuple[int, list[EvalQuestion]]:
    questions = read_question_set(SET.read_bytes(), SET.name)
    return store.add_set("sample", questions), questions


def test_a_run_answers_scores_and_keeps_every_question(sample: Library, store: EvalStore) -> None:
    set_id, questions = sample_set(store)
    run_id = store.add_run(set_id, RunSettings(kb="default", mode="hybrid"), len(questions))
    seen: list[int] = []
    assert run_now(store, sample, run_id, progress=lambda p: seen.append(p.done)) == "done"
    assert seen == list(range(1, 21))
    run = store.run(run_id)
    assert run is not None and run.status == "done" and run.n_done == 20 and run.metrics
    m = run.metrics
    assert (m.n, m.n_gold, m.n_expected, m.n_unanswerable) == (20, 17, 17, 3)
    assert 0.0 < m.recall_at_k <= 1.0 and m.latency_ms_p50 and m.routing_right is None
    stored = store.results(run_id, with_turns=True)
    assert [s.result.id for s in stored] == [q.id for q in questions]
    for s in stored:  # every answer can be drawn again as the Ask page drew it
        turn = turn_from_json(s.turn_json)
        answer = restored_answer(turn)
        assert answer.text == s.result.answer and turn.retrieval is not None
        assert turn.options.mode == "hybrid"
    # the unanswerable rows are judged by whether they were declined
    for s in stored:
        if not s.result.answerable:
            assert s.result.passed == s.result.declined


def test_smart_runs_judge_their_routing_against_the_evidence(
    sample: Library, store: EvalStore
) -> None:
    set_id, questions = sample_set(store)
    run_id = store.add_run(set_id, RunSettings(kb="default", mode="smart"), len(questions))
    run_now(store, sample, run_id)
    results = [s.result for s in store.results(run_id)]
    judged = [r for r in results if r.routing_right is not None]
    assert judged and all(r.gold_types for r in judged)
    for r in judged:
        assert r.routing_right == (not r.routing or r.routing in r.gold_types)


def test_rows_naming_documents_the_library_lacks_are_listed(sample: Library) -> None:
    questions = [
        EvalQuestion("1", "a?", document="smic_report"),
        EvalQuestion("2", "b?", document="smic_report_content_list.json"),
        EvalQuestion("3", "c?", document="其他报告.pdf"),
    ]
    assert unknown_documents(questions, sample, "default") == ["其他报告.pdf"]


class GatedLLM(ScriptedLLM):
    """Answers once ``gate`` is set; counts its calls."""

    def __init__(self) -> None:
        super().__init__(default="答案 [Source 1]")
        self.gate = threading.Event()
        self.started = threading.Event()

    def stream(self, request):  # type: ignore[no-untyped-def]
        self.started.set()
        assert self.gate.wait(30)
        yield from super().stream(request)


def _wait_for(store: EvalStore, run_id: int, statuses: tuple[str, ...]) -> str:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        run = store.run(run_id)
        if run is not None and run.status in statuses:
            return run.status
        time.sleep(0.05)
    raise AssertionError(f"run {run_id} never reached {statuses}")


def test_a_background_run_is_cancelled_after_its_question_and_resumed_where_it_stopped(
    sample: Library, store: EvalStore
) -> None:
    set_id, questions = sample_set(store)
    runner = EvalRunner(store, sample)
    llm = GatedLLM()
    run_id = runner.start(set_id, RunSettings(kb="default", mode="hybrid"), llm)
    assert llm.started.wait(30)
    assert store.run(run_id).status == "running"  # type: ignore[union-attr]
    assert runner.cancel(run_id)
    llm.gate.set()
    assert _wait_for(store, run_id, ("cancelled",)) == "cancelled"
    run = store.run(run_id)
    assert run is not None and 1 <= run.n_done < 20 and run.metrics and run.metrics.n == run.n_done
    asked = len(llm.calls)
    assert runner.resume(run_id, llm)
    runner.wait()
    run = store.run(run_id)
    assert run is not None and run.status == "done" and run.n_done == 20
    # the question answered before the cancel is not asked again
    first = questions[0].question
    asking = [c for c in llm.calls if first in c.messages[-1].content]
    assert asked >= 1 and len(asking) == 1 and not runner.resume(run_id)


def test_a_run_whose_process_died_reads_interrupted_and_resumes(
    sample: Library, store: EvalStore
) -> None:
    set_id, questions = sample_set(store)
    run_id = store.add_run(set_id, RunSettings(kb="default", mode="hybrid"), len(questions))
    stop_beating(store, run_id)
    assert store.run(run_id).status == "interrupted"  # type: ignore[union-attr]
    runner = EvalRunner(store, sample)
    assert runner.resume(run_id)
    runner.wait()
    assert store.run(run_id).status == "done"  # type: ignore[union-attr]


def test_a_queued_run_cancelled_before_it_starts_asks_nothing(
    sample: Library, store: EvalStore
) -> None:
    set_id, questions = sample_set(store)
    run_id = store.add_run(set_id, RunSettings(kb="default"), len(questions))
    assert store.request_cancel(run_id)
    llm = ScriptedLLM(default="x")
    assert run_now(store, sample, run_id, llm) == "cancelled"
    assert llm.calls == [] and store.run(run_id).n_done == 0  # type: ignore[union-attr]


def test_two_runs_compared_and_a_run_exported(sample: Library, store: EvalStore) -> None:
    set_id, questions = sample_set(store)
    runner = EvalRunner(store, sample)
    smart = runner.start(set_id, RunSettings(kb="default", mode="smart"))
    hybrid = runner.start(set_id, RunSettings(kb="default", mode="hybrid", top_k=2))
    runner.wait()
    comparison = compare_runs(store, smart, hybrid)
    assert len(comparison.changes) == 20
    order = [c.change for c in comparison.changes]
    assert order == sorted(order, key=("regressed", "improved", "changed", "same").index)
    for change in comparison.changes:
        if change.change == "regressed":
            assert change.before.passed and not change.after.passed
    names = {m.name for m in comparison.metrics}
    assert {"passed", "recall_at_k", "latency_ms_p50"} <= names
    run = store.run(hybrid)
    results = store.results(hybrid)
    exported = run_json(run, results)  # type: ignore[arg-type]
    assert exported["settings"]["top_k"] == 2 and len(exported["questions"]) == 20
    json.dumps(exported, ensure_ascii=False)
    data = csv_bytes(results)
    assert data.startswith("\ufeff".encode())  # Excel reads the Chinese
    rows = list(csv.reader(io.StringIO(data.decode("utf-8-sig"))))
    assert tuple(rows[0]) == CSV_COLUMNS and len(rows) == 21
    assert store.delete_run(hybrid) and store.run(hybrid) is None and store.results(hybrid) == []


def test_a_live_runner_adopts_the_offline_runs_a_restart_left_but_not_a_models(
    sample: Library, store: EvalStore
) -> None:
    set_id, questions = sample_set(store)
    offline = store.add_run(set_id, RunSettings(kb="default", mode="hybrid"), len(questions))
    model = store.add_run(set_id, RunSettings(kb="default", answerer="gpt-x"), len(questions))
    stop_beating(store)
    runner = EvalRunner(store, sample)
    assert runner.adopt() == [offline]
    runner.wait()
    assert store.run(offline).status == "done"  # type: ignore[union-attr]
    assert store.run(model).status == "interrupted"  # type: ignore[union-attr]
    assert runner.adopt() == []  # taken up once


def test_a_users_sets_are_their_own_and_the_shared_ones(store: EvalStore) -> None:
    mine = store.add_set("mine", [EvalQuestion("1", "a?")], user="a@example.com")
    theirs = store.add_set("theirs", [EvalQuestion("1", "b?")], user="b@example.com")
    shared = store.add_set("shared", [EvalQuestion("1", "c?")])
    assert [s[0] for s in store.sets("a@example.com")] == [shared, mine]
    assert [s[0] for s in store.sets()] == [shared, theirs, mine]


def test_a_run_started_behind_one_process_is_seen_and_cancelled_behind_another(
    sample: Library, tmp_path: Path, url: str
) -> None:
    """Two stores over one file, or one shared database: the Evaluate page of one process
    lists, cancels and reads the runs another's runner answers."""
    one, two = EvalStore.in_dir(tmp_path, url), EvalStore.in_dir(tmp_path, url)
    set_id, questions = sample_set(one)
    assert [s[0] for s in two.sets()] == [set_id]
    assert two.question_set(set_id).questions == tuple(questions)  # type: ignore[union-attr]
    run_id = two.add_run(set_id, RunSettings(kb="default", mode="hybrid"), len(questions))
    assert one.run(run_id).status == "queued" and one.runs("default")[0].id == run_id  # type: ignore[union-attr]
    assert run_now(one, sample, run_id, ScriptedLLM(default="x")) == "done"
    done = two.run(run_id)
    assert done is not None and done.n_done == len(questions) and done.metrics is not None
    assert [r.position for r in two.results(run_id)] == list(range(len(questions)))
    assert two.turn(run_id, 1) == one.turn(run_id, 1) != ""
    later = one.add_run(set_id, RunSettings(kb="default"), len(questions))
    assert two.request_cancel(later) and one.cancel_requested(later)
    assert not one.claim(later)  # the cancelled run is taken by no runner
    assert two.delete_run(run_id) and one.run(run_id) is None and one.results(run_id) == []
    one.close(), two.close()
