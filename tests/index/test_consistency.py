"""Consistency after a crash: the write journal, its recovery when a Library opens, and the
full check (``check_library``), with a real Chroma in tmp_path and the HashEmbedder.

A crash is simulated in-process by a ``BaseException`` raised at a chosen point of a change (an
``Exception`` is settled on the spot; anything else leaves the journal row, as a killed process
does) and then a new Library opening the same data dir; a real kill -9 is in tests/test_crash.py.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

import rag_app.index.library as library_module
from rag_app.config import Settings
from rag_app.index import journal
from rag_app.index.catalogue import Catalogue
from rag_app.index.consistency import check_library
from rag_app.index.embedder import HashEmbedder
from rag_app.index.library import Library
from rag_app.models import Chunk
from tests.conftest import REPO_ROOT, SAMPLE_CONTENT_LIST, SAMPLE_DIR

KB = "default"


class Crash(BaseException):
    """The process dying at this point (not an error the writer could handle)."""


def _open(settings: Settings, counter) -> Library:  # type: ignore[no-untyped-def]
    return Library(settings, embedder=HashEmbedder(), counter=counter)


def _report(folder: Path, stem: str, word: str) -> Path:
    """A copy of the sample report (with its images) made distinct by one paragraph."""
    folder.mkdir(parents=True, exist_ok=True)
    if not (folder / "images").exists():
        shutil.copytree(SAMPLE_DIR / "images", folder / "images")
    items = json.loads(SAMPLE_CONTENT_LIST.read_text())
    items.append({"type": "text", "text": f"Ledger {word} of {stem}.", "page_idx": 0})
    path = folder / f"{stem}_content_list.json"
    path.write_text(json.dumps(items, ensure_ascii=False))
    return path


def _whole(library: Library, kb: str = KB) -> None:
    """Every listed document has exactly its chunks' vectors, nothing else is stored, the
    journal is empty and every image folder belongs to a listed document."""
    owners = library.catalogue.chunk_owners(kb)
    assert set(library.store.all_ids(kb)) == set(owners)
    for doc in library.documents(kb):
        assert sum(d == doc.doc_id for d in owners.values()) == doc.n_chunks
    assert library.catalogue.pending_writes() == []
    report = check_library(library)
    assert report.consistent, report.problems()


def _crash_in(monkeypatch: pytest.MonkeyPatch, owner: object, name: str, after: bool) -> None:
    """Make ``owner.name`` crash before it runs, or after it has done its work."""
    real = getattr(owner, name)

    def crashing(*args, **kwargs):  # type: ignore[no-untyped-def]
        if after:
            real(*args, **kwargs)
        raise Crash(name)

    monkeypatch.setattr(owner, name, crashing)


# Points in a document's write, in order, where the process may die: (object, method, after it
# ran, whether the catalogue holds the new version by then).
WRITE_POINTS = [
    ("catalogue", "begin_write", True, False),
    ("library", "staged_assets", True, False),
    ("store", "upsert", False, False),
    ("store", "upsert", True, False),
    ("catalogue", "add_document", False, False),
    ("catalogue", "add_document", True, True),
    ("store", "delete_ids", False, True),
    ("store", "delete_ids", True, True),
    ("catalogue", "end_write", False, True),
]


def _target(library: Library, where: str) -> object:
    return library_module if where == "library" else getattr(library, where)


@pytest.mark.parametrize(("where", "name", "after", "committed"), WRITE_POINTS)
def test_a_crash_anywhere_in_a_new_document_leaves_it_whole_or_absent(
    settings: Settings, counter, tmp_path: Path, monkeypatch, where, name, after, committed
) -> None:  # type: ignore[no-untyped-def]
    library = _open(settings, counter)
    kept = _report(tmp_path / "in", "kept", "one")
    assert library.ingest_paths([kept])[0].status == "ingested"
    fresh = _report(tmp_path / "in", "fresh", "two")
    with monkeypatch.context() as patch:
        _crash_in(patch, _target(library, where), name, after)
        with pytest.raises(Crash):
            library.ingest_paths([fresh])

    again = _open(settings, counter)  # a new process would do the same on opening
    listed = {d.doc_id for d in again.documents(KB)}
    assert listed == ({"kept", "fresh"} if committed else {"kept"})
    assert (again.asset_path(KB, "fresh", _image(again, "kept")) is not None) == committed
    _whole(again)
    assert {r.status for r in again.ingest_paths([fresh])} <= {"ingested", "duplicate"}
    _whole(again)


def _image(library: Library, doc_id: str) -> str:
    return next(c.image_path for c in library.chunks(KB, doc_id) if c.type == "image")


@pytest.mark.parametrize(("where", "name", "after", "committed"), WRITE_POINTS)
def test_a_crash_while_replacing_a_document_keeps_one_version_whole(
    settings: Settings, counter, tmp_path: Path, monkeypatch, where, name, after, committed
) -> None:  # type: ignore[no-untyped-def]
    library = _open(settings, counter)
    first = _report(tmp_path / "v1", "report", "first")
    assert library.ingest_paths([first])[0].status == "ingested"
    old_ids = set(library.catalogue.chunk_owners(KB))
    second = _report(tmp_path / "v2", "report", "second")
    with monkeypatch.context() as patch:
        _crash_in(patch, _target(library, where), name, after)
        with pytest.raises(Crash):
            library.ingest_paths([second], on_conflict="replace")

    again = _open(settings, counter)
    (doc,) = again.documents(KB)
    ids = set(again.catalogue.chunk_owners(KB))
    assert (ids == old_ids) != committed and (committed is not bool(ids & old_ids))
    assert "second" in again.chunks(KB)[-1].text or not committed
    path = again.asset_path(KB, "report", _image(again, "report"))
    assert path is not None and path.is_file()  # its images are there, whichever it is
    _whole(again)


@pytest.mark.parametrize(
    ("name", "after"),
    [("delete_document", False), ("delete_document", True), ("delete_ids", True)],
)
def test_a_crash_while_deleting_a_document_leaves_it_whole_or_gone(
    settings: Settings, counter, tmp_path: Path, monkeypatch, name, after
) -> None:  # type: ignore[no-untyped-def]
    library = _open(settings, counter)
    assert library.ingest_paths([_report(tmp_path / "in", "gone", "x")])[0].status == "ingested"
    image = library.asset_path(KB, "gone", _image(library, "gone"))
    assert image is not None
    owner = library.catalogue if name == "delete_document" else library.store
    with monkeypatch.context() as patch:
        _crash_in(patch, owner, name, after)
        with pytest.raises(Crash):
            library.delete_document(KB, "gone")

    again = _open(settings, counter)
    deleted = after  # the catalogue decides: once it forgot the document, the rest follows
    assert [d.doc_id for d in again.documents(KB)] == ([] if deleted else ["gone"])
    assert image.exists() != deleted
    _whole(again)


def test_a_crash_while_dropping_a_knowledge_base_finishes_the_drop(
    settings: Settings, counter, tmp_path: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    library = _open(settings, counter)
    library.ingest_paths([_report(tmp_path / "in", "a", "x")], kb="gone")
    library.ingest_paths([_report(tmp_path / "in", "b", "y")], kb="kept")
    library.keyword_search("gone", "中芯国际", 3)  # the keyword index is saved
    keywords = library.keyword_dir("gone")
    assert keywords.is_dir() and library.assets_root("gone").is_dir()
    with monkeypatch.context() as patch:
        _crash_in(patch, library.store, "drop", False)
        with pytest.raises(Crash):
            library.delete_kb("gone")

    again = _open(settings, counter)
    assert again.knowledge_bases() == ["kept"]
    assert "gone" not in again.store.knowledge_bases()
    assert not keywords.exists() and not again.assets_root("gone").exists()
    _whole(again, "kept")
    # made again under the same name, it starts empty (no old keyword index of generation 1)
    again.ingest_paths([_report(tmp_path / "in", "c", "z")], kb="gone")
    assert {c.doc_id for c, _ in again.keyword_search("gone", "中芯国际", 50)} == {"c"}


def test_an_error_while_writing_is_settled_at_once(
    library: Library, tmp_path: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    def failing(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise OSError("disk full")

    monkeypatch.setattr(library.catalogue, "add_document", failing)
    (report,) = library.ingest_paths([_report(tmp_path / "in", "doc", "x")])
    assert report.status == "rejected" and "disk full" in report.message
    assert library.store.all_ids(KB) == [] and library.catalogue.pending_writes() == []
    assert not (library.assets_root(KB) / journal.STAGING / "doc").exists()


# --- live writers --------------------------------------------------------------------------------

_LIVE_WRITER = """
import sys
from pathlib import Path
import numpy as np
from rag_app.config import Settings
from rag_app.index.embedder import HashEmbedder
from rag_app.index.journal import journalled
from rag_app.index.library import Library
from rag_app.models import Chunk
lib = Library(Settings(data_dir=Path(sys.argv[1])), embedder=HashEmbedder())
chunk = Chunk("live:0000", "live", "text", "a chunk being written", "", (0,), (1,))
with lib.write_lock, journalled(lib, "default", "write", "live", ["live:0000"]):
    lib.store.upsert("default", [chunk], HashEmbedder().embed_passages(["x"]))
    print("writing", flush=True)
    sys.stdin.readline()
"""


def test_a_live_writers_journal_is_left_to_it(settings: Settings, counter) -> None:  # type: ignore[no-untyped-def]
    _open(settings, counter).create_kb(KB)
    writer = subprocess.Popen(
        [sys.executable, "-c", _LIVE_WRITER, str(settings.data_dir)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=REPO_ROOT,
    )
    try:
        assert writer.stdout is not None and writer.stdout.readline().strip() == "writing"
        other = _open(settings, counter)  # another process opening meanwhile
        assert other.recovered_at_open == []
        assert [r.doc_id for r in other.catalogue.pending_writes()] == ["live"]
        assert other.store.all_ids(KB) == ["live:0000"]  # its fresh vector is not an orphan
        writer.kill()  # kill -9: the lock goes with the process, the journal row stays
        writer.wait(timeout=30)
        after = _open(settings, counter)
        assert [r.doc_id for r in after.recovered_at_open] == ["live"]
        _whole(after)
    finally:
        writer.kill()
        writer.wait(timeout=30)


def test_a_write_under_way_in_another_thread_is_not_recovered(settings: Settings, counter) -> None:  # type: ignore[no-untyped-def]
    library = _open(settings, counter)
    library.create_kb(KB)
    writing, release = threading.Event(), threading.Event()

    def write() -> None:
        chunk = Chunk("t:0000", "t", "text", "text", "", (0,), (1,))
        with library.write_lock, journal.journalled(library, KB, "write", "t", ["t:0000"]):
            library.store.upsert(KB, [chunk], HashEmbedder().embed_passages(["x"]))
            writing.set()
            release.wait(30)

    thread = threading.Thread(target=write)
    thread.start()
    try:
        assert writing.wait(30)
        other = _open(settings, counter)
        assert other.recovered_at_open == [] and other.store.all_ids(KB) == ["t:0000"]
    finally:
        release.set()
        thread.join(30)
    _whole(library)  # the writer settled its own change: nothing owns t:0000


# --- the full check --------------------------------------------------------------------------


def _two_docs(library: Library, tmp_path: Path) -> None:
    for stem in ("a", "b"):
        assert library.ingest_paths([_report(tmp_path / "in", stem, stem)])[0].status == "ingested"


def test_a_whole_library_checks_consistent_and_repair_changes_nothing(
    library: Library, tmp_path: Path
) -> None:
    _two_docs(library, tmp_path)
    library.keyword_search(KB, "中芯国际", 3)
    report = check_library(library)
    assert report.consistent and report.problems() == []
    (kb,) = report.knowledge_bases
    assert (kb.documents, kb.chunks, kb.vectors, kb.keyword_index) == (
        2,
        kb.chunks,
        kb.chunks,
        "ok",
    )
    assert check_library(library, repair=True).repairs == ()
    assert report.lines()[-1].startswith("consistent")


def test_missing_vectors_are_found_and_re_embedded(library: Library, tmp_path: Path) -> None:
    _two_docs(library, tmp_path)
    ids = sorted(i for i, d in library.catalogue.chunk_owners(KB).items() if d == "b")[:5]
    before = library.store.vectors(KB, ids)
    library.store.delete_ids(KB, ids)

    found = check_library(library)
    assert not found.consistent
    assert found.knowledge_bases[0].missing_vectors == (("b", 5),)
    assert "b: 5 of its vectors are missing" in " ".join(found.problems())

    repaired = check_library(library, repair=True)
    assert repaired.consistent, repaired.problems()
    assert any("re-embedded 5" in r for r in repaired.repairs)
    after = library.store.vectors(KB, ids)
    for i in ids:
        np.testing.assert_allclose(after[i], before[i], atol=1e-6)
    _whole(library)


def test_orphans_everywhere_are_found_and_removed(library: Library, tmp_path: Path) -> None:
    _two_docs(library, tmp_path)
    stray = Chunk("stray:0000", "stray", "text", "no document owns me", "", (0,), (1,))
    library.store.upsert(KB, [stray], HashEmbedder().embed_passages(["x"]))
    library.store.upsert("ghost", [stray], HashEmbedder().embed_passages(["x"]))
    (library.assets_root(KB) / "stray").mkdir(parents=True)
    (library.assets_root(KB) / journal.STAGING / "a").mkdir(parents=True)
    (library.data_dir / "keywords" / "kb_0123456789abcdef").mkdir(parents=True)

    found = check_library(library)
    assert not found.consistent
    (kb,) = found.knowledge_bases
    assert kb.orphan_vectors == ("stray:0000",)
    assert len(kb.orphan_asset_dirs) == 2
    assert found.orphan_collections == ("ghost",)
    assert [Path(d).name for d in found.orphan_dirs] == ["kb_0123456789abcdef"]

    repaired = check_library(library, repair=True)
    assert repaired.consistent, repaired.problems()
    assert "ghost" not in library.store.knowledge_bases()
    assert library.asset_path(KB, "a", _image(library, "a")) is not None  # owners keep theirs
    _whole(library)


def test_a_wrong_keyword_index_is_rebuilt_and_a_stale_one_is_no_problem(
    library: Library, tmp_path: Path
) -> None:
    _two_docs(library, tmp_path)
    library.keyword_search(KB, "中芯国际", 3)
    meta_path = library.keyword_dir(KB) / "ids.json"
    meta = json.loads(meta_path.read_text())
    meta_path.write_text(json.dumps({**meta, "generation": meta["generation"] - 1}))
    assert check_library(library).consistent
    assert check_library(library).knowledge_bases[0].keyword_index == "stale"

    meta_path.write_text(json.dumps({**meta, "ids": meta["ids"][:-3]}))
    found = check_library(library)
    assert found.knowledge_bases[0].keyword_index == "wrong" and not found.consistent
    repaired = check_library(library, repair=True)
    assert repaired.consistent and repaired.knowledge_bases[0].keyword_index == "ok"
    assert len(library.snapshot(KB).keywords.ids) == len(library.chunks(KB))


def test_chunk_rows_of_an_unlisted_document_are_a_catalogue_problem(
    library: Library, tmp_path: Path
) -> None:
    _two_docs(library, tmp_path)
    library.catalogue._db.execute("DELETE FROM documents WHERE doc_id = 'b'")
    found = check_library(library)
    assert any("which is not listed" in p for p in found.catalogue_problems)
    repaired = check_library(library, repair=True)
    assert repaired.consistent, repaired.problems()
    assert set(library.catalogue.chunk_owners(KB).values()) == {"a"}
    _whole(library)


def test_an_unknown_knowledge_base_is_an_error(library: Library) -> None:
    with pytest.raises(ValueError, match="no knowledge base named"):
        check_library(library, kb="absent")


def test_the_journal_rows_round_trip(tmp_path: Path) -> None:
    catalogue = Catalogue(tmp_path / "c.sqlite")
    row = catalogue.begin_write("研报", "write", "d", ["d:1", "d:2"], ["d:0"], "d")
    (pending,) = catalogue.pending_writes()
    assert (pending.id, pending.kb, pending.op, pending.doc_id) == (row, "研报", "write", "d")
    assert (pending.new_ids, pending.old_ids, pending.folder) == (("d:1", "d:2"), ("d:0",), "d")
    assert pending.pid > 0 and pending.started_at
    catalogue.end_write(row)
    assert catalogue.pending_writes() == []


def test_opening_a_library_is_cheap(settings: Settings, counter, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    library = _open(settings, counter)
    _two_docs(library, tmp_path)
    start = time.perf_counter()
    assert journal.recover_interrupted(library) == []
    assert time.perf_counter() - start < 0.5  # one query: 0.02 ms when measured


def test_a_library_opens_even_when_settling_fails(
    settings: Settings, counter, monkeypatch, caplog
) -> None:  # type: ignore[no-untyped-def]
    library = _open(settings, counter)
    library.catalogue.begin_write(KB, "delete", "d", old_ids=["d:0"])

    def failing(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise OSError("chroma is unwell")

    with monkeypatch.context() as patch:
        patch.setattr(journal, "settle", failing)
        opened = _open(settings, counter)
    assert opened.recovered_at_open == [] and "chroma is unwell" in caplog.text
    assert len(opened.catalogue.pending_writes()) == 1  # left for the next writer or check
    assert [r.doc_id for r in _open(settings, counter).recovered_at_open] == ["d"]
