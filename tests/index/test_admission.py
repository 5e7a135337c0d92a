"""Uploads that would collide: nothing is silently written over.

Real Library (Chroma in tmp_path, HashEmbedder): a different file under a taken id is asked
about, replaced with what changed, or kept beside under its own id; a zip holding a content list
and its markdown is one document with its pages; ids that differ only in characters a folder name
cannot hold keep separate image folders; one file that cannot be chunked does not stop a batch.
"""

from __future__ import annotations

import io
import json
import sqlite3
import zipfile
from pathlib import Path

import pytest

from rag_app.index.admission import admit
from rag_app.index.assets import safe_dir
from rag_app.index.catalogue import Catalogue
from rag_app.index.library import Library
from rag_app.ingest import IngestError, load_bytes
from rag_app.models import IngestReport
from tests.conftest import SAMPLE_CONTENT_LIST, SAMPLE_MD

KB = "default"
PNG = b"\x89PNG\r\n\x1a\n" + b"\0" * 32


def _list(word: str, pages: int = 2) -> bytes:
    items = [
        {"type": "text", "text": f"Page {n}: the {word} figure is {n + 10} units.", "page_idx": n}
        for n in range(pages)
    ]
    return json.dumps(items).encode()


def _texts(library: Library, doc_id: str) -> str:
    return " ".join(c.text for c in library.chunks(KB, doc_id))


def test_a_different_file_under_a_taken_id_is_asked_about_and_nothing_is_written(
    library: Library,
) -> None:
    (first,) = library.ingest_bytes([("report_content_list.json", _list("alpha"))])
    before = library.documents(KB)
    (second,) = library.ingest_bytes([("report.json", _list("beta", 3))])
    assert first.status == "ingested" and second.status == "conflict"
    assert second.doc_id == "report" and "report_content_list.json" in second.message
    assert "replace it or keep both" in second.message
    assert library.documents(KB) == before
    assert "alpha" in _texts(library, "report") and "beta" not in _texts(library, "report")
    assert library.keyword_search(KB, "beta", 5) == []


def test_replacing_says_what_changed(library: Library) -> None:
    library.ingest_bytes([("report_content_list.json", _list("alpha", 2))])
    (second,) = library.ingest_bytes(
        [("report_content_list.json", _list("beta", 5))], on_conflict="replace"
    )
    assert second.status == "ingested" and "pages 2 -> 5" in second.message
    assert "items 2 -> 5" in second.message
    (info,) = library.documents(KB)
    assert info.pages == 5 and "beta" in _texts(library, "report")


def test_keeping_both_gives_the_new_file_its_own_id_and_both_stay_searchable(
    library: Library,
) -> None:
    library.ingest_bytes([("report_content_list.json", _list("alpha"))])
    (second,) = library.ingest_bytes([("report.json", _list("beta"))], on_conflict="keep_both")
    (third,) = library.ingest_bytes(
        [("report_content_list.json", _list("gamma"))], on_conflict="keep_both"
    )
    assert second.status == "ingested" and second.doc_id == "report (2)"
    assert "kept beside the document report as report (2)" in second.message
    assert third.doc_id == "report (3)"
    # reported under the file the user gave, with the id it was kept as
    assert (second.name, third.name) == ("report.json", "report_content_list.json")
    assert {d.doc_id for d in library.documents(KB)} == {"report", "report (2)", "report (3)"}
    found = {c.doc_id for c, _ in library.keyword_search(KB, "alpha beta gamma", 10)}
    assert found == {"report", "report (2)", "report (3)"}
    assert {c.doc_id for c in library.chunks(KB, "report (2)")} == {"report (2)"}
    # listed under the name the user was told, not as a second "report_content_list.json"
    assert {d.doc_id: d.name for d in library.documents(KB)} == {
        "report": "report_content_list.json",
        "report (2)": "report (2)",
        "report (3)": "report (3)",
    }


def test_a_catalogue_listing_a_kept_file_under_its_file_name_lists_it_by_its_id(
    library: Library,
) -> None:
    """Written before admission named a kept file by its id: the catalogue renames it when it
    opens, and leaves a document named like a kept one but kept beside nothing alone."""
    library.ingest_bytes([("report_content_list.json", _list("alpha"))])
    library.ingest_bytes([("report.json", _list("beta"))], on_conflict="keep_both")
    library.ingest_bytes([("paper (2).json", _list("gamma"))])
    path = library.catalogue.path
    with sqlite3.connect(path) as db:  # as an older version wrote it
        db.execute("UPDATE documents SET name = 'report.json' WHERE doc_id = 'report (2)'")
        db.execute("UPDATE documents SET name = 'report.json' WHERE doc_id = 'report'")
    names = {d.doc_id: d.name for d in Catalogue(path).documents(KB)}
    assert names == {
        "report": "report.json",
        "report (2)": "report (2)",
        "paper (2)": "paper (2).json",
    }


def test_in_one_batch_a_second_file_with_the_same_id_is_asked_about(library: Library) -> None:
    reports = library.ingest_bytes(
        [("x_content_list.json", _list("alpha")), ("x.json", _list("beta"))]
    )
    assert [r.status for r in reports] == ["ingested", "conflict"]
    kept = library.ingest_bytes(
        [("y_content_list.json", _list("gamma")), ("y.json", _list("delta"))],
        on_conflict="keep_both",
    )
    assert [(r.status, r.doc_id) for r in kept] == [("ingested", "y"), ("ingested", "y (2)")]


def test_the_same_bytes_twice_in_one_batch_are_one_document(library: Library) -> None:
    reports = library.ingest_bytes([("a.json", _list("alpha")), ("b.json", _list("alpha"))])
    assert [r.status for r in reports] == ["ingested", "duplicate"]
    assert reports[1].doc_id == "a" and len(library.documents(KB)) == 1


def test_the_markdown_upgrade_to_a_content_list_says_the_pages_came_back(
    library: Library,
) -> None:
    (first,) = library.ingest_paths([SAMPLE_MD])
    (second,) = library.ingest_paths([SAMPLE_CONTENT_LIST])  # default policy: ask
    assert first.status == "ingested" and second.status == "ingested"
    assert "the markdown version is replaced" in second.message
    assert "format markdown -> content_list" in second.message
    (info,) = library.documents(KB)
    assert info.source_format == "content_list" and info.pages > 1


def test_a_zip_holding_a_content_list_and_its_markdown_is_one_document_with_pages(
    library: Library,
) -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("smic/" + SAMPLE_CONTENT_LIST.name, SAMPLE_CONTENT_LIST.read_bytes())
        archive.writestr("smic/" + SAMPLE_MD.name, SAMPLE_MD.read_bytes())
    reports = library.ingest_bytes([("mineru_out.zip", buffer.getvalue())])
    assert [r.status for r in reports] == ["ingested"]
    (info,) = library.documents(KB)
    assert info.pages > 1 and info.doc_id == "smic_report"
    assert all(c.pages for c in library.chunks(KB))


def test_ids_that_differ_only_in_cleaned_characters_keep_their_own_images(
    library: Library,
) -> None:
    def zipped(inner: str, word: str) -> bytes:
        buffer = io.BytesIO()
        items = [
            {"type": "text", "text": f"the {word} chart", "page_idx": 0},
            {"type": "image", "img_path": "images/chart.png", "page_idx": 0},
        ]
        with zipfile.ZipFile(buffer, "w") as archive:
            archive.writestr(inner, json.dumps(items))
            archive.writestr("images/chart.png", PNG + word.encode())
        return buffer.getvalue()

    assert safe_dir("a b") != safe_dir("a_b") and safe_dir("a_b") == "a_b"
    assert len(safe_dir("研" * 200).encode()) < 255
    for name, word in (("a b_content_list.json", "spaced"), ("a_b_content_list.json", "joined")):
        (report,) = library.ingest_bytes(
            [(name.replace("_content_list.json", ".zip"), zipped(name, word))]
        )
        assert report.status == "ingested", report
    spaced = library.asset_path(KB, "a b", "images/chart.png")
    joined = library.asset_path(KB, "a_b", "images/chart.png")
    assert spaced and joined and spaced != joined
    assert spaced.read_bytes().endswith(b"spaced") and joined.read_bytes().endswith(b"joined")
    assert library.delete_document(KB, "a b")
    assert library.asset_path(KB, "a b", "images/chart.png") is None
    assert joined.is_file()


def test_a_very_long_name_is_stored_with_its_images(library: Library) -> None:
    name = "研报" * 120 + ".zip"
    buffer = io.BytesIO()
    items = [{"type": "image", "img_path": "i.png", "img_caption": ["长名图"], "page_idx": 0}]
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("x_content_list.json", json.dumps(items, ensure_ascii=False))
        archive.writestr("i.png", PNG)
    (report,) = library.ingest_bytes([(name, buffer.getvalue())])
    assert report.status == "ingested", report
    assert library.asset_path(KB, report.doc_id, "i.png") is not None


def test_one_file_that_cannot_be_chunked_is_rejected_and_the_batch_goes_on(
    library: Library,
) -> None:
    loaded = [
        *load_bytes(_list("alpha"), "good.json", 10**7),
        *load_bytes(_list("beta"), "bad.json", 10**7),
        *load_bytes(_list("gamma"), "worse.json", 10**7),
    ]

    def chunk(doc):  # type: ignore[no-untyped-def]
        if doc.doc_id == "bad":
            raise TypeError("a tokenizer surprise")
        if doc.doc_id == "worse":
            raise IngestError("worse.json: item 3 is not readable")
        return ["a chunk"]

    decisions = admit(loaded, library.catalogue, KB, chunk)
    good, bad, worse = decisions
    assert not isinstance(good, IngestReport)
    assert isinstance(bad, IngestReport) and bad.status == "rejected"
    assert "bad.json" == bad.name and "TypeError: a tokenizer surprise" in bad.message
    assert isinstance(worse, IngestReport) and worse.message == "worse.json: item 3 is not readable"


def test_an_unknown_policy_is_refused(library: Library, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="on_conflict"):
        library.ingest_bytes([("a.json", _list("alpha"))], on_conflict="overwrite")  # type: ignore[arg-type]
