"""Smart routing and the smart/hybrid strategies (layered recall, fused scoring, quotas, dedupe,
traces) over a real library with the deterministic test embedder."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from rag_app.config import Settings, load_settings
from rag_app.index.library import Library
from rag_app.models import Chunk, Hit, SearchFilter
from rag_app.retrieve.routing import RoutingCues, detect_query_type
from rag_app.retrieve.scoring import _apply_quotas, _dedupe
from rag_app.retrieve.strategies import StrategyOptions, _Run, options_from, retrieve
from rag_app.retrieve.subjects import _interleave, company_named, without
from rag_app.text.phrasing import asks_for_list
from rag_app.understand.analysis import analyse_query
from tests.conftest import SAMPLE_CONTENT_LIST, TEST_DATA, hash_library

KB = "default"


# -- routing -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "kind"),
    [
        ("请给出中芯国际产线一览表", "table"),
        ("表3 中的全球晶圆代工厂排名", "table"),
        ("Show me table 2 of the report", "table"),
        ("图2 显示的毛利率走势", "image"),
        ("Open figure 3 of the report", "image"),
        ("请引用原文段落说明公司的竞争策略", "text"),
    ],
)
def test_explicit_cues_route_to_one_type(query: str, kind: str) -> None:
    # a first look that confirms the named type (smart mode always has one)
    threshold = StrategyOptions().constants_threshold
    routing = detect_query_type(analyse_query(query), threshold, look=(kind, kind, "text"))
    assert routing.detected_type == kind
    assert routing.single_type and routing.confidence >= threshold
    assert routing.evidence and routing.why.key == "single"
    assert routing.why.value("type") == kind and routing.threshold == threshold


def test_an_implicit_lean_alone_stays_hybrid() -> None:
    routing = detect_query_type(
        analyse_query("中芯国际的毛利率是多少？")
    )  # leans to tables, names none
    assert routing.detected_type == "table"
    assert not routing.single_type and 0 < routing.confidence < routing.threshold
    assert routing.why.key == "hybrid"
    assert "all types" in routing.reason and "types compete" in routing.reason


def test_no_cues_search_everything() -> None:
    routing = detect_query_type(analyse_query("中芯国际"), look=("table",) * 5)
    assert not routing.single_type and routing.detected_type == "table"  # the look alone: no route
    assert routing.why.key == "no_cues" and routing.evidence == ()
    assert routing.reason.startswith("no type cues (first look: table")


def test_latin_cues_match_whole_words_only() -> None:
    assert detect_query_type(analyse_query("operations of the tablet maker")).evidence == ()
    assert "table" in detect_query_type(analyse_query("the table of operations")).scores[1]


def test_a_matching_caption_is_evidence() -> None:
    routing = detect_query_type(
        analyse_query("盈利预测与估值"), caption_matches={"table": ["表1：盈利预测与估值"]}
    )
    assert routing.detected_type == "table"
    assert any("caption" in e for e in routing.evidence)


def test_types_not_in_the_library_get_no_evidence() -> None:
    routing = detect_query_type(analyse_query("图2 的走势"), available=("text", "table"))
    assert routing.detected_type != "image" and not routing.single_type


def test_cues_extend_from_settings() -> None:
    query = "中芯国际的K线形态"
    assert not detect_query_type(analyse_query(query)).single_type
    cues = RoutingCues().with_pairs(explicit=(("image", "K线"),))
    routing = detect_query_type(analyse_query(query), cues=cues, look=("image", "text"))
    assert routing.detected_type == "image" and routing.single_type
    settings = Settings(extra_explicit_cues=(("image", "K线"),))
    assert "k线" in options_from(settings).cues.explicit["image"]
    with pytest.raises(ValueError, match="unknown type"):
        RoutingCues().with_pairs(explicit=(("video", "视频"),))
    from_env = load_settings({"RAG_APP_ROUTING_CUES": "image=K线，分时图; table=明细"})
    assert from_env.extra_explicit_cues == (
        ("image", "K线"),
        ("image", "分时图"),
        ("table", "明细"),
    )
    with pytest.raises(ValueError, match="type=cue"):
        load_settings({"RAG_APP_ROUTING_CUES": "video=视频"})


# -- strategies over a library -------------------------------------------------------------------


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory, counter) -> Library:  # type: ignore[no-untyped-def]
    return hash_library(
        tmp_path_factory.mktemp("strategies"),
        counter,
        [SAMPLE_CONTENT_LIST, TEST_DATA / "tatqa_like_content_list.json"],
    )


def _check_trace(hits: tuple[Hit, ...], k: int) -> None:
    assert 0 < len(hits) <= k
    assert [h.rank for h in hits] == list(range(1, len(hits) + 1))
    assert len({h.chunk.chunk_id for h in hits}) == len(hits)
    for hit in hits:
        # every hit says which layer found it and carries each signal's score
        assert hit.strategy and hit.note.startswith(hit.chunk.type)
        names = dict(hit.signals)
        assert "dense" in names or "bm25" in names
        assert hit.weight > 0


def test_hybrid_searches_every_type_with_a_trace(corpus: Library) -> None:
    trace = retrieve(corpus, KB, "中芯国际 营收 产能 图 表", "hybrid", 10)
    _check_trace(trace.hits, 10)
    assert {h.chunk.type for h in trace.hits} >= {"text", "table", "image"}
    assert trace.routing is None and trace.ms > 0
    # layered recall ran per type and says what each layer added
    assert {s.type for s in trace.layers} >= {"text", "table", "image"}
    assert any(s.layer == "structure" for s in trace.layers if s.type == "table")
    assert all(s.layer != "structure" for s in trace.layers if s.type == "text")


def test_structure_match_finds_the_named_table_first(corpus: Library) -> None:
    trace = retrieve(corpus, KB, "中芯国际产线一览", "hybrid", 5)
    # 表6 comes in two parts (split by rows); the query names its caption whole
    top = trace.hits[:2]
    assert [h.chunk.caption for h in top] == ["表6：中芯国际产线一览"] * 2
    assert all(h.chunk.type == "table" and h.chunk.parent_table_id for h in top)
    assert [h.signal("structure").score for h in top] == [1.0, 1.0]  # type: ignore[union-attr]
    off = retrieve(
        corpus, KB, "中芯国际产线一览", "hybrid", 5, options=StrategyOptions(use_structure=False)
    )
    assert all(h.signal("structure") is None for h in off.hits)


def test_smart_routes_a_table_question_to_tables(corpus: Library) -> None:
    trace = retrieve(corpus, KB, "请列出表6 中芯国际产线一览表", "smart", 5)
    assert trace.routing is not None and trace.routing.single_type
    assert trace.routing.detected_type == "table"
    assert len(trace.hits) == 5
    assert [h.chunk.caption for h in trace.hits[:2]] == ["表6：中芯国际产线一览"] * 2
    assert trace.notes[0].startswith("smart: table preferred")
    # the preferred type's hits carry their document's evidence from every type; every hit
    # its fused rank
    assert all(h.signal("document") is not None for h in trace.hits if h.chunk.type == "table")
    assert all(h.signal("smart_fused") is not None for h in trace.hits)


def test_smart_is_hybrid_plus_a_preference_never_a_replacement(corpus: Library) -> None:
    """Routed, smart keeps what hybrid finds: its hits are hybrid's with the preferred type
    moved up, so hybrid's best hit of another type stays within the first places."""
    question = "请列出表6 中芯国际产线一览表"
    smart = retrieve(corpus, KB, question, "smart", 10)
    hybrid = retrieve(corpus, KB, question, "hybrid", 10)
    assert smart.routing is not None and smart.routing.single_type
    smart_ids = [h.chunk.chunk_id for h in smart.hits]
    other = [h for h in hybrid.hits if h.chunk.type != "table"]
    assert other, "hybrid holds another type to keep"
    best_other = hybrid.hits.index(other[0])
    tables_before = sum(h.chunk.type == "table" for h in hybrid.hits[best_other:])
    # it can give way only to the tables ranked after it
    assert smart_ids.index(other[0].chunk.chunk_id) <= best_other + tables_before
    assert set(smart_ids[:5]) <= {h.chunk.chunk_id for h in hybrid.hits} | {
        h.chunk.chunk_id for h in smart.hits if h.chunk.type == "table"
    }


def test_smart_without_cues_is_hybrid(corpus: Library) -> None:
    trace = retrieve(corpus, KB, "中芯国际", "smart", 10)
    assert trace.routing is not None and not trace.routing.single_type
    assert {h.chunk.type for h in trace.hits} == {"text", "table", "image"}


def test_smart_falls_back_when_the_type_finds_too_little(corpus: Library, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A library with a single figure: a figure question routes to images, finds one hit (fewer
    than k) and the other types keep the rest rather than answer from one figure."""
    items = [
        {"type": "text", "text": "华虹半导体 2024年 营收 走势", "text_level": 1, "page_idx": 0},
        {"type": "text", "text": "华虹半导体2024年营收143.9亿元，同比下降11%。", "page_idx": 0},
        {"type": "text", "text": "8英寸产能利用率维持高位，12英寸产线持续爬坡。", "page_idx": 0},
        {
            "type": "image",
            "img_path": "images/a.jpg",
            "image_caption": ["图1：华虹半导体季度营收"],
            "page_idx": 0,
        },
    ]
    path = tmp_path / "tiny_content_list.json"
    path.write_text(json.dumps(items, ensure_ascii=False), encoding="utf-8")
    corpus.ingest_paths([path], "tiny")
    trace = retrieve(corpus, "tiny", "图1 华虹半导体营收走势图", "smart", 5)
    assert trace.routing is not None and trace.routing.single_type
    assert trace.routing.detected_type == "image"
    assert trace.hits[0].chunk.type == "image"  # the routed type first
    assert {h.chunk.type for h in trace.hits} == {"text", "image"}


def test_a_table_follows_the_paragraph_that_introduces_it(corpus: Library, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """ "Segment revenue is shown below" outranks the table of numbers it introduces (short text,
    the question's words); the table is lifted to 0.9 of its score, so it comes with it."""
    rows = "".join(
        f"<tr><td>Segment {n}</td><td>{n * 101}</td><td>{n * 97}</td></tr>" for n in range(1, 40)
    )
    items = [
        {"type": "text", "text": "Note 7 Segments", "text_level": 1, "page_idx": 0},
        {
            "type": "text",
            "text": "Quarterly gross margin by business segment was as follows:",
            "page_idx": 0,
        },
        {
            "type": "table",
            "table_body": f"<table><tr><td></td><td>2019</td><td>2018</td></tr>{rows}</table>",
            "page_idx": 0,
        },
        {"type": "text", "text": "Freight volumes rose on new rail contracts.", "page_idx": 0},
    ]
    path = tmp_path / "segments_content_list.json"
    path.write_text(json.dumps(items), encoding="utf-8")
    corpus.ingest_paths([path], "intro")
    query = "quarterly gross margin by business segment"
    lifted = retrieve(corpus, "intro", query, "hybrid", 5).hits
    plain = retrieve(
        corpus, "intro", query, "hybrid", 5, options=replace(StrategyOptions(), intro_weight=0)
    ).hits
    assert lifted[0].chunk.type == "text" and "as follows" in lifted[0].chunk.text
    table = next(h for h in lifted if h.chunk.type == "table")
    assert table.score >= 0.9 * lifted[0].score - 1e-6
    assert table.signal("introduced_by") is not None and "introduced by" in table.note
    unlifted = next(h for h in plain if h.chunk.type == "table")
    assert unlifted.score < table.score and unlifted.signal("introduced_by") is None

    # A paragraph that merely stands before a table (no colon, no "as follows") lifts nothing.
    items[1]["text"] = "Quarterly gross margin by business segment improved in every region."
    path.write_text(json.dumps(items), encoding="utf-8")
    corpus.ingest_paths([path], "intro_plain")
    hits = retrieve(corpus, "intro_plain", query, "hybrid", 5).hits
    assert all(h.signal("introduced_by") is None for h in hits)


def test_filters_hold(corpus: Library) -> None:
    doc = next(d.doc_id for d in corpus.documents(KB) if "tatqa" in d.name)
    for mode in ("smart", "hybrid"):
        trace = retrieve(corpus, KB, "revenue", mode, 10, SearchFilter(doc_ids=(doc,)))
        assert trace.hits and all(h.chunk.doc_id == doc for h in trace.hits)
        trace = retrieve(corpus, KB, "中芯国际 营收", mode, 10, SearchFilter(types=("table",)))
        assert trace.hits and all(h.chunk.type == "table" for h in trace.hits)


def test_bad_queries_and_modes_are_refused(corpus: Library) -> None:
    with pytest.raises(ValueError, match="empty"):
        retrieve(corpus, KB, "   ", "hybrid")
    with pytest.raises(ValueError, match="unknown mode"):
        retrieve(corpus, KB, "营收", "fancy")


def test_an_empty_knowledge_base_finds_nothing(corpus: Library) -> None:
    trace = retrieve(corpus, "empty_kb", "营收", "hybrid")
    assert trace.hits == () and trace.notes == ("the knowledge base has no documents",)


@pytest.mark.parametrize(
    "change",
    [
        {"use_layers": False},
        {"use_structure": False},
        {"use_expansion": False},
        {"use_rerank": False},
        {"use_quotas": False},
        {"use_type_weights": True},
    ],
)
def test_every_ablation_still_ranks(corpus: Library, change: dict[str, object]) -> None:
    options = replace(StrategyOptions(), **change)  # type: ignore[arg-type]
    trace = retrieve(corpus, KB, "中芯国际 营收 产能", "hybrid", 8, options=options)
    _check_trace(trace.hits, 8)
    assert [h.score for h in trace.hits] == sorted((h.score for h in trace.hits), reverse=True)


def test_expansion_finds_synonyms(corpus: Library) -> None:
    trace = retrieve(corpus, KB, "中芯国际营业收入", "hybrid", 10)
    # 营业收入 -> the other names of the same quantity, in both languages; not itself
    assert {"营收", "营业总收入", "revenue"} <= set(trace.expanded_terms)
    assert "营业收入" not in trace.expanded_terms
    off = retrieve(
        corpus, KB, "中芯国际营业收入", "hybrid", 10, options=StrategyOptions(use_expansion=False)
    )
    assert off.expanded_terms == ()


# -- pure parts ----------------------------------------------------------------------------------


def _hit(chunk_id: str, kind: str, score: float, items: tuple[int, ...], **kw: object) -> Hit:
    chunk = Chunk(chunk_id, "d", kind, chunk_id, chunk_id, items, **kw)  # type: ignore[arg-type]
    return Hit(chunk, score)


def test_dedupe_drops_hits_from_the_same_items_but_keeps_sub_tables() -> None:
    hits = [
        _hit("a", "text", 0.9, (1, 2)),
        _hit("b", "text", 0.8, (1, 2)),  # same items: a duplicate
        _hit("t1", "table", 0.7, (5,), parent_table_id="T", subtable_index=1),
        _hit("t2", "table", 0.6, (5,), parent_table_id="T", subtable_index=2),
        _hit("t1b", "table", 0.5, (5,), parent_table_id="T", subtable_index=1),
    ]
    assert [h.chunk.chunk_id for h in _dedupe(hits)] == ["a", "t1", "t2"]


def test_quotas_give_a_strong_type_a_place_in_the_top_k() -> None:
    hits = [_hit(f"x{i}", "text", 1.0 - i * 0.01, (i,)) for i in range(5)]
    hits.append(_hit("tab", "table", 0.6, (99,)))
    hits.append(_hit("img", "image", 0.2, (98,)))  # too weak (< half the best) for a place
    out = _apply_quotas(hits, 5, ("text", "table", "image"))
    top = [h.chunk.chunk_id for h in out[:5]]
    assert "tab" in top and "img" not in top
    assert "quota" in next(h for h in out if h.chunk.chunk_id == "tab").note
    assert len(out) == len(hits)


# -- questions naming two reports ----------------------------------------------------------------

BROKER_DOCS = TEST_DATA.parent.parent / "assets" / "broker_eval" / "docs"


@pytest.fixture(scope="module")
def two_reports(tmp_path_factory: pytest.TempPathFactory, counter) -> Library:  # type: ignore[no-untyped-def]
    return hash_library(
        tmp_path_factory.mktemp("two_reports"),
        counter,
        [
            BROKER_DOCS / "byd_002594_content_list.json",
            BROKER_DOCS / "catl_300750_content_list.json",
        ],
    )


def test_a_question_naming_two_reports_retrieves_each_in_turn(two_reports: Library) -> None:
    query = "比亚迪与宁德时代2025年的营业收入预测分别是多少？"
    trace = retrieve(two_reports, KB, query, "hybrid", 10)
    _check_trace(trace.hits, 10)
    assert trace.notes[0].startswith("named reports 比亚迪, 宁德时代")
    assert {h.chunk.doc_id for h in trace.hits[:2]} == {"byd_002594", "catl_300750"}
    for hit in trace.hits:
        subject = "比亚迪" if hit.chunk.doc_id == "byd_002594" else "宁德时代"
        assert hit.note.endswith(f"retrieved for {subject}")
    assert [h.score for h in trace.hits] == sorted((h.score for h in trace.hits), reverse=True)
    # each report's 盈利预测 table is among the hits (the test embedder ranks loosely)
    top = [(h.chunk.doc_id, h.chunk.caption) for h in trace.hits]
    for doc in ("byd_002594", "catl_300750"):
        assert (doc, "表1：盈利预测与估值") in top, top

    # one named report, or the filter leaving one: a single retrieval, as before
    single = retrieve(two_reports, KB, "比亚迪2025年的营业收入预测是多少？", "hybrid", 10)
    assert not any(n.startswith("named reports") for n in single.notes)
    only = SearchFilter(doc_ids=("byd_002594",))
    filtered = retrieve(two_reports, KB, query, "hybrid", 10, only)
    assert {h.chunk.doc_id for h in filtered.hits} == {"byd_002594"}
    assert not any(n.startswith("named reports") for n in filtered.notes)
    off = retrieve(
        two_reports, KB, query, "hybrid", 10, options=StrategyOptions(use_subjects=False)
    )
    assert not any(n.startswith("named reports") for n in off.notes)


def test_interleaving_takes_turns_and_keeps_a_split_tables_parts_together() -> None:
    def chunk(doc: str, n: int, parent: str = "") -> Chunk:
        return Chunk(
            f"{doc}-{n}",
            doc,
            "table" if parent else "text",
            "x",
            "x",
            (n,),
            parent_table_id=parent,
            subtable_index=n if parent else 0,
        )

    a = [Hit(chunk("a", 1, "t1"), 2.0), Hit(chunk("a", 2), 1.9), Hit(chunk("a", 3, "t1"), 1.8)]
    b = [Hit(chunk("b", 1), 1.0), Hit(chunk("b", 2), 0.9)]
    merged = _interleave([("A", a), ("B", b)], 10)
    assert [h.chunk.chunk_id for h in merged] == ["a-1", "a-3", "b-1", "a-2", "b-2"]
    scores = [h.score for h in merged]
    assert scores == sorted(scores, reverse=True) and scores[2] == pytest.approx(1.8)
    assert _interleave([("A", []), ("B", [])], 10) == []


def test_below_the_last_threshold_the_strongest_candidates_of_any_layer_fill_in(
    corpus: Library, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No candidate reaches a threshold: the fill takes the best layer scores across layers,
    not the semantic list's weak tail before the keyword list's strong head."""
    run = _Run(
        corpus, KB, analyse_query("deferred tax"), SearchFilter(), StrategyOptions(), ("text",)
    )
    lists = {
        "semantic": [("s1", 0.45), ("s2", 0.40), ("s3", 0.35)],
        "keyword": [("k1", 0.49), ("s1", 0.30), ("k2", 0.10)],
    }
    monkeypatch.setattr(run, "layer_list", lambda chunk_type, layer: lists.get(layer, []))
    admitted = run.recall("text", 3)
    assert admitted == {"k1": "keyword (fill)", "s1": "semantic (fill)", "s2": "semantic (fill)"}
    fill = run.steps[-1]
    assert fill.layer == "fill" and fill.found == 3


@pytest.mark.parametrize(
    ("question", "wanted"),
    [
        ("中芯国际的产线有哪些？", True),
        ("公司有哪几座12英寸晶圆厂？", True),
        ("What are the segments of revenue?", True),
        ("Which fabs does SMIC have?", True),
        ("What are the interest rates?", True),
        ("中芯国际2024年毛利率是多少？", False),
        ("哪些公司的毛利率最高", False),
        ("Which country had the highest revenue?", False),
        ("Which segments grew the most?", False),
        ("Which production lines does SMIC have?", True),
        ("Which business unit reported a loss?", False),
        ("Which segment has the higher margin?", False),
        ("What was the interest expense?", False),
    ],
)
def test_list_questions_are_told_from_value_and_superlative_questions(
    question: str, wanted: bool
) -> None:
    assert asks_for_list(question) is wanted


# -- a question naming one company with a report of its own ---------------------------------------

SECOND_DOCS = TEST_DATA.parent.parent / "assets" / "second_eval" / "docs"


@pytest.fixture(scope="module")
def company_reports(tmp_path_factory: pytest.TempPathFactory, counter) -> Library:  # type: ignore[no-untyped-def]
    return hash_library(
        tmp_path_factory.mktemp("company_reports"),
        counter,
        [
            SECOND_DOCS / "chengyuan_2024_annual_content_list.json",
            SECOND_DOCS / "orvella_2025q2_call_content_list.json",
            SECOND_DOCS / "robot_industry_2025_content_list.json",
        ],
    )


def test_the_company_a_question_names_is_found_by_every_spelling(company_reports: Library) -> None:
    def named(question: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
        return company_named(question, analyse_query(question).name, company_reports, KB)

    assert named("澄远智能2024年营收多少？") == (("澄远智能",), ("chengyuan_2024_annual",))
    spellings, docs = named("How many board meetings did Chengyuan (澄远智能) hold?")
    assert set(spellings) == {"澄远智能", "Chengyuan"} and docs == ("chengyuan_2024_annual",)
    assert without("How many board meetings did Chengyuan (澄远智能) hold?", spellings) == (
        "How many board meetings did ( ) hold?"
    )
    assert named("How much stock has ORVL bought back so far?") == (
        ("ORVL",),
        ("orvella_2025q2_call",),
    )
    # an industry report's subject is a topic, not a company: its words stay in the question
    assert named("工业机器人行业深度报告给出的评级是什么？") == ((), ())
    # two companies' reports: the per-report split's case, not this one
    assert named("澄远智能和Orvella的毛利率分别是多少？") == ((), ())
    # a name no report is about
    assert named("华为2024年营收多少？") == ((), ())


def test_a_companys_report_is_ranked_without_its_name_and_comes_first(
    company_reports: Library,
) -> None:
    query = "澄远智能2024年营收多少？"
    trace = retrieve(company_reports, KB, query, "hybrid", 10)
    _check_trace(trace.hits, 10)
    assert any("ranked by the question without the name" in n for n in trace.notes)
    assert trace.hits[0].chunk.doc_id == "chengyuan_2024_annual"
    assert [h.score for h in trace.hits] == sorted((h.score for h in trace.hits), reverse=True)
    # within the report, the page that writes the name most (the company's particulars) no
    # longer comes first whatever is asked: the accounting data giving 营业收入 does
    only = SearchFilter(doc_ids=("chengyuan_2024_annual",))
    scoped = retrieve(company_reports, KB, query, "hybrid", 10, only)
    assert scoped.query == query
    assert "营业收入" in scoped.hits[0].chunk.text, scoped.hits[0].chunk.text[:80]
    before = retrieve(
        company_reports, KB, query, "hybrid", 10, only, options=StrategyOptions(use_subjects=False)
    )
    assert "公司的中文简称" in before.hits[0].chunk.text  # what the name alone finds


def test_an_english_question_meets_a_chinese_report_in_its_words(
    company_reports: Library, monkeypatch: pytest.MonkeyPatch
) -> None:
    # "board meetings" is written 董事会会议 in the annual report: the words' renderings the
    # keyword index holds count as the question's own for BM25 (without them: not in the top 3)
    import rag_app.retrieve.signals as signals

    question = "How many board meetings did Chengyuan (澄远智能) hold during the reporting period?"

    def top(k: int) -> list[str]:
        hits = retrieve(company_reports, KB, question, "hybrid", 10).hits[:k]
        return [h.chunk.text for h in hits]

    assert any("董事会会议" in text for text in top(3))
    monkeypatch.setattr(signals, "renderings", lambda word: frozenset())
    assert not any("董事会会议" in text for text in top(3))


def test_smart_on_a_companys_report_is_hybrids_ranking_with_a_preference(
    company_reports: Library,
) -> None:
    # smart takes hybrid's company-first ranking as its first look: the report's first part
    # stays first, and the preferred type's parts of that ranking keep their order
    query = "澄远智能2024年主要会计数据表中的营业收入是多少？"
    hybrid = retrieve(company_reports, KB, query, "hybrid", 10)
    smart = retrieve(company_reports, KB, query, "smart", 10)
    _check_trace(smart.hits, 10)
    assert smart.routing is not None and smart.routing.single_type
    preferred = smart.routing.detected_type
    assert any("ranked by the question without the name" in n for n in smart.notes)
    assert any(n.startswith(f"smart: {preferred} preferred") for n in smart.notes)
    assert smart.hits[0].chunk.doc_id == hybrid.hits[0].chunk.doc_id == "chengyuan_2024_annual"

    def own(trace) -> list[str]:  # type: ignore[no-untyped-def]
        return [
            h.chunk.chunk_id
            for h in trace.hits
            if h.chunk.type == preferred and h.chunk.doc_id == "chengyuan_2024_annual"
        ]

    mine = set(own(smart))
    assert [c for c in own(hybrid) if c in mine] == [c for c in own(smart) if c in set(own(hybrid))]


def _doc_hit(chunk_id: str, doc_id: str, kind: str, score: float) -> Hit:
    return Hit(Chunk(chunk_id, doc_id, kind, chunk_id, chunk_id, (1,)), score)


def test_report_first_moves_the_reports_first_part_up_and_keeps_the_places_scores() -> None:
    from rag_app.retrieve.subjects import report_first

    hits = [
        _doc_hit("x1", "other", "table", 0.9),
        _doc_hit("x2", "other", "text", 0.8),
        _doc_hit("m1", "mine", "table", 0.7),
        _doc_hit("m2", "mine", "text", 0.6),
    ]
    moved = report_first(hits, {"mine"})
    assert [h.chunk.chunk_id for h in moved] == ["m1", "x1", "x2", "m2"]
    assert [h.score for h in moved] == [0.9, 0.8, 0.7, 0.6]
    assert report_first(hits, {"none"}) == hits


def test_smart_over_a_company_ranking_prefers_the_type_in_the_companys_order(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import rag_app.retrieve.strategies as strategies
    from rag_app.models import Reason, Routing

    # hybrid's company-first ranking: the report's text, its table, then another report's table;
    # the routed type's own ranking (the whole question's) puts the other report's table first
    first = [
        _doc_hit("m_text", "mine", "text", 0.9),
        _doc_hit("m_table", "mine", "table", 0.8),
        _doc_hit("x_table", "other", "table", 0.7),
    ]
    routed = [first[2], first[1]]
    monkeypatch.setattr(strategies, "single_type_hits", lambda run, k, kind, types: routed)

    class Run:
        class search:
            options = StrategyOptions(smart_preference=2.0)  # a strong preference

    routing = Routing("table", 0.9, (), (), True, "", 0.8, Reason("single"))

    def order(company_first: bool) -> list[str]:
        hits, _ = strategies._smart_hits(Run, 3, routing, first, ("text", "table"), company_first)  # type: ignore[arg-type]
        return [h.chunk.chunk_id for h in hits]

    assert order(company_first=True).index("m_table") < order(company_first=True).index("x_table")
    assert order(company_first=False).index("x_table") < order(company_first=False).index("m_table")
