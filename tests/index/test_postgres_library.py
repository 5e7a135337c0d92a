"""The library over PostgreSQL and a Chroma server (docs/SHARED_STORE.md, "PostgreSQL"): the
catalogue (rows, chunks, tokens, images, versions, the journal) in a real PostgreSQL, the
vectors on a real `chroma run`; each library its own data dir, as separate processes would
have; writes to one knowledge base serialised across processes; a kill -9 mid-write settled by
whichever data dir opens next. The hash embedder stands in for the model.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest

from rag_app.config import ChromaSettings, Settings
from rag_app.database.postgres import PgConnection
from rag_app.index.consistency import check_library
from rag_app.index.embedder import HashEmbedder
from rag_app.index.library import Library
from rag_app.index.pg_replica import PgReplica
from rag_app.index.replica import LocalOnly
from tests.conftest import REAL_CACHE_DIR, REPO_ROOT, SAMPLE_CONTENT_LIST, SAMPLE_DIR
from tests.index.test_chroma_server import TATQA, chroma_server, chroma_url  # noqa: F401

KB = "共享库"
_ENV = {**os.environ, "HF_HUB_OFFLINE": "1", "ANONYMIZED_TELEMETRY": "False"}

# A writer process: opens a library on (data dir, chroma url, database url), says "ready",
# waits for the go file, ingests its files (on_conflict=replace). MODE slows or stops a write:
# "timed" logs each write's span (vectors written .. committed) to LOG; "before" stops after
# the vectors, before PostgreSQL's commit; "after" stops after the commit, before the data
# dir's catalogue (both say "stopped" and sleep, for the test to kill -9).
_WRITER = """
import json, sys, time
from pathlib import Path
from rag_app.config import ChromaSettings, Settings
from rag_app.index.embedder import HashEmbedder
from rag_app.index.library import Library
from rag_app.index.pg_registry import PgRegistry
from rag_app.index.store import ChromaStore

data, chroma, database, go, mode, log = sys.argv[1:7]
files = json.loads(sys.argv[7])
settings = Settings(
    data_dir=Path(data), chroma=ChromaSettings(url=chroma, sync_ms=0), database_url=database
)
upsert, put = ChromaStore.upsert, PgRegistry.put_document
spans = []

def slow_upsert(self, *args, **kwargs):
    spans.append([time.time()])
    upsert(self, *args, **kwargs)
    if mode == "timed":
        time.sleep(0.4)
    if mode == "before":
        print("stopped", flush=True)
        time.sleep(120)

def stopping_put(self, *args, **kwargs):
    result = put(self, *args, **kwargs)
    spans[-1].append(time.time())
    if mode == "after":
        print("stopped", flush=True)
        time.sleep(120)
    return result

ChromaStore.upsert, PgRegistry.put_document = slow_upsert, stopping_put
library = Library(settings, embedder=HashEmbedder())
print("ready", flush=True)
while not Path(go).exists():
    time.sleep(0.02)
reports = library.ingest_paths([Path(f) for f in files], "共享库", on_conflict="replace")
Path(log).write_text(json.dumps({"spans": spans, "statuses": [r.status for r in reports]}))
print("done", flush=True)
"""


def _library(folder: Path, chroma: str, database: str, counter) -> Library:  # type: ignore[no-untyped-def]
    settings = Settings(
        data_dir=folder,
        cache_dir=REAL_CACHE_DIR,
        chroma=ChromaSettings(url=chroma, sync_ms=0),
        database_url=database,
    )
    return Library(settings, embedder=HashEmbedder(), counter=counter)


def _writer(tmp: Path, name: str, chroma: str, database: str, files: list[Path], mode: str):  # type: ignore[no-untyped-def]
    args = [str(tmp / name), chroma, database, str(tmp / "go"), mode, str(tmp / f"{name}.json")]
    child = subprocess.Popen(
        [sys.executable, "-c", _WRITER, *args, json.dumps([str(f) for f in files])],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=REPO_ROOT,
        env=_ENV,
    )
    assert child.stdout is not None
    line = child.stdout.readline().strip()
    assert line == "ready", child.stderr.read() if child.stderr else line
    return child


def _finish(child, tmp: Path, name: str) -> dict:  # type: ignore[no-untyped-def,type-arg]
    _, err = child.communicate(timeout=240)
    assert child.returncode == 0, err[-3000:]
    return json.loads((tmp / f"{name}.json").read_text())  # type: ignore[no-any-return]


def _copy(folder: Path, name: str, marker: str, source: Path = TATQA) -> Path:
    """A distinct document ``name`` (the sample's images beside it)."""
    folder.mkdir(parents=True, exist_ok=True)
    if not (folder / "images").exists():
        shutil.copytree(SAMPLE_DIR / "images", folder / "images")
    items = json.loads(source.read_text(encoding="utf-8"))
    items.append({"type": "text", "text": f"Ledger marker {marker}."})
    path = folder / f"{name}_content_list.json"
    path.write_text(json.dumps(items, ensure_ascii=False), encoding="utf-8")
    return path


def _whole(library: Library) -> None:
    """Consistent by the check, and every listed document has exactly its chunks' vectors."""
    report = check_library(library)
    assert report.consistent, report.problems()
    if KB in library.knowledge_bases():
        listed = sum(d.n_chunks for d in library.documents(KB))
        assert library.store.count(KB) == listed == len(library.chunks(KB))


def _pending(url: str) -> int:
    db = PgConnection(url)
    try:
        row = db.execute("SELECT count(*) FROM library_pending").fetchone()
        return int(row[0]) if row else -1
    finally:
        db.close()


def test_two_libraries_share_one_postgres_catalogue(tmp_path, chroma_url, database_url, counter):  # noqa: F811
    a = _library(tmp_path / "a", chroma_url, database_url, counter)
    b = _library(tmp_path / "b", chroma_url, database_url, counter)
    assert isinstance(a.replica, PgReplica) and a.replica.locks
    reports = a.ingest_paths([TATQA, SAMPLE_CONTENT_LIST], KB)
    assert [r.status for r in reports] == ["ingested", "ingested"], reports
    tatqa, sample = (r.doc_id for r in reports)

    assert KB in b.knowledge_bases()
    assert {d.doc_id for d in b.documents(KB)} == {tatqa, sample}
    dense = b.dense_search(KB, "Freight revenue by segment", 5)
    assert dense and dense[0][0].doc_id == tatqa
    keyword = b.keyword_search(KB, "Freight revenue", 5)
    assert keyword and keyword[0][0].doc_id == tatqa
    assert [c.chunk_id for c in b.chunks(KB, tatqa)] == [c.chunk_id for c in a.chunks(KB, tatqa)]
    # the images came through PostgreSQL; the vector records carry no payloads
    image = next(c for c in b.chunks(KB, sample) if c.image_path)
    path = b.asset_path(KB, sample, image.image_path)
    assert path is not None and str(tmp_path / "b") in str(path)
    got = a.store._collection(KB).get(limit=3, include=["documents"])  # type: ignore[attr-defined]
    assert not any(got["documents"] or [])
    # a library opened afterwards pulls everything from PostgreSQL
    late = _library(tmp_path / "late", chroma_url, database_url, counter)
    assert isinstance(late.replica, PgReplica) and late.replica.pulled == 2
    assert late.keyword_search(KB, "市盈率", 3)[0][0].doc_id == sample
    _whole(late)

    assert b.delete_document(KB, tatqa)
    assert {d.doc_id for d in a.documents(KB)} == {sample}
    assert a.keyword_search(KB, "Freight revenue", 5) == []
    _whole(a)
    a.delete_kb(KB)
    assert KB not in b.knowledge_bases() and KB not in late.knowledge_bases()
    assert KB not in a.store.knowledge_bases()
    assert _pending(database_url) == 0
    _whole(b)


def test_database_url_without_chroma_url_keeps_the_library_local(tmp_path, database_url, caplog):
    settings = Settings(
        data_dir=tmp_path / "a", cache_dir=REAL_CACHE_DIR, database_url=database_url
    )
    with caplog.at_level("INFO", logger="rag_app.index.pg_replica"):
        library = Library(settings, embedder=HashEmbedder())
    assert type(library.replica) is LocalOnly and not library.store.shared  # type: ignore[attr-defined]
    assert any("stays in the data dir" in r.message for r in caplog.records)


@pytest.mark.slow
def test_two_processes_ingesting_at_once_take_turns_and_both_land(
    tmp_path,
    chroma_url,  # noqa: F811
    database_url,
    counter,
):
    _library(tmp_path / "setup", chroma_url, database_url, counter).create_kb(KB)
    one = [_copy(tmp_path / "in1", f"p1_{n}", f"one{n}") for n in range(2)]
    two = [_copy(tmp_path / "in2", f"p2_{n}", f"two{n}") for n in range(2)]
    children = [
        _writer(tmp_path, "w1", chroma_url, database_url, one, "timed"),
        _writer(tmp_path, "w2", chroma_url, database_url, two, "timed"),
    ]
    (tmp_path / "go").touch()
    logs = [_finish(c, tmp_path, n) for c, n in zip(children, ("w1", "w2"))]
    assert all(log["statuses"] == ["ingested", "ingested"] for log in logs), logs
    # the knowledge base's lock: no write (vectors .. commit) overlapped another's
    spans = sorted(tuple(s) for log in logs for s in log["spans"])
    assert all(len(s) == 2 for s in spans)
    assert all(earlier[1] <= later[0] for earlier, later in zip(spans, spans[1:])), spans

    reader = _library(tmp_path / "reader", chroma_url, database_url, counter)
    names = {p.name.removesuffix("_content_list.json") for p in one + two}
    assert {d.doc_id for d in reader.documents(KB)} == names
    assert reader.keyword_search(KB, "one1", 3)[0][0].doc_id == "p1_1"
    _whole(reader)
    assert _pending(database_url) == 0


@pytest.mark.slow
@pytest.mark.parametrize("changed", [False, True], ids=["same-bytes", "other-bytes"])
def test_one_document_from_two_processes_at_once_ends_as_one_version(
    tmp_path,
    chroma_url,  # noqa: F811
    database_url,
    counter,
    changed,
):
    _library(tmp_path / "setup", chroma_url, database_url, counter).create_kb(KB)
    first = _copy(tmp_path / "in1", "report", "same")
    second = _copy(tmp_path / "in2", "report", "other" if changed else "same")
    children = [
        _writer(tmp_path, "w1", chroma_url, database_url, [first], "timed"),
        _writer(tmp_path, "w2", chroma_url, database_url, [second], "timed"),
    ]
    (tmp_path / "go").touch()
    for child, name in zip(children, ("w1", "w2")):
        assert _finish(child, tmp_path, name)["statuses"] == ["ingested"]

    reader = _library(tmp_path / "reader", chroma_url, database_url, counter)
    (doc,) = reader.documents(KB)
    assert doc.doc_id == "report"
    ids = [c.chunk_id for c in reader.chunks(KB, "report")]
    assert ids and all(i.startswith(f"report:{doc.content_hash[:8]}:") for i in ids)
    assert sorted(reader.store.all_ids(KB)) == sorted(ids)  # no orphans of the other version
    _whole(reader)


@pytest.mark.slow
@pytest.mark.parametrize("moment", ["before", "after"])
def test_kill_9_mid_write_leaves_check_consistent(
    tmp_path,
    chroma_url,  # noqa: F811
    database_url,
    counter,
    moment,
):
    """Killed after the vectors and before PostgreSQL's commit ("before"), or after the commit
    and before the data dir's catalogue ("after"), holding the knowledge base's lock: a fresh
    data dir finds it whole and the lock free, then the victim's own data dir does."""
    kept = _copy(tmp_path / "in", "kept", "kept")
    _library(tmp_path / "w", chroma_url, database_url, counter).ingest_paths([kept], KB)
    victim_doc = _copy(tmp_path / "in", "victim", "victim", SAMPLE_CONTENT_LIST)  # with images
    child = _writer(tmp_path, "w", chroma_url, database_url, [victim_doc], moment)
    (tmp_path / "go").touch()
    assert child.stdout is not None and child.stdout.readline().strip() == "stopped"
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=30)
    assert _pending(database_url) == 1
    time.sleep(0.2)  # the server ends the dead session (and its lock)

    fresh = _library(tmp_path / "fresh", chroma_url, database_url, counter)
    assert [r.op for r in fresh.recovered_at_open] == ["write"]
    listed = {d.doc_id for d in fresh.documents(KB)}
    assert listed == ({"kept", "victim"} if moment == "after" else {"kept"})
    _whole(fresh)
    assert _pending(database_url) == 0

    victim = _library(tmp_path / "w", chroma_url, database_url, counter)
    assert [r.op for r in victim.recovered_at_open] == ["write"]  # its own row: images, catalogue
    assert {d.doc_id for d in victim.documents(KB)} == listed
    if moment == "after":  # the images staged before the kill are in place
        image = next(c for c in victim.chunks(KB, "victim") if c.image_path)
        assert victim.asset_path(KB, "victim", image.image_path) is not None
    _whole(victim)
    # the lock is free: writing again works from either
    later = _copy(tmp_path / "in", "later", "later")
    again = fresh.ingest_paths([victim_doc, later], KB)
    status = "duplicate" if moment == "after" else "ingested"
    assert [r.status for r in again] == [status, "ingested"], again
    _whole(victim)
    _whole(fresh)


def test_check_reports_and_repairs_a_dead_writers_postgres_row(
    tmp_path,
    chroma_url,  # noqa: F811
    database_url,
    counter,
):
    a = _library(tmp_path / "a", chroma_url, database_url, counter)
    (report,) = a.ingest_paths([TATQA], KB)
    # a writer gone after its journal row and its vectors, before its commit
    ghost = replace(a.chunks(KB, report.doc_id)[0], chunk_id="ghost:0:0000", doc_id="ghost")
    assert isinstance(a.replica, PgReplica)
    a.replica.registry.begin_write(KB, "write", "ghost", [ghost.chunk_id], [])
    a.store.upsert(KB, [ghost], HashEmbedder().embed_passages([ghost.search_text]))

    b = _library(tmp_path / "b", chroma_url, database_url, counter)
    assert [r.doc_id for r in b.recovered_at_open] == ["ghost"]  # settled as b opened
    _whole(b)
    a.replica.registry.begin_write(KB, "write", "ghost", [ghost.chunk_id], [])
    a.store.upsert(KB, [ghost], HashEmbedder().embed_passages([ghost.search_text]))
    found = check_library(b)
    assert [r.doc_id for r in found.interrupted] == ["ghost"] and found.interrupted[0].id < 0
    assert found.knowledge_bases[0].orphan_vectors == ("ghost:0:0000",)
    assert check_library(b, repair=True).consistent
    assert _pending(database_url) == 0 and b.store.count(KB) == len(b.chunks(KB))


def _facts_in(url: str, table: str) -> list[tuple]:  # type: ignore[type-arg]
    db = PgConnection(url)
    try:
        return db.execute(f"SELECT doc_id, count(*) FROM {table} GROUP BY doc_id").fetchall()
    finally:
        db.close()


def test_facts_are_stored_in_postgres_with_their_document_and_pulled(
    tmp_path,
    chroma_url,  # noqa: F811
    database_url,
    counter,
    monkeypatch,
):
    """A document's tables' facts go to PostgreSQL in its transaction (migration 0003); a
    library opened afterwards takes them from there, not from reading the tables again; they
    go with the document and the knowledge base. A document PostgreSQL holds without them (its
    writer older than facts) has them read from its chunks by whichever replica pulls it."""
    import rag_app.index.replica as replica_module

    a = _library(tmp_path / "a", chroma_url, database_url, counter)
    (report,) = a.ingest_paths([SAMPLE_CONTENT_LIST], KB)
    written = a.facts(KB)
    assert written and _facts_in(database_url, "library_facts") == [(report.doc_id, len(written))]

    def read_tables(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise AssertionError("the replica read the tables")

    with monkeypatch.context() as patch:
        patch.setattr(replica_module, "stored_facts", read_tables)
        late = _library(tmp_path / "late", chroma_url, database_url, counter)
        assert late.replica.pulled == 1 and late.facts(KB) == written  # type: ignore[attr-defined]

    db = PgConnection(database_url)  # as a writer older than facts left it
    try:
        for table in ("library_facts", "library_fact_sets"):
            db.execute(f"DELETE FROM {table} WHERE kb = ?", (KB,))
    finally:
        db.close()
    older = _library(tmp_path / "older", chroma_url, database_url, counter)
    assert older.facts(KB) == written and older.fact_counts(KB) == {report.doc_id: len(written)}
    _whole(older)

    again = a.ingest_paths([TATQA], KB)[0]
    assert {d for d, _ in _facts_in(database_url, "library_fact_sets")} == {again.doc_id}
    assert late.delete_document(KB, again.doc_id)
    assert _facts_in(database_url, "library_facts") == []
    assert {f.doc_id for f in a.facts(KB)} == {report.doc_id}
    a.ingest_paths([TATQA], KB)
    a.delete_kb(KB)
    assert _facts_in(database_url, "library_facts") == []
    assert _facts_in(database_url, "library_fact_sets") == []
