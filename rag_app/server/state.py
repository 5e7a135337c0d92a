"""What one server process holds: the settings, one Library (its model loaded once, warmed in the
background at start), one Pipeline, the audit log, the metrics, the answers running now, and the
evaluation runs (one EvalRunner: the runs queue and are answered one at a time).

The pipeline is synchronous and CPU-bound; each answer runs on a worker thread of the server's
own pool and hands its events to the event loop through a queue, so a slow answer never holds
the loop and a client that leaves stops its answer at the next event.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import AsyncIterator, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import Any

from rag_app.access import Access
from rag_app.answer import LLM, OpenAIChatLLM, provider_from_env
from rag_app.chat.audit import open_audit_log
from rag_app.config import Settings
from rag_app.evals.runner import EvalRunner
from rag_app.evals.store import EvalStore
from rag_app.index.embedder import ModelMissingError
from rag_app.index.library import Library
from rag_app.models import Answer, AskOptions, PipelineEvent
from rag_app.pipeline.ask import Pipeline
from rag_app.prompt import Turn
from rag_app.server.errors import ApiError
from rag_app.server.metrics import ServerMetrics

_log = logging.getLogger("rag_app.server")
FROM_ENV: Any = object()  # ``create_app``'s default: the provider the RAG_APP_* env names
_END = object()


class Slots:
    """At most ``size`` answers at once; past it ``take`` refuses instead of queueing."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.used = 0
        self._lock = threading.Lock()

    def take(self) -> bool:
        with self._lock:
            if self.used >= self.size:
                return False
            self.used += 1
            return True

    def give_back(self) -> None:
        with self._lock:
            self.used = max(0, self.used - 1)


class ServerState:
    def __init__(
        self, settings: Settings, library: Library | None = None, llm: LLM | None = FROM_ENV
    ) -> None:
        self.settings = settings
        self.library = library if library is not None else Library(settings)
        if llm is FROM_ENV:
            provider = provider_from_env()
            llm = OpenAIChatLLM(provider) if provider else None
        # The server's own model (None: the offline answerer), which evaluation runs may use.
        self.llm: LLM | None = llm
        self.audit = open_audit_log(
            settings.data_dir, settings.audit_retention_days, settings.database_url
        )
        self.pipeline = Pipeline(settings, self.library, llm, audit=self.audit, client="api")
        # The permissions (rag_app.access; server/permissions.py applies them): enforced for a
        # named token's caller, the local owner's for the unnamed token or none. One store.
        self.access = Access.in_dir(
            settings.data_dir, True, self.audit, client="api", database_url=settings.database_url
        )
        self.open_access = Access(self.access.store, False, self.audit, client="api")
        self.metrics = ServerMetrics()
        limits = settings.server
        self.slots = Slots(limits.max_streams)
        self.upload_slots = Slots(limits.max_uploads)
        self.executor = ThreadPoolExecutor(
            max_workers=limits.max_streams + limits.batch_concurrency,
            thread_name_prefix="rag-answer",
        )
        self.warm = threading.Event()
        self.warm_error = ""
        self.evals = EvalStore.in_dir(settings.data_dir, settings.database_url)
        self.eval_runner = EvalRunner(self.evals, self.library)

    # start and stop -----------------------------------------------------------------------------
    def warm_up(self) -> None:
        """Load the embedding model, the token counter and the word segmenter once, so the first
        question does not pay for them (run on a thread at start; /health says when done)."""
        try:
            embedder = self.library.embedder
            if hasattr(embedder, "warm_up"):
                embedder.warm_up()
            _ = self.library.counter
            from rag_app.text.analyzer import tagged
            from rag_app.understand.analysis import analyse_query

            analyse_query("中芯国际2026年预测市盈率 warm-up")
            tagged("中芯国际2026年预测市盈率")  # jieba's part-of-speech tables
        except Exception as exc:  # noqa: BLE001 - reported by /health; asks then say why
            self.warm_error = f"{type(exc).__name__}: {exc}"
            _log.error("warm-up failed: %s", self.warm_error)
        finally:
            self.warm.set()

    def start_warm_up(self) -> None:
        threading.Thread(target=self.warm_up, name="rag-warm-up", daemon=True).start()
        self.eval_runner.start_threads()  # the offline runs a restart interrupted go on

    def close(self) -> None:
        self.executor.shutdown(wait=False, cancel_futures=True)
        self.eval_runner.stop()

    # checks -------------------------------------------------------------------------------------
    def take_slot(self) -> None:
        """An answer slot, or a 429 naming the limit."""
        self._take(
            self.slots, "streams", "answers are being generated, the most this server runs", 2
        )

    def take_upload_slot(self) -> None:
        """An upload slot, or a 429 naming the limit (taken before the body is read)."""
        self._take(
            self.upload_slots, "uploads", "uploads are being read, the most this server takes", 5
        )

    def _take(self, slots: Slots, limit: str, what: str, retry_s: int) -> None:
        if not slots.take():
            self.metrics.refused.labels(limit).inc()
            raise ApiError(
                429,
                f"{slots.size} {what} at once; retry shortly",
                kind="rate_limit_error",
                headers={"Retry-After": str(retry_s)},
            )

    def doc_names(self, kb: str) -> dict[str, str]:
        return {d.doc_id: d.name for d in self.library.documents(kb)}

    # answering ----------------------------------------------------------------------------------
    def answer_events(
        self,
        question: str,
        options: AskOptions,
        history: Sequence[Turn] = (),
        render: Callable[[Answer], Any] | None = None,
        slot_taken: bool = True,
    ) -> AsyncIterator[PipelineEvent | BaseException]:
        """Start answering now on a worker thread; iterate the result for its events (an
        exception the pipeline raised comes as the last item). ``render`` runs on the worker
        too, its result in the answer event's ``data["rendered"]``: the answer's JSON is made
        while the slot is held, off the event loop. The slot is given back when the worker
        ends, whether or not anyone reads the events."""
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[Any] = asyncio.Queue()
        stop = threading.Event()

        def put(item: Any) -> None:
            try:
                loop.call_soon_threadsafe(queue.put_nowait, item)
            except RuntimeError:  # the loop is gone (shutting down): nobody is listening
                stop.set()

        def work() -> None:
            events = None
            try:
                events = self.pipeline.stream(question, options, history)
                for event in events:
                    if stop.is_set():
                        break
                    if event.kind == "answer" and event.answer is not None and render:
                        event = replace(event, data={"rendered": render(event.answer)})
                    put(event)
            except Exception as exc:  # noqa: BLE001 - handed to the reader, which reports it
                _log.error("answering failed", exc_info=exc)
                put(exc)
            finally:
                close = getattr(events, "close", None)  # a generator: stop it where it is
                if close is not None:
                    close()
                if slot_taken:
                    self.slots.give_back()
                    self.metrics.active_streams.dec()
                put(_END)

        if slot_taken:
            self.metrics.active_streams.inc()
        try:
            loop.run_in_executor(self.executor, work)
        except RuntimeError:
            if slot_taken:
                self.slots.give_back()
                self.metrics.active_streams.dec()
            raise

        async def read() -> AsyncIterator[PipelineEvent | BaseException]:
            try:
                while True:
                    item = await queue.get()
                    if item is _END:
                        return
                    yield item
            finally:
                stop.set()

        return read()

    async def answer(
        self,
        question: str,
        options: AskOptions,
        history: Sequence[Turn] = (),
        render: Callable[[Answer], Any] | None = None,
        endpoint: str = "ask",
        slot_taken: bool = True,
    ) -> Any:
        """``render(answer)`` made on the worker (the Answer itself without ``render``); raises
        what the pipeline raised."""

        def rendered(answer: Answer) -> Any:
            self.metrics.observe_answer(endpoint, answer)
            return render(answer) if render is not None else answer

        events = self.answer_events(question, options, history, rendered, slot_taken)
        async for item in events:
            if isinstance(item, ModelMissingError):
                raise ApiError(503, f"the embedding model is not ready: {item}", "server_error")
            if isinstance(item, BaseException):
                raise item
            if item.kind == "answer":
                return item.data["rendered"]
        raise RuntimeError("the pipeline ended without an answer")
