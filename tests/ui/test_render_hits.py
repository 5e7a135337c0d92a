"""The words the Ask and Compare pages put on smart mode: the routing line, the hit tabs, the
signal columns and the Compare page's summary (ui/render_hits.py, ui/render_compare.py).

Smart mode searches every type and prefers one when confident; nothing may say it searched one
type only."""

from __future__ import annotations

from rag_app.models import Chunk, Hit, Reason, RetrievalTrace, Routing
from ui import i18n
from ui.compare_diff import Place, diff_hits
from ui.i18n import strategy_label
from ui.render_compare import change_label, compare_hits_table, diff_summary
from ui.render_hits import (
    cue_text,
    hit_note,
    hit_tab_label,
    hits_frame,
    routing_line,
    searched_line,
    signal_label,
    trace_notes,
)

PREFERRED = Routing(
    detected_type="table",
    confidence=0.91,
    evidence=("table:表6", "table~产线"),
    scores=(("table", 0.91), ("text", 0.08), ("image", 0.01)),
    single_type=True,
    reason="table preferred at confidence 0.91 >= 0.75: its hits first, every type still searched",
    threshold=0.75,
    why=Reason("single", (("type", "table"), ("confidence", "0.91"), ("threshold", "0.75"))),
)
UNROUTED = Routing(
    detected_type="table",
    confidence=0.52,
    evidence=(),
    scores=(("table", 0.52), ("image", 0.42), ("text", 0.06)),
    single_type=False,
    reason="table at confidence 0.52 < 0.75, types compete (table 0.52, image 0.42, text 0.06): "
    "all types (hybrid)",
    threshold=0.75,
    why=Reason("hybrid", (("type", "table"), ("confidence", "0.52"), ("threshold", "0.75"))),
)


def hits(*ids: str) -> list[Hit]:
    return [
        Hit(Chunk(cid, "d", "table" if cid.startswith("t") else "text", cid, cid, (0,)), 0.5, n)
        for n, cid in enumerate(ids, start=1)
    ]


def test_no_label_says_smart_searches_one_type_only() -> None:
    words = [w for pair in i18n.TEXTS.values() for w in pair] + list(i18n.REASONS_ZH.values())
    for wrong in ("只检索", "仅检索", "that type only", "searched that type", "only that type"):
        assert not [w for w in words if wrong in w], wrong


def test_the_routing_line_names_the_preferred_type_its_confidence_and_cues(lang: str) -> None:
    line = routing_line(PREFERRED)
    cues = (
        "`表格「表6」` `表格线索「产线」`" if lang == "zh" else "`Table “表6”` `Table cue “产线”`"
    )
    assert "0.91" in line and cues in line
    if lang == "zh":
        assert line.startswith("判定为 **表格**") and "依据：" in line and "优先该类型" in line
        assert "其余类型照常检索" in line
    else:
        assert line.startswith("Detected **Table**") and "Evidence: " in line
        assert "preferred" in line and "every type still searched" in line
    unrouted = routing_line(UNROUTED)
    assert ("不设偏好" if lang == "zh" else "no preference") in unrouted
    assert ("依据：无" if lang == "zh" else "Evidence: none") in unrouted


def test_hit_tabs_mark_the_preferred_type_and_say_every_type_was_searched(lang: str) -> None:
    zh = lang == "zh"
    assert hit_tab_label("table", 6, "table") == (
        "📊 表格（优先） (6)" if zh else "📊 Table (preferred) (6)"
    )
    assert hit_tab_label("text", 12, "table") == ("📝 文本 (12)" if zh else "📝 Text (12)")
    assert hit_tab_label("table", 6, None) == ("📊 表格 (6)" if zh else "📊 Table (6)")
    kinds = ("text", "table", "image")
    smart = RetrievalTrace("q", "smart", (), routing=PREFERRED)
    assert searched_line(smart, kinds) == (
        "已检索全部类型：文本、表格、图片；表格优先，其命中排在前面"
        if zh
        else "Every type searched: Text, Table, Figure; Table preferred, its hits ranked first"
    )
    for trace in (
        RetrievalTrace("q", "smart", (), routing=UNROUTED),
        RetrievalTrace("q", "hybrid", ()),
    ):
        assert searched_line(trace, kinds) == (
            "已检索全部类型：文本、表格、图片" if zh else "Every type searched: Text, Table, Figure"
        )


def test_smart_signals_have_labels_in_both_languages(lang: str) -> None:
    expected = {
        "zh": {"smart_fused": "智能融合（偏好）", "document": "文档证据"},
        "en": {"smart_fused": "Smart fused (preference)", "document": "Document evidence"},
    }[lang]
    for name, label in expected.items():
        assert signal_label(name) == label
    assert signal_label("something_new") == "something_new"


def test_change_labels_read_hybrid_to_smart(lang: str) -> None:
    assert change_label(Place("a", "table", smart=2, hybrid=5)) == "↑ 5→2"
    assert change_label(Place("a", "text", smart=3, hybrid=1)) == "↓ 1→3"
    assert change_label(Place("a", "text", smart=1, hybrid=1)) == "="
    only = change_label(Place("a", "table", smart=1, hybrid=None))
    assert only == ("★ 仅智能找到" if lang == "zh" else "★ smart only")
    assert change_label(Place("a", "text", smart=None, hybrid=2)).startswith("★ ")


def test_the_summary_says_what_the_preference_changed(lang: str) -> None:
    diff = diff_hits(hits("t9", "t1", "a", "b"), hits("a", "b", "c", "t1"), top=3)
    line, why = diff_summary(diff, PREFERRED)
    if lang == "zh":
        assert (
            line == "智能模式优先表格（置信度 0.91）：3 处排名变化，1 条仅智能找到，1 条仅混合找到"
        )
        assert why == "原因：表格置信度 0.91 ≥ 0.75：优先表格，其余类型照常检索"
    else:
        assert line == (
            "Smart preferred Table (confidence 0.91): 3 places changed, 1 found by smart only, "
            "1 found by hybrid only"
        )
        assert why == "Reason: " + PREFERRED.reason


def test_the_summary_says_identical_hits_and_why(lang: str) -> None:
    same = diff_hits(hits("a", "t1"), hits("a", "t1"), top=8)
    line, why = diff_summary(same, UNROUTED)
    if lang == "zh":
        assert line == "智能与混合的前 2 条命中相同"
        assert why == "原因：表格置信度 0.52 < 0.75：不设偏好，同混合检索"
    else:
        assert line == "Smart and hybrid gave the same hits (top 2)"
        assert why == "Reason: " + UNROUTED.reason
    # preferred, but hybrid already had that type first
    line, _ = diff_summary(same, PREFERRED)
    assert ("混合检索已把它们排在前面" if lang == "zh" else "hybrid already ranked first") in line


def test_the_compare_table_has_a_change_per_row(lang: str) -> None:
    smart, hybrid = hits("t1", "a"), hits("a", "t1")
    diff = diff_hits(smart, hybrid, top=2)
    table = compare_hits_table(smart, {}, diff.smart)
    column = "混合→智能" if lang == "zh" else "Hybrid → smart"
    assert list(table[column]) == ["↑ 2→1", "↓ 1→2"]
    assert list(compare_hits_table(smart, {}, ())[column]) == ["", ""]  # the other mode failed


# The core's fixed vocabulary in the details (issue 26): layers, strategies, a hit's note, the
# trace's notes and the routing's cues read in the UI's language, from the keys the core gives.
def test_layers_and_strategies_have_labels_in_both_languages(lang: str) -> None:
    zh = lang == "zh"
    assert strategy_label("semantic") == ("语义" if zh else "semantic")
    assert strategy_label("semantic (fill)") == ("语义（补足）" if zh else "semantic (fill)")
    assert strategy_label("hyde + multi_query") == (
        "假设答案 + 改写检索" if zh else "HyDE + rephrasing"
    )
    assert strategy_label("something_new") == "something_new"


def test_a_hits_note_and_strategy_are_worded_from_the_cores_keys(lang: str) -> None:
    chunk = Chunk("smic#t9", "smic", "table", "x", "x", (0,))
    core = Hit(
        chunk,
        0.5,
        1,
        "semantic",
        note="table · semantic",
        why=(Reason.of("hit_layer", type="table", layer="semantic"),),
    ).noted(
        "ranked within 中芯国际's report without its name",
        Reason.of("hit_within_company", company="中芯国际"),
    )
    assert core.note == "table · semantic; ranked within 中芯国际's report without its name"
    row = hits_frame([core], {}, {"smic#t9": 2}).iloc[0].tolist()
    if lang == "zh":
        assert "语义" in row and "[来源 2]" in row
        assert "表格 · 语义；在中芯国际的报告内按去掉公司名的问题排序" in row
    else:
        assert "semantic" in row and "[Source 2]" in row
        assert "Table · semantic; ranked within 中芯国际's report without its name" in row
    # a hit saved before the keys existed keeps the core's words
    assert hit_note(Hit(chunk, 0.5, note="table · keyword")) == "table · keyword"


def test_the_traces_notes_are_worded_from_the_cores_keys(lang: str) -> None:
    smart = "smart: table preferred (0.86); 33 of 41 places changed, 0 table hits beyond hybrid's"
    trace = RetrievalTrace(
        "q",
        "smart",
        (),
        notes=(smart,),
        why=(
            Reason.of("note_smart", type="table", confidence="0.86", moved=33, total=41, added=0),
        ),
    )
    assert trace_notes(trace) == [
        "智能：优先表格（0.86）；41 个名次中 33 个有变化，0 条表格命中是混合检索没有的"
        if lang == "zh"
        else "smart: Table preferred (0.86); 33 of 41 places changed, 0 Table hits beyond hybrid's"
    ]
    assert trace_notes(RetrievalTrace("q", "hybrid", (), notes=("old note",))) == ["old note"]


def test_routing_cues_are_worded(lang: str) -> None:
    zh = lang == "zh"
    assert cue_text("table~多少") == ("表格线索「多少」" if zh else "Table cue “多少”")
    assert cue_text("image:caption「营收」") == (
        "图片标题「营收」" if zh else "Figure caption “营收”"
    )
    assert cue_text("odd") == "odd"


def test_every_note_key_the_core_gives_has_a_wording() -> None:
    """Each key the core gives a hit's note, a trace's note or a prompt part's name
    (``Reason.of("hit_…")``, ``reason_key("part_…")``) has a label in both languages."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "rag_app"
    keys = {
        key
        for path in root.rglob("*.py")
        for key in re.findall(
            r"""(?:Reason\.of|Reason|reason_key)\(\s*"((?:hit|note|part)_\w+)\"""",
            path.read_text(encoding="utf-8"),
        )
    }
    assert {"hit_layer", "note_smart", "part_source", "part_history"} <= keys
    composed = {"part_source"}  # its number, title and type (ui.render_prompt.section_label)
    assert not keys - composed - i18n.TEXTS.keys(), keys - i18n.TEXTS.keys()


def test_a_saved_turn_keeps_the_notes_keys() -> None:
    """A reopened conversation words its notes as the live answer did (rag_app.chat)."""
    import dataclasses
    import json

    from rag_app.chat.saved_details import (
        SavedRetrieval,
        from_plain,
        restored_trace,
        saved_retrieval,
    )
    from rag_app.models import Answer

    chunk = Chunk("c", "d", "table", "x", "x", (0,))
    why = Reason.of("hit_layer", type="table", layer="keyword")
    note = Reason.of("note_named_reports", names="A, B")
    trace = RetrievalTrace(
        "q", "smart", (Hit(chunk, 0.5, 1, note="n", why=(why,)),), notes=("x",), why=(note,)
    )
    saved = saved_retrieval(Answer("q", "", trace, None, None, "offline-extractive"))
    plain = json.loads(json.dumps(dataclasses.asdict(saved)))
    restored = restored_trace(from_plain(SavedRetrieval, plain), "q", "smart")
    assert restored.hits[0].why == (why,) and restored.why == (note,)
