"""The resources every session shares (one per process, via ``st.cache_resource``): the Settings,
the Library, the audit log, the conversation store and the start-up work running in the
background (``ui.startup``: the model's load, the sample's import and its progress).

All are safe to use from every session at once (the Library serialises its writes and reads
immutable snapshots); nothing here mutates them per user. Per-user state is ``ui.state``.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

import streamlit as st

from rag_app.access import Access, AccessStore
from rag_app.chat.audit import AuditLog, open_audit_log
from rag_app.chat.conversations import ConversationStore
from rag_app.config import PROVIDER_VARIABLES, SETTINGS_ENV, Settings, load_settings
from rag_app.evals.runner import EvalRunner
from rag_app.index.embedder import load_embedder
from rag_app.index.library import Library
from rag_app.models import IngestReport
from rag_app.protocols import Embedder
from ui.i18n import t
from ui.startup import SampleStatus, Startup
from ui.startup import seed_sample as _seed

ROOT = Path(__file__).resolve().parents[1]
SAMPLE_KB = "示例"
SAMPLE_ZIP = ROOT / "assets" / "sample_report" / "smic_report.zip"
SAMPLE_QUESTIONS = ROOT / "assets" / "sample_report" / "questions.json"
SAMPLE_EVAL_SET = ROOT / "assets" / "sample_report" / "eval_set.csv"

# Every environment variable load_settings reads, and the provider's: a change to any one (tests
# switch data dirs) means a different Settings and so a different Library.
SETTINGS_KEY_ENV = SETTINGS_ENV + PROVIDER_VARIABLES


@st.cache_resource(show_spinner=False)
def _shared_settings(env_key: tuple[str, ...]) -> Settings:
    return load_settings()


def settings() -> Settings:
    """The process's Settings, made again whenever one of ``SETTINGS_KEY_ENV`` changes."""
    return _shared_settings(tuple(os.environ.get(name, "") for name in SETTINGS_KEY_ENV))


@dataclass(frozen=True)
class _Shared:
    library: Library
    startup: Startup  # the model's load and the sample's import, in the background
    audit: AuditLog | None = None  # None when the log cannot be opened (answers go on)


# The longest the sample's import and the cache warm-up wait for the first page to be drawn
# (a first run takes 2-4 s on two busy cores; they share its CPU and its GIL otherwise).
FIRST_PAGE_WAIT_S = 8.0


@st.cache_resource(show_spinner=False)
def _shared_library(settings_key: str, _settings: Settings) -> _Shared:
    # Once per process and settings (cache_resource lets one session make it while others
    # wait): so the start-up threads start once, and no other thread makes a second embedder.
    # The model starts loading first (seconds), while the Library opens (Chroma, the journal).
    startup = Startup(SAMPLE_ZIP, SAMPLE_KB)
    try:
        embedder: Embedder | None = load_embedder(_settings)
    except Exception:  # noqa: BLE001 - a missing model is reported by the pages that need it
        embedder = None
    startup.load_model(embedder)
    lib = Library(_settings, embedder=embedder)
    log = open_audit_log(_settings.data_dir, _settings.audit_retention_days, _settings.database_url)
    return _Shared(lib, startup.start(lib, after_page=FIRST_PAGE_WAIT_S), log)


def _key(settings_: Settings) -> str:
    """What the shared resources are cached by: the settings' repr, which leaves out the
    database URL (it may hold a password), with a digest of the URL in its place."""
    digest = hashlib.sha256(settings_.database_url.encode()).hexdigest()[:16]
    return f"{settings_!r} database={digest}"


def audit_log() -> AuditLog | None:
    return _shared().audit


def _shared() -> _Shared:
    current = settings()
    return _shared_library(_key(current), current)


def library() -> Library:
    return _shared().library


def model_ready() -> bool:
    """Whether the embedding model has finished loading (or failed to: the error then shows
    where the model is used)."""
    return _shared().startup.model_ready.is_set()


def wait_for_model() -> None:
    """Block until the embedding model has loaded, under a spinner while it is still loading
    (seconds after a restart); returns at once, drawing nothing, once it is."""
    ready = _shared().startup.model_ready
    if not ready.is_set():
        with st.spinner(t("model_loading"), show_time=True):
            ready.wait()


def startup() -> Startup:
    return _shared().startup


def page_shown() -> None:
    """Say a page has been drawn: the start-up work that waited for it begins."""
    _shared().startup.page_shown.set()


def start_early() -> None:
    """At the server's start, before any browser has connected (``app.py``'s lifespan): import
    every module of ``ui`` (what the first page imports, about a second), open the shared
    resources (the model starts loading) and, when the sample is already in (a restart), warm
    the caches of a first answer at once instead of after the first page. A sample still to be
    imported waits for the first page as before: its encoding would slow that page."""
    import importlib
    import inspect
    import pkgutil

    import ui

    startup = _shared().startup  # the model starts loading: it holds the GIL for most of a second
    for module in pkgutil.iter_modules(ui.__path__):
        importlib.import_module(f"ui.{module.name}")
    # Streamlit's first element in a process calls inspect.stack() (to tell a REPL), which maps
    # every loaded module to its file (thousands of realpath calls); done here, the first page
    # finds inspect's maps filled instead of doing it while it competes for the cores.
    inspect.stack()
    if not startup.status().importing:
        startup.page_shown.set()


def sample_status() -> SampleStatus:
    """Where the background import of the sample into 示例 stands (shared by every session)."""
    return _shared().startup.status()


def seed_sample(lib: Library) -> tuple[IngestReport, ...]:
    """Ingest the sample report into the 示例 knowledge base now if it is missing or empty, and
    re-index it when this version chunks it differently; the reports of what was (re)indexed
    (the app does this in the background: ``ui.startup``)."""
    return _seed(lib, SAMPLE_ZIP, SAMPLE_KB)


@st.cache_resource(show_spinner=False)
def _shared_store(settings_key: str, _settings: Settings) -> ConversationStore | None:
    try:
        return ConversationStore.in_dir(_settings.data_dir, _settings.database_url)
    except Exception:  # noqa: BLE001 - a read-only data dir costs the saving, not the app
        return None


def conversation_store() -> ConversationStore | None:
    current = settings()
    return _shared_store(_key(current), current)


@st.cache_resource(show_spinner=False)
def _shared_access(settings_key: str, _settings: Settings) -> AccessStore | None:
    try:
        return AccessStore.in_dir(_settings.data_dir, _settings.database_url)
    except Exception:  # noqa: BLE001 - without sign-in nothing needs it; with it, access() says
        return None


def access(enforced: bool = True) -> Access:
    """The knowledge-base permissions over the process's one ``access.sqlite`` (issue 28), their
    denials written to the audit log; ``enforced`` False (no sign-in configured): everyone is the
    local owner of everything. Raises RuntimeError when they are to be enforced and the store
    cannot be opened: nobody then sees what they may not."""
    current = settings()
    store = _shared_access(_key(current), current)
    if enforced and store is None:
        raise RuntimeError(f"the permissions in {current.data_dir} cannot be opened")
    return Access(store, enforced, audit_log(), client="app")


@st.cache_resource(show_spinner=False)
def _shared_runner(settings_key: str, _settings: Settings) -> EvalRunner | None:
    from rag_app.evals.store import EvalStore

    try:
        store = EvalStore.in_dir(_settings.data_dir, _settings.database_url)
        runner = EvalRunner(store, library())
    except Exception:  # noqa: BLE001 - a data dir that cannot hold it costs evaluation only
        return None
    runner.start_threads()  # the runs a restart interrupted are taken up again
    return runner


def eval_runner() -> EvalRunner | None:
    """The process's evaluation runs (one worker thread, the data dir's evals.sqlite); None when
    the store cannot be opened."""
    current = settings()
    return _shared_runner(_key(current), current)
