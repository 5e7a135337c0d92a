"""A document's profile (rag_app/index/profile.py): read off its chunks, stored with its
catalogue rows, deleted with them, computed for a library written before profiles."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest

from rag_app.config import Settings
from rag_app.index.catalogue import MIGRATIONS
from rag_app.index.catalogue_reads import PROFILES_SCHEMA
from rag_app.index.embedder import HashEmbedder
from rag_app.index.library import Library
from rag_app.index.profile import (
    PROFILE_VERSION,
    DocumentProfile,
    Metric,
    merge_profiles,
    period_range,
    profile_from_json,
    profile_of,
    profile_to_json,
)
from rag_app.ingest import ChunkingOptions, chunk_document
from rag_app.ingest.loader import load_bytes, load_path
from rag_app.models import Chunk
from tests.conftest import REPO_ROOT, SAMPLE_CONTENT_LIST

BYD = REPO_ROOT / "assets" / "broker_eval" / "docs" / "byd_002594_content_list.json"


def _chunks(settings: Settings, counter, path: Path) -> list[Chunk]:  # type: ignore[no-untyped-def]
    (loaded,) = load_path(path, settings.max_file_bytes)
    return chunk_document(loaded.document, counter, ChunkingOptions.from_settings(settings))


def _listed(settings: Settings, counter, items: list[dict]) -> DocumentProfile:  # type: ignore[no-untyped-def,type-arg]
    data = json.dumps(items, ensure_ascii=False).encode()
    (loaded,) = load_bytes(data, "small_content_list.json", settings.max_file_bytes)
    options = ChunkingOptions.from_settings(settings)
    return profile_of(chunk_document(loaded.document, counter, options))


@pytest.fixture(scope="module")
def sample() -> DocumentProfile:
    from rag_app.text.tokens import get_token_counter

    settings = Settings(data_dir=Path("unused"))
    return profile_of(_chunks(settings, get_token_counter(), SAMPLE_CONTENT_LIST))


def test_sample_subject_and_its_ticker(sample: DocumentProfile) -> None:
    assert sample.subject == "中芯国际"
    smic = next(e for e in sample.entities if e.name == "中芯国际")
    assert smic.tickers == ("688981.SH",)


def test_sample_ranking_table_names_its_companies(sample: DocumentProfile) -> None:
    names = [e.name for e in sample.entities]
    for company in ("台积电", "三星", "联电", "格芯", "华虹集团", "力积电"):
        assert company in names
    # the ranking table's text columns are not metrics; its value columns are, with units
    metric_names = {m.name for m in sample.metrics}
    assert not {"排名", "厂商", "总部"} & metric_names
    assert Metric("市占率", "%") in sample.metrics
    assert Metric("同比", "%") in sample.metrics


def test_sample_metrics_carry_units_from_label_or_caption(sample: DocumentProfile) -> None:
    assert Metric("营业收入", "百万元") in sample.metrics  # 表1's row label "营业收入（百万元）"
    assert Metric("资本开支", "亿美元") in sample.metrics
    assert Metric("总市值", "亿元") in sample.metrics  # 基本数据, a fact sheet without header
    assert Metric("智能手机", "百万美元") in sample.metrics  # the unit of 表2's caption


def test_sample_periods_cover_its_tables(sample: DocumentProfile) -> None:
    for period in ("2019Q1", "2023Q1", "2024Q4", "2022A", "2024", "2025E", "2026E"):
        assert period in sample.periods
    assert period_range(sample.periods) == "2019Q1–2026E"


def test_sample_tables_and_figures_by_number_and_caption(sample: DocumentProfile) -> None:
    assert [e.label for e in sample.tables if e.label] == [f"表{n}" for n in range(1, 8)]
    assert [e.label for e in sample.figures] == ["图1", "图2", "图3"]
    table3 = next(e for e in sample.tables if e.label == "表3")
    assert table3.caption == "表3：2024年全球晶圆代工厂营收排名"
    assert table3.page == 2
    assert any(e.caption == "基本数据" and not e.label for e in sample.tables)


def test_small_content_list_tickers_aliases_and_defined_terms(settings: Settings, counter) -> None:  # type: ignore[no-untyped-def]
    profile = _listed(
        settings,
        counter,
        [
            {"type": "text", "text": "Orchestra BioMed (NASDAQ: OBIO) 季度报告", "text_level": 1},
            {"type": "text", "text": "公司与宁德时代（300750.SZ）合作，宁德时代（CATL）为其客户。"},
            {"type": "text", "text": "公司主要产品为图像传感器（CIS）。图像传感器需求回暖。"},
            {
                "type": "table",
                "table_caption": ["Figure 2 is not this; 表9：可比公司估值（倍）"],
                "table_body": "<table><tr><td>公司</td><td>2024A</td><td>2025E</td></tr>"
                "<tr><td>市盈率</td><td>20.1</td><td>18.0</td></tr></table>",
            },
        ],
    )
    names = {e.name: e for e in profile.entities}
    assert names["Orchestra BioMed"].tickers == ("NASDAQ: OBIO",)
    assert names["宁德时代"].tickers == ("300750.SZ",)
    assert names["宁德时代"].aliases == ("CATL",)
    # a term, not a company; its name is the tail the document writes again (not "公司主要产品为…")
    assert Metric("图像传感器", "", "CIS") in profile.metrics
    assert Metric("市盈率", "倍") in profile.metrics
    assert profile.periods == ("2024A", "2025E")
    (table,) = profile.tables
    assert table.label == ""  # its caption does not start with its number


def test_json_round_trip_and_union(sample: DocumentProfile, settings: Settings, counter) -> None:  # type: ignore[no-untyped-def]
    assert profile_from_json(profile_to_json(sample)) == sample
    byd = profile_of(_chunks(settings, counter, BYD))
    union = merge_profiles([sample, byd])
    assert union.subject == "中芯国际 / 比亚迪"
    assert {e.name for e in union.entities} == {e.name for e in sample.entities + byd.entities}
    assert len(union.exhibits) == len(sample.exhibits) + len(byd.exhibits)
    assert union.periods == tuple(sorted(set(sample.periods) | set(byd.periods)))


def _rows(library: Library) -> list[tuple[str, str]]:
    with sqlite3.connect(library.catalogue.path) as db:
        return db.execute("SELECT kb, doc_id FROM profiles").fetchall()


def test_stored_with_the_document_and_deleted_with_it(library: Library) -> None:
    (report,) = library.ingest_paths([SAMPLE_CONTENT_LIST], "kb")
    assert _rows(library) == [("kb", report.doc_id)]
    stored = library.profile("kb", report.doc_id)
    assert stored == profile_of(library.chunks("kb", report.doc_id))
    assert library.library_profile("kb") == merge_profiles([stored])  # type: ignore[list-item]
    assert library.delete_document("kb", report.doc_id)
    assert _rows(library) == []
    assert library.profile("kb", report.doc_id) is None
    assert library.library_profile("kb") == DocumentProfile("", "")


def test_profiles_are_read_once_per_version_of_their_document(library: Library) -> None:
    """A profile is parsed once per version of its document: a second read of the library
    reads no stored profile again, a document written anew is read as written now, and a
    deleted one is gone from the library's profiles."""
    (report,) = library.ingest_paths([SAMPLE_CONTENT_LIST], "kb")
    first = library.profiles("kb")[report.doc_id]
    asked: list[object] = []
    original = library.catalogue.profiles

    def counted(kb: str, doc_ids: object = None) -> dict[str, str]:
        asked.append(doc_ids)
        return original(kb, doc_ids)  # type: ignore[arg-type]

    library.catalogue.profiles = counted  # type: ignore[method-assign]
    assert library.profiles("kb")[report.doc_id] is first and asked == []
    edited = json.loads(SAMPLE_CONTENT_LIST.read_text(encoding="utf-8"))
    edited.append({"type": "text", "text": "附注：本版另有一段。", "page_idx": 0})
    data = json.dumps(edited, ensure_ascii=False).encode()
    (again,) = library.ingest_bytes([(SAMPLE_CONTENT_LIST.name, data)], "kb", on_conflict="replace")
    assert again.doc_id == report.doc_id and again.status == "ingested"
    now = library.profiles("kb")[report.doc_id]
    assert asked == [] and now == profile_of(library.chunks("kb", report.doc_id))
    assert library.delete_document("kb", report.doc_id)
    assert library.profiles("kb") == {}


def test_a_failed_write_leaves_neither_document_nor_profile(library: Library) -> None:
    (report,) = library.ingest_paths([SAMPLE_CONTENT_LIST], "kb")
    chunks = library.chunks("kb", report.doc_id)
    info = library.catalogue.document("kb", report.doc_id)
    assert info is not None
    twice = [chunks[0], chunks[0]]  # a repeated chunk id: the insert fails mid-transaction
    with pytest.raises(sqlite3.IntegrityError):
        library.catalogue.add_document(
            "kb", replace(info, doc_id="other"), twice, [[], []], "", "{}"
        )
    assert library.catalogue.document("kb", "other") is None
    assert _rows(library) == [("kb", report.doc_id)]


def test_a_library_older_than_profiles_gets_them_on_first_read(settings: Settings, counter) -> None:  # type: ignore[no-untyped-def]
    library = Library(settings, embedder=HashEmbedder(), counter=counter)
    (report,) = library.ingest_paths([SAMPLE_CONTENT_LIST], "kb")
    library.catalogue.close()
    with sqlite3.connect(settings.data_dir / "catalogue.sqlite") as db:  # as written before
        db.execute("DROP TABLE profiles")
        db.execute(f"PRAGMA user_version={MIGRATIONS.index(PROFILES_SCHEMA)}")
    reopened = Library(settings, embedder=HashEmbedder(), counter=counter)
    assert _rows(reopened) == []  # opening computes nothing
    profile = reopened.profile("kb", report.doc_id)
    assert profile is not None and profile.subject == "中芯国际"
    assert _rows(reopened) == [("kb", report.doc_id)]  # kept: computed once
    assert reopened.profiles("kb") == {report.doc_id: profile}


def test_a_profile_read_by_an_older_version_is_read_again(settings: Settings, counter) -> None:  # type: ignore[no-untyped-def]
    library = Library(settings, embedder=HashEmbedder(), counter=counter)
    (report,) = library.ingest_paths([SAMPLE_CONTENT_LIST], "kb")
    library.catalogue.close()
    with sqlite3.connect(settings.data_dir / "catalogue.sqlite") as db:
        (data,) = db.execute("SELECT data FROM profiles").fetchone()
        old = json.loads(data)
        old.pop("version")
        old["subject"] = "旧的读法"  # what an older reading kept
        db.execute("UPDATE profiles SET data = ?", (json.dumps(old, ensure_ascii=False),))
    reopened = Library(settings, embedder=HashEmbedder(), counter=counter)
    profile = reopened.profile("kb", report.doc_id)
    assert profile is not None and profile.subject == "中芯国际"
    with sqlite3.connect(settings.data_dir / "catalogue.sqlite") as db:
        (data,) = db.execute("SELECT data FROM profiles").fetchone()
    assert json.loads(data)["version"] == PROFILE_VERSION  # kept as read now


def test_a_column_of_tickers_makes_its_rows_companies(settings: Settings, counter) -> None:  # type: ignore[no-untyped-def]
    profile = _listed(
        settings,
        counter,
        [
            {
                "type": "table",
                "table_caption": ["表2：可比公司估值"],
                "table_body": "<table><tr><td rowspan=2>公司</td><td rowspan=2>代码</td>"
                "<td colspan=2>EPS（元）</td></tr><tr><td>2024A</td><td>2025E</td></tr>"
                "<tr><td>鼎味股份</td><td>603317.SH</td><td>1.02</td><td>1.18</td></tr>"
                "<tr><td>沐溪食品</td><td>605376.SH</td><td>1.55</td><td>1.87</td></tr>"
                "<tr><td>可比公司平均</td><td>—</td><td>1.20</td><td>1.40</td></tr></table>",
            },
        ],
    )
    names = {e.name: e for e in profile.entities}
    assert names["沐溪食品"].tickers == ("605376.SH",) and "可比公司平均" not in names
    metrics = {m.name for m in profile.metrics}
    assert "EPS" in metrics and not {"沐溪食品", "鼎味股份"} & metrics


def test_a_column_of_tickers_is_read_past_an_average_spanning_the_first_columns(
    settings: Settings,
    counter,  # type: ignore[no-untyped-def]
) -> None:
    """平均值 written across 公司 and 代码 leaves the ticker column a column of tickers; a name
    before its ticker keeps its whole name where the document never writes its tail alone
    (岳泉酒业, not the 酒业 every liquor maker's name ends with); a ranking's 合计 and 其他 are no
    companies."""
    profile = _listed(
        settings,
        counter,
        [
            {"type": "text", "text": "岳泉酒业（603386.SH）：高端化持续，维持买入评级"},
            {
                "type": "table",
                "table_caption": ["表5：可比公司估值"],
                "table_body": "<table><tr><td>公司</td><td>代码</td><td>PE 2025E</td></tr>"
                "<tr><td>剑阳酒业</td><td>000869.SZ</td><td>15.2</td></tr>"
                "<tr><td>酉水酒业</td><td>600784.SH</td><td>24.2</td></tr>"
                "<tr><td colspan=2>平均值</td><td>19.7</td></tr></table>",
            },
            {
                "type": "table",
                "table_caption": ["表6：2024年挖掘机销量排名"],
                "table_body": "<table><tr><td>排名</td><td>公司</td><td>销量（台）</td></tr>"
                "<tr><td>1</td><td>岱山重工</td><td>27122</td></tr>"
                "<tr><td>2</td><td>柳岳机械</td><td>15230</td></tr>"
                "<tr><td>—</td><td>其他</td><td>9000</td></tr>"
                "<tr><td>—</td><td>合计</td><td>51352</td></tr></table>",
            },
        ],
    )
    names = {e.name: e for e in profile.entities}
    assert names["剑阳酒业"].tickers == ("000869.SZ",) and "平均值" not in names
    assert names["岳泉酒业"].tickers == ("603386.SH",) and "酒业" not in names
    assert {"岱山重工", "柳岳机械"} <= set(names) and not {"其他", "合计"} & set(names)


def test_periods_named_from_the_reports_own_are_periods(settings: Settings, counter) -> None:  # type: ignore[no-untyped-def]
    profile = _listed(
        settings,
        counter,
        [
            {
                "type": "table",
                "table_caption": ["主要会计数据"],
                "table_body": "<table><tr><td>项目</td><td>本报告期</td><td>上年同期</td></tr>"
                "<tr><td>营业收入</td><td>1,204.5</td><td>1,100.2</td></tr>"
                "<tr><td>销售费用</td><td>300.1</td><td>280.9</td></tr></table>",
            },
        ],
    )
    metrics = {m.name for m in profile.metrics}
    assert {"营业收入", "销售费用"} <= metrics and not {"本报告期", "上年同期"} & metrics


def test_a_metric_headed_under_its_period_is_a_metric(settings: Settings, counter) -> None:  # type: ignore[no-untyped-def]
    # periods across, each over its metrics (2024年 / 新业务价值, 新业务价值率（%）): the
    # headers' own words are metrics, as the row labels are; a date's day, a quarter's label
    # and a modifier alone (实际值) are not
    profile = _listed(
        settings,
        counter,
        [
            {
                "type": "table",
                "table_caption": ["分渠道新业务价值"],
                "table_body": "<table><tr><td rowspan='2'>渠道</td><td colspan='2'>2024年</td>"
                "<td colspan='2'>2023年</td><td>2024年12月31日</td></tr>"
                "<tr><td>新业务价值</td><td>新业务价值率（%）</td><td>新业务价值</td>"
                "<td>新业务价值率（%）</td><td>实际值</td></tr>"
                "<tr><td>个人代理渠道</td><td>8,426</td><td>24.1</td><td>7,105</td><td>21.3</td>"
                "<td>1</td></tr>"
                "<tr><td>银行保险渠道</td><td>2,187</td><td>12.4</td><td>1,893</td><td>10.2</td>"
                "<td>2</td></tr></table>",
            },
        ],
    )
    metrics = {m.name: m.unit for m in profile.metrics}
    assert {"个人代理渠道", "银行保险渠道", "新业务价值", "新业务价值率"} <= set(metrics)
    assert metrics["新业务价值率"] == "%"
    assert not {"实际值", "31日", "2024年"} & set(metrics)


def test_a_monthly_tables_month_rows_are_no_entities(settings: Settings, counter) -> None:  # type: ignore[no-untyped-def]
    # months down the first column (10月份): periods, not names a question could ask about, so
    # "10月份客座率" reads 10月份 as its month
    profile = _listed(
        settings,
        counter,
        [
            {
                "type": "table",
                "table_caption": ["2025年各月运输数据"],
                "table_body": "<table><tr><td>月份</td><td>旅客运输量（万人次）</td>"
                "<td>客座率（%）</td></tr><tr><td>9月份</td><td>412.5</td><td>84.1</td></tr>"
                "<tr><td>10月份</td><td>438.2</td><td>85.6</td></tr>"
                "<tr><td>第三季度</td><td>1,230.8</td><td>84.9</td></tr>"
                "<tr><td>翔鹭支线</td><td>21.4</td><td>79.2</td></tr></table>",
            },
        ],
    )
    names = {e.name for e in profile.entities}
    assert "翔鹭支线" in names and not {"9月份", "10月份", "第三季度"} & names
    assert {"旅客运输量", "客座率"} <= {m.name for m in profile.metrics}
