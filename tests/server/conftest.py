"""A server over a hash-embedder library holding the sample report (offline answerer unless a
test passes a scripted model), driven in-process with FastAPI's TestClient."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from rag_app.config import ServerSettings, Settings
from rag_app.index.embedder import HashEmbedder
from rag_app.index.library import Library
from rag_app.server import create_app
from tests.conftest import REAL_CACHE_DIR, SAMPLE_CONTENT_LIST

QUESTION = "中芯国际2026年预测市盈率是多少？"


def sample_library(folder: Path, counter, **server: object) -> Library:  # type: ignore[no-untyped-def]
    settings = Settings(
        data_dir=folder / "data",
        cache_dir=REAL_CACHE_DIR,
        server=ServerSettings(**server),  # type: ignore[arg-type]
    )
    library = Library(settings, embedder=HashEmbedder(), counter=counter)
    reports = library.ingest_paths([SAMPLE_CONTENT_LIST], "api")
    assert [r.status for r in reports] == ["ingested"], reports
    return library


@pytest.fixture
def make_client(tmp_path: Path, counter) -> Iterator[Callable[..., TestClient]]:  # type: ignore[no-untyped-def]
    """``make_client(llm=None, **server_settings)``: a TestClient over a fresh sample library."""
    clients: list[TestClient] = []

    def make(llm=None, **server: object) -> TestClient:  # type: ignore[no-untyped-def]
        library = sample_library(tmp_path / f"lib{len(clients)}", counter, **server)
        client = TestClient(create_app(library.settings, library=library, llm=llm))
        client.__enter__()
        clients.append(client)
        return client

    yield make
    for client in clients:
        client.__exit__(None, None, None)


@pytest.fixture
def client(make_client) -> TestClient:  # type: ignore[no-untyped-def]
    return make_client()


def sse_payloads(text: str) -> list[str]:
    return [line[5:].strip() for line in text.splitlines() if line.startswith("data:")]
