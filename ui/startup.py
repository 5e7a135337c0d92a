"""Start-up work in the background, once per process, so the page is usable at once.

``Startup(...).load_model(embedder)`` and ``.start(library)`` (once per Library, from
``ui.resources``) begin two threads:

- **model**: the embedding model loads (``warm_up``: an import and a load, seconds after a
  restart); ``model_ready`` is set when it has, or has failed to (the error then shows where
  the model is used);
- **sample**: the bundled sample report is imported into 示例 when that base is missing or
  empty, its progress kept for the pages (``status()``); then the caches a first answer would
  otherwise fill on its own are filled: jieba's dictionary, the tiktoken encoding, the modules
  the pipeline imports lazily, 示例's and the default base's keyword index and vectors, and one
  retrieval (the first query embedding, the first vector search). A sample already there is
  checked again last (re-indexed when this version chunks it differently), half a minute after
  the warm-up, so it never slows a first answer.

The sample thread may wait for the app's first page to be drawn first (``page_shown``): that
page is what a user waits for, and on two busy cores the warm-up would share its CPU and GIL.

Nothing here is per user, and nothing imports Streamlit: the threads write ``SampleStatus``
under a lock, and the pages read it. A process stopped mid-import loses nothing: the library's
write journal settles a half-written document when it next opens, and the next start imports
the sample again (the base is still empty).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from rag_app.index.library import Library
from rag_app.models import AskOptions, IngestReport, Progress
from rag_app.protocols import Embedder

_log = logging.getLogger(__name__)

# A question the warm-up retrieval asks: any sample question does (nothing is recorded).
WARM_QUESTION = "中芯国际2026年预测市盈率是多少？"
# Lazily imported on a first question (pipeline.py's and the stages' in-function imports).
_LAZY_MODULES = (
    "rag_app.retrieve.strategies",
    "rag_app.trust.answerability",
    "rag_app.pipeline.followups",
    "rag_app.pipeline.expansions",
    "rag_app.cite",
)

# How long after the warm-up a sample already there is checked again (re-indexed when this
# version chunks it differently): after the first questions a restart usually brings.
RECHECK_DELAY_S = 30.0

SampleState = Literal["importing", "in", "failed"]


@dataclass(frozen=True)
class SampleStatus:
    """Where the sample's import stands: ``importing`` (with the library's latest progress),
    ``in`` (questions about it work; also when there is nothing to import) or ``failed``."""

    state: SampleState
    progress: Progress | None = None
    error: str = ""

    @property
    def importing(self) -> bool:
        return self.state == "importing"

    @property
    def counts(self) -> tuple[int, int]:
        """(passages encoded, passages) once encoding has started; (0, 0) before."""
        p = self.progress
        if p is None or p.stage == "chunk" or not p.total:
            return 0, 0
        return p.done, p.total


def sample_needed(lib: Library, kb: str) -> bool:
    return kb not in lib.knowledge_bases() or not lib.documents(kb)


def seed_sample(
    lib: Library,
    sample: Path,
    kb: str,
    progress: Callable[[Progress], None] | None = None,
) -> tuple[IngestReport, ...]:
    """Ingest the sample zip into ``kb`` if the base is missing or empty, and re-index it when
    this version chunks it differently (uploading it again is a no-op when the chunks are the
    same). A base holding the user's own documents without the sample (they removed it) is left
    as it is. Returns the reports of what was (re)indexed; raises what the library raises."""
    docs = lib.documents(kb) if kb in lib.knowledge_bases() else []
    if docs and all(d.name != sample.name for d in docs):
        return ()
    reports = lib.ingest_bytes(
        [(sample.name, sample.read_bytes())],
        kb,
        progress=progress or (lambda _: None),
        on_conflict="replace",
    )
    return tuple(r for r in reports if r.status != "duplicate")


class Startup:
    """The start-up threads of one Library; ``status()`` and ``model_ready`` for the pages.

    ``load_model`` first (it needs only the embedder, so the model starts loading before the
    Library has even opened), then ``start`` with the Library."""

    def __init__(self, sample: Path, kb: str) -> None:
        self.sample = sample
        self.kb = kb
        self.model_ready = threading.Event()
        self.sample_done = threading.Event()  # set when the status leaves ``importing``
        self._lock = threading.Lock()
        self._status = SampleStatus("importing")
        self._library: Library | None = None
        self.threads: list[threading.Thread] = []  # to join, for a caller that must wait
        self.page_shown = threading.Event()  # set by the app once its first page is drawn
        self._after_page = 0.0

    @property
    def library(self) -> Library:
        assert self._library is not None, "Startup.start was not called"
        return self._library

    def status(self) -> SampleStatus:
        with self._lock:
            return self._status

    def load_model(self, embedder: Embedder | None) -> Startup:
        """Load the embedding model in a daemon thread; None (no model: the error shows where
        the model is used) or an embedder without ``warm_up`` counts as ready at once."""
        warm_up = getattr(embedder, "warm_up", None)
        if warm_up is None:
            self.model_ready.set()
        else:
            self._spawn("model", self._load_model, warm_up)
        return self

    def start(self, lib: Library, after_page: float = 0.0) -> Startup:
        """Import the sample if it is needed, then warm the caches, in a daemon thread; with
        ``after_page``, that thread first waits (at most so many seconds) for ``page_shown``:
        the first page, which the user is waiting for, is not slowed by work that can wait."""
        self._library = lib
        self._after_page = after_page
        try:
            needed = sample_needed(lib, self.kb)
            if needed:  # listed at once, so every page offers it while it is filled
                lib.create_kb(self.kb)
        except Exception as exc:  # noqa: BLE001 - an unreadable catalogue: said on the pages
            self._finish(SampleStatus("failed", error=str(exc)))
            return self
        if not needed:
            self._finish(SampleStatus("in"))
        self._spawn("sample", self._prepare)
        return self

    def _spawn(self, name: str, target: Callable[..., None], *args: object) -> None:
        thread = threading.Thread(target=target, args=args, name=f"startup-{name}", daemon=True)
        self.threads.append(thread)
        thread.start()

    # threads ------------------------------------------------------------------------------------
    def _load_model(self, warm_up: Callable[[], None]) -> None:
        try:
            warm_up()
        except Exception:  # noqa: BLE001 - the failure surfaces again, with its message, on use
            _log.warning("the embedding model did not load", exc_info=True)
        finally:
            self.model_ready.set()

    def _prepare(self) -> None:
        if self._after_page:
            self.page_shown.wait(self._after_page)
        recheck = self.sample_done.is_set()  # the sample was there already
        if not recheck:
            self._import()
        self._quietly(self._warm_caches)
        self.model_ready.wait()
        self._quietly(self._warm_retrieval)
        if recheck:
            # Not urgent (it matters only after an upgrade that chunks differently) and a
            # second of CPU: later, so it never slows the first questions after a restart.
            time.sleep(RECHECK_DELAY_S)
            self._quietly(lambda: seed_sample(self.library, self.sample, self.kb))

    def _import(self) -> None:
        try:
            reports = seed_sample(self.library, self.sample, self.kb, self._on_progress)
        except Exception as exc:  # noqa: BLE001 - the app still works without the sample
            self._finish(SampleStatus("failed", error=str(exc)))
            return
        rejected = [r.message for r in reports if r.status == "rejected"]
        if rejected and not self.library.documents(self.kb):
            self._finish(SampleStatus("failed", error="; ".join(rejected)))
        else:
            self._finish(SampleStatus("in"))

    def _on_progress(self, progress: Progress) -> None:
        with self._lock:
            if progress.stage == "index" and self._status.progress is not None:
                # index counts documents; keep the passage count the pages show
                last = self._status.progress
                progress = Progress("index", last.total, last.total, progress.message)
            self._status = SampleStatus("importing", progress)

    def _finish(self, status: SampleStatus) -> None:
        with self._lock:
            self._status = status
        self.sample_done.set()

    def _bases(self) -> list[str]:
        known = self.library.knowledge_bases()
        wanted = dict.fromkeys([self.kb, self.library.settings.knowledge_base])
        return [kb for kb in wanted if kb in known and self.library.documents(kb)]

    def _warm_caches(self) -> None:
        import importlib

        from rag_app.text.analyzer import index_tokens, tagged

        index_tokens(WARM_QUESTION)  # jieba's dictionary and the finance words
        tagged(WARM_QUESTION)  # jieba's part-of-speech tables (the answerability check's names)
        self.library.counter.count(WARM_QUESTION)  # the tiktoken encoding
        for name in _LAZY_MODULES:
            importlib.import_module(name)
        for kb in self._bases():
            self.library.snapshot(kb)  # chunks and the keyword index

    def _warm_retrieval(self) -> None:
        from rag_app.pipeline.ask import Pipeline
        from rag_app.understand.analysis import analyse_query

        pipeline = Pipeline(self.library.settings, self.library, audit=None, client="startup")
        for kb in self._bases():
            pipeline.retrieve(WARM_QUESTION, AskOptions(kb=kb))
            pipeline.check(analyse_query(WARM_QUESTION), AskOptions(kb=kb))  # documents read

    @staticmethod
    def _quietly(work: Callable[[], object]) -> None:
        try:
            work()
        except Exception:  # noqa: BLE001 - a cold cache is only slower; use shows real errors
            _log.warning("start-up warm-up step failed", exc_info=True)
