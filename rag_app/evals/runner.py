"""Runs of a question set through the pipeline, in the background.

``EvalRunner`` keeps one worker thread per process: runs queue and are answered one at a time
(two at once on two cores would only make each slower). Each question is asked as the Ask page
asks it (``Pipeline.ask`` with the run's mode, prompt mode and top-k, its conversation as
history), scored (``scoring.score_answer``) and stored with its answer as a saved turn before the
next one starts: a reload loses nothing, a cancel stops after the question at hand, and a run
whose process died is resumed from where it stopped. ``run_now`` answers a run in the caller's
thread (the CLI).
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass

from rag_app.answer import LLM
from rag_app.chat.saved_turns import saved_turn, turn_to_json
from rag_app.evals.question_sets import EvalQuestion
from rag_app.evals.scoring import QuestionResult, gold_chunk, run_metrics, score_answer
from rag_app.evals.store import HEARTBEAT_S, EvalStore, RunSettings
from rag_app.index.library import Library
from rag_app.models import AskOptions, Chunk
from rag_app.pipeline.ask import Pipeline
from rag_app.prompt import Turn

_log = logging.getLogger(__name__)
# Questions of one run answered at once: the encoder and the token counter leave Python's lock
# while they work, so a second question proceeds on the other core (of this machine's two).
WORKERS = 2


@dataclass(frozen=True)
class RunProgress:
    run_id: int
    done: int
    total: int


def document_ids(library: Library, kb: str) -> dict[str, str]:
    """How a row may name a document (its id, its name, its name without the suffix and
    MinerU's ``_content_list``), folded, to its id."""
    out: dict[str, str] = {}
    for doc in library.documents(kb):
        for name in (doc.doc_id, doc.name):
            out[name.casefold()] = doc.doc_id
            stem = name.rsplit(".", 1)[0] if "." in name else name
            out[stem.casefold()] = doc.doc_id
            out[stem.removesuffix("_content_list").casefold()] = doc.doc_id
    return out


def unknown_documents(questions: Sequence[EvalQuestion], library: Library, kb: str) -> list[str]:
    """The documents rows name that the knowledge base does not hold (their gold cannot be
    found): what to tell the user before a run."""
    known = document_ids(library, kb)
    return sorted(
        {q.document for q in questions if q.document and q.document.casefold() not in known}
    )


def history_turns(history: Sequence[tuple[str, str]]) -> list[Turn]:
    """A row's chat messages as the pipeline's turns: each user message with the answer after it."""
    turns: list[Turn] = []
    for role, content in history:
        if role == "user":
            turns.append(Turn(user=content))
        elif turns and not turns[-1].assistant:
            turns[-1] = Turn(user=turns[-1].user, assistant=content)
    return turns


class RunAnswerer:
    """Answers and scores the questions of one run's settings (what the worker and ``run_now``
    share)."""

    def __init__(self, library: Library, settings: RunSettings, llm: LLM | None) -> None:
        self.library = library
        self.settings = settings
        self.pipeline = Pipeline(library.settings, library, llm, audit=None, client="eval")
        self.k = settings.top_k or library.settings.top_k
        self.doc_ids = document_ids(library, settings.kb)
        self.names = {d.doc_id: d.name for d in library.documents(settings.kb)}
        self._chunks: dict[str, list[Chunk]] = {}

    def answer(self, question: EvalQuestion) -> tuple[QuestionResult, str]:
        """The question's result and its answer as a saved turn's JSON."""
        doc = self.doc_ids.get(question.document.casefold(), question.document)
        doc_ids = (doc,) if question.document else ()
        options = AskOptions(
            kb=self.settings.kb,
            mode=self.settings.mode,  # type: ignore[arg-type]
            doc_ids=doc_ids if self.settings.scope == "doc" else (),
            prompt_mode=self.settings.prompt_mode,
            top_k=self.settings.top_k,
        )
        try:
            answer = self.pipeline.ask(question.question, options, history_turns(question.history))
        except Exception as exc:  # noqa: BLE001 - one question's failure is its row's error
            _log.warning("evaluation question %s failed: %s", question.id, exc)
            failed = QuestionResult(
                id=question.id,
                question=question.question,
                expected=question.expected,
                answerable=question.answerable,
                has_gold=question.has_gold,
                error=str(exc) or type(exc).__name__,
            )
            return failed, turn_to_json(saved_turn(question.question, options, None, str(exc)))
        result = score_answer(
            question, answer, doc_ids, self._gold_types(question, doc_ids), self.k
        )
        turn = saved_turn(question.question, options, answer, doc_names=self.names)
        return result, turn_to_json(turn)

    def _gold_types(self, question: EvalQuestion, doc_ids: tuple[str, ...]) -> tuple[str, ...]:
        if not question.has_gold:
            return ()
        types = set()
        for doc in doc_ids or tuple(self.names):
            if doc not in self._chunks:
                self._chunks[doc] = self.library.chunks(self.settings.kb, doc)
            types |= {c.type for c in self._chunks[doc] if gold_chunk(c, question, doc_ids)}
        return tuple(sorted(types))


def run_now(
    store: EvalStore,
    library: Library,
    run_id: int,
    llm: LLM | None = None,
    progress: Callable[[RunProgress], None] = lambda p: None,
) -> str:
    """Answer the run's remaining questions in this thread; its final status (done, cancelled,
    failed, or "" when it was not queued)."""
    run = store.run(run_id)
    if run is None or not store.claim(run_id):
        if run is not None and store.cancel_requested(run_id) and run.status == "queued":
            store.finish(run_id, "cancelled")
            return "cancelled"
        return ""
    questions = store.question_set(run.set_id)
    if questions is None:
        store.finish(run_id, "failed", error="its question set is gone")
        return "failed"
    try:
        answerer = RunAnswerer(library, run.settings, llm)
        done = store.done_positions(run_id)
        total = len(questions.questions)
        todo = [(p, q) for p, q in enumerate(questions.questions) if p not in done]
        with ThreadPoolExecutor(WORKERS, thread_name_prefix=f"eval-{run_id}") as pool:
            running: dict[Future[tuple[QuestionResult, str]], int] = {}
            while todo or running:
                # keep WORKERS questions in flight; a cancel stops taking new ones
                while todo and len(running) < WORKERS and not store.cancel_requested(run_id):
                    position, question = todo.pop(0)
                    running[pool.submit(answerer.answer, question)] = position
                if not running:
                    break
                finished, _ = wait(running, return_when=FIRST_COMPLETED)
                for future in finished:
                    position = running.pop(future)
                    result, turn = future.result()
                    store.add_result(run_id, position, result, turn)
                    done.add(position)
                    progress(RunProgress(run_id, len(done), total))
        if todo:
            _finish(store, run_id, "cancelled", answerer.k)
            return "cancelled"
    except Exception as exc:  # noqa: BLE001 - the run is marked failed with the reason
        _log.exception("evaluation run %s failed", run_id)
        store.finish(run_id, "failed", error=str(exc) or type(exc).__name__)
        return "failed"
    _finish(store, run_id, "done", answerer.k)
    return "done"


def _finish(store: EvalStore, run_id: int, status: str, k: int) -> None:
    results = [r.result for r in store.results(run_id)]
    store.finish(run_id, status, run_metrics(results, k))


class EvalRunner:
    """The background runs of one process: ``start`` queues a run, a worker thread answers the
    queue in order and a heartbeat thread marks the runs it holds as alive."""

    def __init__(self, store: EvalStore, library: Library) -> None:
        self.store = store
        self.library = library
        # None: stop (``stop``)
        self._queue: queue.Queue[tuple[int, LLM | None] | None] = queue.Queue()
        self._held: list[int] = []
        self._lock = threading.Lock()
        self._threads: list[threading.Thread] = []
        self._stopped = threading.Event()

    def start(
        self,
        set_id: int,
        settings: RunSettings,
        llm: LLM | None = None,
        user: str = "",
    ) -> int:
        """Queue a run of the set ``set_id``; its id. Raises ValueError for an unknown set."""
        questions = self.store.question_set(set_id)
        if questions is None:
            raise ValueError(f"no question set {set_id}")
        run_id = self.store.add_run(set_id, settings, len(questions.questions), user)
        self._enqueue(run_id, llm)
        return run_id

    def resume(self, run_id: int, llm: LLM | None = None) -> bool:
        """Queue a stopped run again to answer the questions it has not; False when it cannot
        be (done, gone, or still running)."""
        if not self.store.requeue(run_id):
            return False
        self._enqueue(run_id, llm)
        return True

    def cancel(self, run_id: int) -> bool:
        return self.store.request_cancel(run_id)

    def _enqueue(self, run_id: int, llm: LLM | None) -> None:
        with self._lock:
            self._held.append(run_id)
            self._spawn()
        self._queue.put((run_id, llm))

    def _spawn(self) -> None:
        if not self._threads:
            for target, name in ((self._work, "eval-runs"), (self._beat, "eval-heartbeat")):
                thread = threading.Thread(target=target, name=name, daemon=True)
                thread.start()
                self._threads.append(thread)

    def _work(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                self._queue.task_done()
                return
            run_id, llm = item
            try:
                run_now(self.store, self.library, run_id, llm)
            except Exception:  # noqa: BLE001 - the worker lives on for the next run
                _log.exception("evaluation run %s failed", run_id)
            finally:
                with self._lock:
                    self._held.remove(run_id)
                self._queue.task_done()

    def _beat(self) -> None:
        while not self._stopped.wait(HEARTBEAT_S):
            with self._lock:
                held = list(self._held)
            try:
                self.store.beat(held)
                self.adopt()
            except Exception:  # noqa: BLE001 - a missed beat only risks an early "interrupted"
                _log.warning("evaluation heartbeat failed", exc_info=True)

    def adopt(self) -> list[int]:
        """Resume the offline runs whose process died (a restart): any live runner takes them
        up, once (``requeue`` lets one process win). A model's run waits for its user to
        resume it, with their model. The ids resumed."""
        adopted = []
        for run in self.store.runs(limit=50):
            if run.status == "interrupted" and run.settings.answerer == "offline":
                if self.resume(run.id):
                    adopted.append(run.id)
        return adopted

    def start_threads(self) -> None:
        """Start the worker and the heartbeat now (else with the first run): a process that
        only watches runs adopts the ones a restart left behind."""
        with self._lock:
            self._spawn()

    def stop(self) -> None:
        """Stop the threads: the heartbeat at once, the worker once the runs queued before are
        answered (a server shutting down; a test done with its store)."""
        with self._lock:
            if self._stopped.is_set():
                return
            self._stopped.set()
            if self._threads:
                self._queue.put(None)

    def wait(self) -> None:
        """Until every queued run is answered (tests, the CLI)."""
        self._queue.join()
