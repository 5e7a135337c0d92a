"""The facts of each document's tables, stored in the catalogue at ingest
(rag_app/index/facts_store.py, library_facts.py): written with the document's chunks, read back
as they were read, deleted and replaced with the document, read on first use for a catalogue
written before them, checked by ``rag-app check``; and the series a question asks for read from
them, not from the tables."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from rag_app.config import Settings
from rag_app.facts.series import metric_series
from rag_app.facts.stored import FACTS_VERSION, stored_facts
from rag_app.index.catalogue import MIGRATIONS
from rag_app.index.consistency import check_library
from rag_app.index.embedder import HashEmbedder
from rag_app.index.facts_store import FACTS_SCHEMA
from rag_app.index.library import Library
from rag_app.pipeline.series import library_series
from rag_app.understand.analysis import analyse_query
from tests.conftest import SAMPLE_CONTENT_LIST

KB = "kb"


def _report(name: str, margins: tuple[str, str, str]) -> list[dict]:  # type: ignore[type-arg]
    cells = "".join(f"<td>{m}</td>" for m in margins)
    return [
        {"type": "text", "text": f"{name}（688001.SH）深度报告", "text_level": 1, "page_idx": 0},
        {"type": "text", "text": f"{name}（688001.SH）毛利率回升。", "page_idx": 0},
        {
            "type": "table",
            "table_caption": [f"表1：{name}盈利预测"],
            "page_idx": 1,
            "table_body": "<table><tr><td>项目</td><td>2023A</td><td>2024A</td><td>2025E</td></tr>"
            f"<tr><td>毛利率（%）</td>{cells}</tr>"
            "<tr><td>营业收入（亿元）</td><td>10.2</td><td>11.5</td><td>12.9</td></tr></table>",
        },
    ]


def _rows(library: Library, table: str = "facts") -> list[tuple[str, str]]:
    with sqlite3.connect(library.catalogue.path) as db:
        return db.execute(f"SELECT DISTINCT kb, doc_id FROM {table} ORDER BY doc_id").fetchall()


def _expected(library: Library, doc_id: str) -> tuple:  # type: ignore[type-arg]
    profile = library.profile(KB, doc_id)
    assert profile is not None
    return stored_facts(library.chunks(KB, doc_id), profile.subject)


def test_written_with_the_document_and_read_back_as_read(library: Library) -> None:
    (report,) = library.ingest_paths([SAMPLE_CONTENT_LIST], KB)
    facts = library.facts(KB)
    assert facts and tuple(facts) == _expected(library, report.doc_id)
    assert {f.subject for f in facts} == {"中芯国际"}
    assert library.fact_counts(KB) == {report.doc_id: len(facts)}
    margins = library.facts(KB, [report.doc_id], metric="毛利率")
    assert margins == [f for f in facts if "毛利率" in f.metric]
    first = [f for f in margins if f.caption == "表1：盈利预测与估值"]
    assert [f.value for f in first] == ["38.3", "19.3", "18.6", "21.8", "23.5"]
    assert all(f.unit == "%" and f.period for f in first)
    assert library.facts(KB, []) == [] and library.facts(KB, ["nothing"]) == []


def test_deleted_with_the_document_and_the_knowledge_base(library: Library, ingest_json) -> None:
    a = ingest_json(_report("甲公司", ("30.1", "31.2", "32.3")), "a_content_list.json", KB)
    b = ingest_json(_report("乙公司", ("20.1", "21.2", "22.3")), "b_content_list.json", KB)
    assert _rows(library) == [(KB, a.doc_id), (KB, b.doc_id)]
    assert library.delete_document(KB, a.doc_id)
    assert _rows(library) == _rows(library, "fact_sets") == [(KB, b.doc_id)]
    assert {f.doc_id for f in library.facts(KB)} == {b.doc_id}
    library.delete_kb(KB)
    assert _rows(library) == _rows(library, "fact_sets") == []


def test_replaced_when_the_document_is(library: Library, ingest_json) -> None:
    ingest_json(_report("甲公司", ("30.1", "31.2", "32.3")), "a_content_list.json", KB)
    again = ingest_json(
        _report("甲公司", ("40.1", "41.2", "42.3")),
        "a_content_list.json",
        KB,
        on_conflict="replace",
    )
    assert again.status == "ingested"
    ids = {c.chunk_id for c in library.chunks(KB)}
    facts = library.facts(KB, metric="毛利率")
    assert [f.value for f in facts] == ["40.1", "41.2", "42.3"]
    assert {f.chunk_id for f in library.facts(KB)} <= ids  # none of the old version's cells


def test_a_failed_write_leaves_no_facts(library: Library, ingest_json) -> None:
    ingest_json(_report("甲公司", ("30.1", "31.2", "32.3")), "a_content_list.json", KB)
    (doc,) = library.documents(KB)
    chunks = library.chunks(KB, doc.doc_id)
    twice = [chunks[0], chunks[0]]  # a repeated chunk id: the insert fails mid-transaction
    with pytest.raises(sqlite3.IntegrityError):
        library.catalogue.add_document(
            KB, doc.__class__(**{**vars(doc), "doc_id": "other"}), twice, [[], []], "", "{}",
            stored_facts(chunks),
        )  # fmt: skip
    assert _rows(library) == [(KB, doc.doc_id)] and "other" not in library.fact_counts(KB)


def test_a_catalogue_older_than_facts_reads_them_on_first_use(
    settings: Settings,
    counter,  # type: ignore[no-untyped-def]
) -> None:
    library = Library(settings, embedder=HashEmbedder(), counter=counter)
    (report,) = library.ingest_paths([SAMPLE_CONTENT_LIST], KB)
    written = library.facts(KB)
    library.catalogue.close()
    with sqlite3.connect(settings.data_dir / "catalogue.sqlite") as db:  # as written before
        db.execute("DROP TABLE facts")
        db.execute("DROP TABLE fact_sets")
        db.execute(f"PRAGMA user_version={MIGRATIONS.index(FACTS_SCHEMA)}")
    db.close()
    reopened = Library(settings, embedder=HashEmbedder(), counter=counter)
    assert _rows(reopened) == []  # opening reads nothing
    assert reopened.fact_counts(KB) == {report.doc_id: len(written)}
    assert reopened.facts(KB) == written
    assert _rows(reopened) == [(KB, report.doc_id)]  # kept: read once


def test_facts_of_another_reader_version_are_read_again(library: Library) -> None:
    (report,) = library.ingest_paths([SAMPLE_CONTENT_LIST], KB)
    written = library.facts(KB)
    library.catalogue._db.execute("UPDATE facts SET value = 'old' WHERE seq = 0")
    library.catalogue._db.execute(f"UPDATE fact_sets SET version = {FACTS_VERSION - 1}")
    assert library.facts(KB) == written
    with sqlite3.connect(library.catalogue.path) as db:
        assert db.execute("SELECT version FROM fact_sets").fetchall() == [(FACTS_VERSION,)]


def test_unkept_facts_are_given_all_the_same(
    library: Library, monkeypatch: pytest.MonkeyPatch
) -> None:
    (report,) = library.ingest_paths([SAMPLE_CONTENT_LIST], KB)
    written = library.facts(KB)
    library.catalogue._db.execute("DELETE FROM fact_sets")

    def read_only(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise sqlite3.OperationalError("attempt to write a readonly database")

    monkeypatch.setattr(library.catalogue, "store_facts", read_only)
    assert library.facts(KB) == written  # read from the chunks, not kept
    assert library.fact_counts(KB) == {report.doc_id: len(written)}


def test_facts_whose_chunks_are_gone_are_a_problem_check_repairs(library: Library) -> None:
    (report,) = library.ingest_paths([SAMPLE_CONTENT_LIST], KB)
    written = library.facts(KB)
    assert check_library(library).consistent
    library.catalogue._db.execute("UPDATE facts SET chunk_id = 'gone' WHERE seq < 3")
    found = check_library(library)
    assert any("3 facts of" in p and "not listed" in p for p in found.catalogue_problems)
    repaired = check_library(library, repair=True)
    assert repaired.consistent, repaired.problems()
    assert library.facts(KB) == written  # read again from its chunks


def test_a_series_is_read_from_the_stored_facts(
    library: Library, ingest_json, monkeypatch: pytest.MonkeyPatch
) -> None:
    ingest_json(_report("甲公司", ("30.1", "31.2", "32.3")), "a_content_list.json", KB)
    ingest_json(_report("乙公司", ("20.1", "21.2", "22.3")), "b_content_list.json", KB)
    query = analyse_query("甲公司和乙公司2023-2025年毛利率对比")
    profiles = library.profiles(KB)
    tables = {d: [c for c in library.chunks(KB, d) if c.type == "table"] for d in profiles}
    subjects = {d: p.subject for d, p in profiles.items()}
    from_tables = metric_series(query, tables, subjects)
    assert from_tables is not None and len(from_tables.points) == 6

    def no_tables(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise AssertionError("the series read the chunks")

    monkeypatch.setattr(library, "chunks", no_tables)
    assert library_series(library, KB, query) == from_tables
    # what is stored is what is read: a stored cell changed shows in the series
    library.catalogue._db.execute("UPDATE facts SET value = '99.9' WHERE value = '30.1'")
    series = library_series(library, KB, query)
    assert series is not None and "99.9" in [p.value for p in series.points]


def test_the_sample_series_of_the_library_page(library: Library, tmp_path: Path) -> None:
    library.ingest_paths([SAMPLE_CONTENT_LIST], KB)
    series = library_series(library, KB, analyse_query("毛利率"), asked=True)
    assert series is not None
    assert [p.value for p in series.points] == ["38.3", "19.3", "18.6", "21.8", "23.5"]
