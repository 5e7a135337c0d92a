"""A real `chroma run` server as the one shared store of several libraries (docs/SHARED_STORE.md).

One server for the module on a free loopback port (started in about 2 s), emptied before each
test; each library has its own data dir, as separate app or API processes would have; the
deterministic hash embedder stands in for the model.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from rag_app.config import ChromaSettings, Settings
from rag_app.index.consistency import check_library
from rag_app.index.embedder import HashEmbedder
from rag_app.index.library import Library
from rag_app.index.replica import LocalOnly, Replica
from rag_app.index.store import http_client
from tests.conftest import REAL_CACHE_DIR, SAMPLE_CONTENT_LIST, TEST_DATA

CHROMA = Path(sys.executable).parent / "chroma"
TATQA = TEST_DATA / "tatqa_like_content_list.json"
KB = "共享库"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_up(url: str, process: subprocess.Popen[bytes], seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"chroma run exited with {process.returncode}")
        try:
            with urllib.request.urlopen(f"{url}/api/v2/heartbeat", timeout=1):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError("chroma run did not answer its heartbeat in time")


@pytest.fixture(scope="module")
def chroma_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One `chroma run` on a free loopback port for this module, stopped after it."""
    if not CHROMA.exists() and shutil.which("chroma") is None:
        pytest.skip("no `chroma` server command (chromadb's) in the venv or on PATH")
    command = str(CHROMA) if CHROMA.exists() else "chroma"
    folder = tmp_path_factory.mktemp("chroma-server")
    port = _free_port()
    log = (folder / "chroma.log").open("wb")
    process = subprocess.Popen(
        [command, "run", "--path", str(folder / "db"), "--host", "127.0.0.1"]
        + ["--port", str(port)],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_up(url, process)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()


@pytest.fixture
def chroma_url(chroma_server: str) -> str:
    """The module's server, emptied: every test starts from a store holding nothing."""
    client = http_client(ChromaSettings(url=chroma_server))
    for collection in client.list_collections():
        client.delete_collection(collection.name)
    return chroma_server


def _library(folder: Path, url: str, counter, sync_ms: int = 0) -> Library:  # type: ignore[no-untyped-def]
    settings = Settings(
        data_dir=folder, cache_dir=REAL_CACHE_DIR, chroma=ChromaSettings(url=url, sync_ms=sync_ms)
    )
    return Library(settings, embedder=HashEmbedder(), counter=counter)


def _ingest(library: Library, *paths: Path) -> list[str]:
    reports = library.ingest_paths(list(paths), KB)
    assert [r.status for r in reports] == ["ingested"] * len(paths), reports
    return [r.doc_id for r in reports]


def _doc_ids(library: Library) -> set[str]:
    return {d.doc_id for d in library.documents(KB)}


def test_two_libraries_share_ingest_list_search_and_delete(tmp_path, chroma_url, counter):
    a = _library(tmp_path / "a", chroma_url, counter)
    b = _library(tmp_path / "b", chroma_url, counter)
    assert isinstance(a.replica, Replica) and a.store.shared  # type: ignore[attr-defined]
    (doc,) = _ingest(a, TATQA)

    assert KB in b.knowledge_bases()
    assert _doc_ids(b) == {doc}
    dense = b.dense_search(KB, "Freight revenue by segment", 5)
    assert dense and dense[0][0].doc_id == doc
    keyword = b.keyword_search(KB, "Freight revenue", 5)
    assert keyword and keyword[0][0].doc_id == doc
    # the replica holds the writer's chunks exactly, in document order
    assert [c.chunk_id for c in b.chunks(KB, doc)] == [c.chunk_id for c in a.chunks(KB, doc)]

    assert b.delete_document(KB, doc)
    assert _doc_ids(a) == set()
    assert a.keyword_search(KB, "Freight revenue", 5) == []
    assert a.dense_search(KB, "Freight revenue by segment", 5) == []
    assert a.store.count(KB) == 0  # the vectors went from the one store


def test_a_library_opened_after_uploads_rebuilds_its_replica(tmp_path, chroma_url, counter):
    a = _library(tmp_path / "a", chroma_url, counter)
    docs = _ingest(a, TATQA, SAMPLE_CONTENT_LIST)
    late = _library(tmp_path / "late", chroma_url, counter)

    assert isinstance(late.replica, Replica) and late.replica.pulled == 2
    assert [(d.doc_id, d.n_chunks, d.content_hash) for d in late.documents(KB)] == [
        (d.doc_id, d.n_chunks, d.content_hash) for d in a.documents(KB)
    ]
    snap_a, snap_late = a.snapshot(KB), late.snapshot(KB)
    assert snap_late.chunks == snap_a.chunks
    assert late.keyword_search(KB, "市盈率", 3)[0][0].doc_id == docs[1]
    # the sample report's images came through the server into the new data dir
    image = next(c for c in late.chunks(KB, docs[1]) if c.image_path)
    path = late.asset_path(KB, docs[1], image.image_path)
    assert path is not None and str(tmp_path / "late") in str(path)
    # nothing disagrees: catalogue, server vectors, keyword index, images
    assert check_library(late).consistent, check_library(late).problems()


def test_a_new_version_replaces_the_old_one_everywhere(tmp_path, chroma_url, counter):
    a = _library(tmp_path / "a", chroma_url, counter)
    b = _library(tmp_path / "b", chroma_url, counter)
    text = TATQA.read_text(encoding="utf-8")
    (tmp_path / "in").mkdir()
    source = tmp_path / "in" / "report_content_list.json"
    source.write_text(text, encoding="utf-8")
    (doc,) = _ingest(a, source)
    assert _doc_ids(b) == {doc}
    source.write_text(
        text.replace("Freight", "Zeppelin").replace("freight", "zeppelin"), encoding="utf-8"
    )
    reports = b.ingest_paths([source], KB, on_conflict="replace")
    assert [r.status for r in reports] == ["ingested"], reports

    assert a.keyword_search(KB, "Zeppelin", 3)[0][0].doc_id == doc
    assert a.keyword_search(KB, "Freight", 3) == []
    assert a.store.count(KB) == len(a.chunks(KB)) == len(b.chunks(KB))


def test_two_writers_of_one_document_at_once_the_last_row_wins(
    tmp_path, chroma_url, counter, monkeypatch
):
    a = _library(tmp_path / "a", chroma_url, counter)
    b = _library(tmp_path / "b", chroma_url, counter)
    (tmp_path / "in").mkdir()
    source = tmp_path / "in" / "report_content_list.json"
    text = TATQA.read_text(encoding="utf-8")
    source.write_text(text, encoding="utf-8")
    # B writes as if A's write were still under way: its replica does not look first
    monkeypatch.setattr(b.replica, "sync", lambda kb, force=False: None)
    (doc,) = _ingest(a, source)
    source.write_text(text.replace("Freight", "Zeppelin"), encoding="utf-8")
    assert _ingest(b, source) == [doc]
    monkeypatch.undo()

    # everyone lists B's version and finds only its chunks
    chunks = a.chunks(KB, doc)
    assert chunks and all("Freight" not in c.search_text for c in chunks)
    assert [c.chunk_id for c in chunks] == [c.chunk_id for c in b.chunks(KB, doc)]
    assert a.keyword_search(KB, "Zeppelin", 3)[0][0].doc_id == doc
    # A's version's vectors are left unowned: the check finds them, --repair removes them
    report = check_library(a)
    assert report.knowledge_bases[0].orphan_vectors
    assert check_library(a, repair=True).consistent
    assert a.store.count(KB) == len(chunks)


def test_reads_check_the_server_at_most_once_per_interval(tmp_path, chroma_url, counter):
    a = _library(tmp_path / "a", chroma_url, counter)
    b = _library(tmp_path / "b", chroma_url, counter, sync_ms=400)
    b.knowledge_bases()
    assert _doc_ids(b) == set()
    (doc,) = _ingest(a, TATQA)
    assert _doc_ids(b) == set()  # within the interval: the replica as it was
    time.sleep(0.45)
    assert _doc_ids(b) == {doc}


def test_a_knowledge_base_dropped_through_one_is_gone_for_the_other(tmp_path, chroma_url, counter):
    a = _library(tmp_path / "a", chroma_url, counter)
    b = _library(tmp_path / "b", chroma_url, counter)
    _ingest(a, TATQA)
    assert KB in b.knowledge_bases()
    b.delete_kb(KB)
    assert KB not in a.knowledge_bases()
    assert a.documents(KB) == []
    assert KB not in a.store.knowledge_bases()


def test_the_embedded_default_has_no_replica(library):
    assert isinstance(library.replica, LocalOnly) and not isinstance(library.replica, Replica)
    assert not library.store.shared  # type: ignore[attr-defined]


class _Recorder(BaseHTTPRequestHandler):
    """A pass-through proxy to the server that records each request's auth headers."""

    upstream = ""
    seen: list[tuple[str, str]] = []

    def _forward(self) -> None:
        type(self).seen.append(
            (self.headers.get("Authorization", ""), self.headers.get("X-Chroma-Token", ""))
        )
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else None
        request = urllib.request.Request(
            self.upstream + self.path,
            data=body,
            method=self.command,
            headers={"Content-Type": self.headers.get("Content-Type", "application/json")},
        )
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                status, data = response.status, response.read()
        except urllib.error.HTTPError as exc:
            status, data = exc.code, exc.read()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = do_PUT = do_DELETE = _forward

    def log_message(self, *args: object) -> None:
        pass


def test_chroma_token_auth_goes_with_every_request(tmp_path, chroma_url, counter):
    handler = type("Recorder", (_Recorder,), {"upstream": chroma_url, "seen": []})
    proxy = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=proxy.serve_forever, daemon=True).start()
    try:
        chroma = ChromaSettings(
            url=f"http://127.0.0.1:{proxy.server_address[1]}",
            auth_provider="token",
            auth_credentials="s3cret",
            auth_header="X-Chroma-Token",
            sync_ms=0,
        )
        settings = Settings(data_dir=tmp_path / "a", cache_dir=REAL_CACHE_DIR, chroma=chroma)
        library = Library(settings, embedder=HashEmbedder(), counter=counter)
        _ingest(library, TATQA)
    finally:
        proxy.shutdown()
    assert handler.seen
    protected = [h for h in handler.seen if h != ("", "")]
    assert protected and all(token == "s3cret" for _, token in protected)
