"""Shared fixtures: isolated settings and libraries, project data paths, the real model.

Every library lives under the test's own ``tmp_path``; the only shared on-disk resource is the
embedding model under the real cache directory, which tests read and never write.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from rag_app.config import Settings, load_settings
from rag_app.index.admission import OnConflict
from rag_app.index.embedder import HashEmbedder
from rag_app.index.library import Library
from rag_app.ingest import ChunkingOptions, chunk_document
from rag_app.ingest.content_list import parse_content_list
from rag_app.models import Chunk, Document, IngestReport

REPO_ROOT = Path(__file__).resolve().parents[1]
TEST_DATA = REPO_ROOT / "tests" / "data"
SAMPLE_DIR = REPO_ROOT / "assets" / "sample_report"
SAMPLE_CONTENT_LIST = SAMPLE_DIR / "smic_report_content_list.json"
SAMPLE_MD = SAMPLE_DIR / "smic_report.md"
SAMPLE_ZIP = SAMPLE_DIR / "smic_report.zip"
# Real MinerU outputs, read-only and never copied into the repo (see ../shared/eval/README.md).
MINERU_FIXTURES = REPO_ROOT.parent / "shared" / "eval" / "mineru_fixtures"
# The model is built once by `rag-app setup` into the user's cache; tests only read it.
REAL_CACHE_DIR = load_settings().cache_dir


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """`make test` runs two pytest-xdist workers with ``--dist loadfile``: a module at a time
    (its module-scoped fixtures made once, as in a serial run), and here every module that drives
    a browser counted as one file, so one app server and one Chromium run at a time, mostly
    waiting on a page, beside the rest. (xdist's own ``loadgroup`` does not group on pytest 9.2:
    pytest-xdist issue 1386.)"""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class BrowserTogether(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            module = nodeid.split("::", 1)[0]
            return "browser" if _drives_a_browser(config.rootpath / module) else module

        def _assign_work_unit(self, node: Any) -> None:
            if "browser" in self.workqueue:  # the longest unit first
                self.workqueue.move_to_end("browser", last=False)
            super()._assign_work_unit(node)

    return BrowserTogether(config, log)


@functools.cache
def _drives_a_browser(module: Path) -> bool:
    return module.is_file() and "pytest.mark.browser" in module.read_text(encoding="utf-8")


@pytest.fixture(autouse=True)
def _no_default_data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Code that falls back to the default data dir (the CLI) writes under tmp_path instead."""
    monkeypatch.setenv("RAG_APP_DATA_DIR", str(tmp_path / "env-data-dir"))
    monkeypatch.delenv("RAG_APP_KB", raising=False)
    monkeypatch.delenv("RAG_APP_EMBEDDING_MODEL", raising=False)


@pytest.fixture(scope="session")
def counter():  # type: ignore[no-untyped-def]
    from rag_app.text.tokens import get_token_counter

    return get_token_counter()


@pytest.fixture(scope="session")
def sample_sources(counter) -> list[tuple[int, Chunk]]:  # type: ignore[no-untyped-def]
    """The bundled sample report's chunks, numbered as an answer's sources ([Source N])."""
    path = SAMPLE_CONTENT_LIST
    items, _ = parse_content_list(path.read_bytes(), path.name)
    doc = Document("smic_report", path.name, "content_list", tuple(items), "h", 1)
    return list(enumerate(chunk_document(doc, counter, ChunkingOptions()), start=1))


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path / "data", cache_dir=REAL_CACHE_DIR)


@pytest.fixture
def library(settings: Settings, counter) -> Library:  # type: ignore[no-untyped-def]
    return Library(settings, embedder=HashEmbedder(), counter=counter)


def hash_library(folder: Path, counter, paths: list[Path]) -> Library:  # type: ignore[no-untyped-def]
    """A library in ``folder`` with the deterministic test embedder, holding ``paths``
    (each must ingest)."""
    settings = Settings(data_dir=folder / "data", cache_dir=REAL_CACHE_DIR)
    library = Library(settings, embedder=HashEmbedder(), counter=counter)
    reports = library.ingest_paths(paths)
    assert [r.status for r in reports] == ["ingested"] * len(paths), reports
    return library


@pytest.fixture(scope="session")
def real_embedder():  # type: ignore[no-untyped-def]
    """The built multilingual-e5-small, loaded once per session; skips when it is not built."""
    from rag_app.index.embedder import ModelMissingError, load_embedder

    try:
        embedder = load_embedder(Settings(cache_dir=REAL_CACHE_DIR))
    except ModelMissingError as exc:
        pytest.skip(f"real embedding model not available: {exc}")
    embedder.warm_up()
    return embedder


@pytest.fixture
def mineru_fixtures() -> Path:
    if not MINERU_FIXTURES.is_dir():
        pytest.skip(
            f"real MinerU fixtures not found at {MINERU_FIXTURES} (shared eval data absent)"
        )
    return MINERU_FIXTURES


@pytest.fixture
def ingest_json(library: Library) -> Callable[..., IngestReport]:
    """Ingest a content list given as Python data under ``name``; returns its one report."""

    def ingest(
        items: Any,
        name: str = "doc_content_list.json",
        kb: str | None = None,
        lib: Library | None = None,
        on_conflict: OnConflict = "ask",
    ) -> IngestReport:
        data = json.dumps(items, ensure_ascii=False).encode("utf-8")
        reports = (lib or library).ingest_bytes([(name, data)], kb, on_conflict=on_conflict)
        assert len(reports) == 1, reports
        return reports[0]

    return ingest


@pytest.fixture(scope="session")
def postgres_base() -> Any:
    """One throwaway PostgreSQL cluster for the whole test session (tests/postgres_support.py);
    its base URL. Skips where the server's programs are not installed."""
    from tests.postgres_support import postgres_server

    with postgres_server() as base:
        yield base


@pytest.fixture
def database_url(postgres_base: str) -> str:
    """An empty database of its own for one test, on the session's PostgreSQL cluster."""
    from tests.postgres_support import fresh_database

    return fresh_database(postgres_base)
