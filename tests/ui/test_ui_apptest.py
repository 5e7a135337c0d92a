"""The Streamlit app driven by ``streamlit.testing.v1.AppTest``: every page, both languages.

One data folder per module (the sample report is ingested once, by the first run, with the real
embedding model); each test starts a fresh session. AppTest sees only the final text of a
stream and keeps widget values across page switches where a browser does not, so it checks
what the pages render, not how a browser shows it.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from rag_app.config import PROVIDER_VARIABLES, Settings
from rag_app.index.embedder import HashEmbedder
from rag_app.index.library import Library
from rag_app.understand.analysis import analyse_query
from tests.conftest import REAL_CACHE_DIR, REPO_ROOT, SAMPLE_ZIP
from tests.openai_stub_server import OpenAIStubServer, Reply
from tests.ui.audit_support import TICK_QUESTIONS, TICKED, write_audit_records
from ui import i18n, ingestion, resources

# Tests that run the app load the real embedding model and ingest the sample report: about half
# a minute on two busy cores, so they are marked slow (make test runs them; make test-fast not).
slow = pytest.mark.slow

APP = str(REPO_ROOT / "streamlit_app.py")  # the script; app.py is the server serving it
QUESTION = "中芯国际2026年预测市盈率是多少？"
SECRET = "sk-test-DO-NOT-SHOW-4f9a8b7c6d5e"
PROVIDER_ENV = PROVIDER_VARIABLES


def start(page: str | None = None, timeout: float = 240) -> AppTest:
    """A new session; the first one in the module loads the model and ingests the sample."""
    at = AppTest.from_file(APP, default_timeout=timeout)
    at.run()
    assert not at.exception, at.exception
    if page:
        at.switch_page(page).run()
        assert not at.exception, at.exception
    return at


def nodes(node: Any) -> Iterator[Any]:
    yield node
    for child in getattr(node, "children", {}).values():
        yield from nodes(child)


def everything(at: AppTest) -> str:
    """Every element's protobuf as text: what the browser would receive."""
    return "\n".join(str(getattr(n, "proto", "")) for n in nodes(at._tree))


def markdown(at: AppTest) -> str:
    return "\n".join(str(m.value) for m in at.markdown)


def ask(at: AppTest, question: str) -> AppTest:
    at.chat_input(key="question").set_value(question).run()
    assert not at.exception, at.exception
    return at


@slow
def test_first_start_ingests_the_sample(env: Path, tmp_path: Path) -> None:
    at = start()
    library = Library(Settings(data_dir=env, cache_dir=REAL_CACHE_DIR))
    docs = library.documents(resources.SAMPLE_KB)
    assert [d.name for d in docs] == ["smic_report.zip"]
    # whole: the chunks a library with the default settings makes of the zip (the embedder
    # does not change chunking)
    (alone,) = Library(
        Settings(data_dir=tmp_path / "alone", cache_dir=REAL_CACHE_DIR), embedder=HashEmbedder()
    ).ingest_bytes([(SAMPLE_ZIP.name, SAMPLE_ZIP.read_bytes())])
    assert (docs[0].n_chunks, docs[0].type_counts) == (alone.n_chunks, alone.type_counts)
    assert dict(alone.type_counts)["table"] > 0
    # the Ask page offers the sample's example questions
    questions = json.loads(resources.SAMPLE_QUESTIONS.read_text(encoding="utf-8"))
    labels = [b.label for b in at.button]
    assert questions[0]["question"] in labels
    # idempotent: a second session does not ingest again
    before = docs[0].ingested_at
    start()
    assert library.documents(resources.SAMPLE_KB)[0].ingested_at == before


@slow
@pytest.mark.parametrize("mode", ["smart", "hybrid"])
def test_ask_renders_linked_citations_and_source_cards(env: Path, mode: str) -> None:
    at = start()
    at.get_by_key("_w_mode__ask").set_value(mode).run()
    ask(at, QUESTION)
    text = markdown(at)
    links = re.findall(r"\[\\\[来源 (\d+)\\\]\]\(#source-(\d+)\)", text)
    assert links and all(a == b for a, b in links), text[:3000]  # each links to its own card
    for number in {a for a, _ in links}:
        assert (
            f'<span class="rag-anchor" id="source-{number}"></span>' in text
        )  # ... which holds the anchor
    assert "106.2" in text  # the forecast P/E, quoted from 表1
    labels = [e.label for e in at.expander]
    assert any(label.startswith(f"**[来源 {links[0][0]}]**") for label in labels)
    assert any("检索详情" in label for label in labels)
    assert any("提示词检查" in label for label in labels)
    # tabs per content type, the routing decision, timings
    tab_labels = [tab.label for tab in at.tabs]
    assert any(label.startswith("📊 表格") for label in tab_labels)
    # every type is searched in either mode, and the tabs say so
    assert any(c.value.startswith("已检索全部类型：文本、表格、图片") for c in at.caption)
    for kind in ("📝 文本", "📊 表格", "🖼️ 图片"):
        assert any(label.startswith(kind) for label in tab_labels), (kind, tab_labels)
    assert "只检索" not in texts(at)
    if mode == "smart":
        # the type, its confidence and the cues in one line
        line = next(m.value for m in at.markdown if "判定为" in m.value)
        assert "置信度" in line and "依据：" in line, line
        # the routing's reason is worded in Chinese too, not in the core's English
        routing = [c.value for c in at.caption if c.value.startswith("各类型得分")]
        assert routing and "原因：" in routing[0], routing
        assert "confidence" not in routing[0] and "types" not in routing[0]
    else:
        assert any("混合模式" in c.value for c in at.caption)
    assert any("检索" in c.value and "总计" in c.value for c in at.caption)
    # the offline answerer is announced
    assert any("离线抽取式回答" in i.value for i in at.sidebar.info)


@slow
def test_example_button_and_follow_up_keep_the_conversation(env: Path) -> None:
    at = start()
    at.button(key="example_0").click().run()
    assert not at.exception
    ask(at, "2024年第二季度中芯国际的产能利用率是多少？")
    assert len(at.chat_message) == 4  # two questions, two answers
    text = markdown(at)
    assert (
        '<span class="rag-anchor" id="t1-source-1"></span>' in text
    )  # the earlier turn keeps its own anchors
    assert '<span class="rag-anchor" id="source-1"></span>' in text
    turns = at.session_state["turns"]
    assert [turn.question for turn in turns][0].startswith("中芯国际2026年")
    # the second question was asked with the first turn, whole, as history
    report = turns[1].answer.prompt.report
    assert [s.status for s in report.by_kind("history")] == ["kept"]
    assert report.history_tokens == sum(s.tokens for s in report.by_kind("history")) > 0
    messages = turns[1].answer.prompt.messages
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]
    assert messages[1]["content"] == turns[0].question


@slow
def test_provider_error_keeps_the_streamed_text(env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with OpenAIStubServer() as server:
        server.set_default(
            Reply(text="市盈率为106.2倍 [Source 1]，另外还有更多内容。", break_after=4)
        )
        monkeypatch.setenv("RAG_APP_BASE_URL", server.base_url)
        monkeypatch.setenv("RAG_APP_MODEL", "stub-model")
        monkeypatch.setenv("RAG_APP_API_KEY", SECRET)
        at = start()
        ask(at, QUESTION)
        assert server.chat_requests and server.chat_requests[0].authorization.endswith(SECRET)
    answer = at.session_state["turns"][0].answer
    # the four pieces streamed before the break are kept, and the break is recorded
    assert answer.text == "市盈率为" and answer.error_kind == "connection" and answer.error
    assert at.error and "大模型调用出错" in at.error[0].value
    assert "市盈率为" in markdown(at)
    assert SECRET not in everything(at)


@slow
def test_an_unreachable_provider_is_answered_offline_with_what_to_do(
    env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A port nothing listens on: the model fails before it writes anything.
    monkeypatch.setenv("RAG_APP_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("RAG_APP_MODEL", "stub-model")
    monkeypatch.setenv("RAG_APP_API_KEY", SECRET)
    at = start()
    ask(at, QUESTION)
    answer = at.session_state["turns"][0].answer
    assert answer.fallback_from.endswith("stub-model") and answer.error
    assert answer.text.startswith("（离线抽取式回答：大模型调用失败") and "[Source" in answer.text
    assert at.warning and "离线抽取式回答" in at.warning[0].value and "设置" in at.warning[0].value
    # in the UI's language only: the core's message holds both (issue 26)
    assert "Could not connect" not in at.warning[0].value and "无法连接" in at.warning[0].value
    assert "offline-extractive" not in "\n".join(c.value for c in at.caption)
    assert not at.error  # the "kept what had streamed" wording is for text that streamed
    assert SECRET not in everything(at)


@slow
def test_compare_shows_both_modes_side_by_side(env: Path) -> None:
    at = start("views/compare.py")
    at.text_input(key="compare_question").set_value(QUESTION)
    at.button[0].click().run()  # the form's submit button
    assert not at.exception, at.exception
    text = markdown(at)
    for mode in ("smart", "hybrid"):  # each column links to its own cards
        cited = re.findall(rf"\]\]\(#{mode}-source-(\d+)\)", text)
        assert cited, mode
        assert all(
            f'<span class="rag-anchor" id="{mode}-source-{n}"></span>' in text for n in cited
        )
    assert "判定为" in text  # smart's routing
    assert any("两种模式共同命中" in c.value for c in at.caption)
    assert len(at.metric) >= 6  # prompt totals per column
    # each column's top hits say how their places changed from hybrid to smart
    for table in at.dataframe[:2]:
        assert "混合→智能" in table.value.columns


def compare(at: AppTest, question: str) -> tuple[Any, str]:
    """Compare ``question`` on the Compare page: smart's answer and the summary line."""
    at.switch_page("views/compare.py").run()
    at.text_input(key="compare_question").set_value(question)
    at.button[0].click().run()
    assert not at.exception, at.exception
    summary = next(m.value for m in at.markdown if m.value.startswith("⚖️ **"))
    return at.session_state["compare"]["smart"]["answer"], summary


@slow
def test_compare_says_where_smart_differs_from_hybrid_and_why(env: Path) -> None:
    at = start()
    # on the Ask page first: every type's tab, the preferred one marked
    ask(at, "请给出表6 产线一览表")
    tab_labels = [tab.label for tab in at.tabs]
    assert any(label.startswith("📊 表格（优先） (") for label in tab_labels), tab_labels
    assert any(label.startswith("📝 文本 (") for label in tab_labels), tab_labels
    assert any("表格优先，其命中排在前面" in c.value for c in at.caption)
    smart, summary = compare(at, "请给出表6 产线一览表")
    routing = smart.retrieval.routing
    assert routing.single_type and routing.detected_type == "table", routing  # on the sample
    assert summary.startswith("⚖️ **智能模式优先表格（置信度 "), summary
    assert re.search(r"：\d+ 处排名变化", summary), summary
    assert any(c.value.startswith("原因：表格置信度") for c in at.caption)
    smart_table = at.dataframe[0].value
    changes = list(smart_table["混合→智能"])
    assert any(re.fullmatch(r"[↑↓] \d+→\d+", c) for c in changes), changes
    # the preferred type leads smart's column; the routing line names it, its cues
    assert smart_table["类型"].iloc[0].endswith("表格")
    line = next(m.value for m in at.markdown if "判定为" in m.value)
    assert "依据：" in line and "优先该类型" in line, line
    # in English too
    at.get_by_key("_w_lang__sidebar").set_value("en").run()
    summary = next(m.value for m in at.markdown if m.value.startswith("⚖️ **"))
    assert summary.startswith("⚖️ **Smart preferred Table (confidence "), summary
    assert "places changed" in summary
    assert "Hybrid → smart" in at.dataframe[0].value.columns


@slow
def test_compare_says_an_unrouted_question_gave_the_same_hits_and_why(env: Path) -> None:
    at = start()
    smart, summary = compare(at, "中芯国际的发展历程")
    routing = smart.retrieval.routing
    assert not routing.single_type, routing  # no preference: smart is hybrid
    assert summary == "⚖️ **智能与混合的前 8 条命中相同**", summary
    assert any(c.value.startswith("原因：") and "混合" in c.value for c in at.caption)
    assert set(at.dataframe[0].value["混合→智能"]) == {"="}


@slow
def test_compare_understands_a_follow_up_of_the_open_conversation(env: Path) -> None:
    at = start()
    ask(at, "中芯国际2025年的毛利率预测是多少？")
    at.switch_page("views/compare.py").run()
    at.text_input(key="compare_question").set_value("那2026年呢？")
    at.button[0].click().run()
    assert not at.exception, at.exception
    understood = [c.value for c in at.caption if "理解为" in c.value]
    assert len(understood) == 2 and all("中芯国际2026年的毛利率预测" in c for c in understood)
    assert "23.5" in markdown(at)


def _content_list() -> bytes:
    items = [
        {"type": "text", "text": "测试报告：华虹半导体", "text_level": 1, "page_idx": 0},
        {
            "type": "text",
            "text": "华虹半导体2024年营业收入为20.04亿美元，同比下降12.3%。"
            "<script>alert('x')</script>",
            "page_idx": 0,
        },
        {
            "type": "table",
            "table_caption": ["表1：华虹季度营收"],
            "page_idx": 1,
            "table_body": '<table><tr><td colspan="2" onclick="steal()">季度</td></tr>'
            "<tr><td>2024Q1</td><td>4.6<script>alert(1)</script></td></tr>"
            '<tr><td><a href="javascript:alert(1)">2024Q2</a></td><td>4.8</td></tr>'
            "</table>",
        },
    ]
    return json.dumps(items, ensure_ascii=False).encode("utf-8")


@slow
def test_library_upload_preview_and_delete(env: Path) -> None:
    at = start("views/library.py")
    at.text_input(key="new_kb_name").set_value("测试库")
    [create] = [b for b in at.button if b.label == "创建"]
    create.click().run()
    assert at.session_state["kb"] == "测试库"

    data = _content_list()
    at.file_uploader[0].set_value(
        [
            ("huahong_content_list.json", data, "application/json"),
            ("copy_content_list.json", data, "application/json"),
            ("broken_content_list.json", b"{not json", "application/json"),
        ]
    ).run()
    [ingest] = [b for b in at.button if b.label.startswith("导入 3 个文件")]
    ingest.click().run()
    assert not at.exception, at.exception
    assert any("huahong_content_list.json：已导入" in s.value for s in at.success)
    # a duplicate names the document as the list does (its file's name, not its id)
    assert any(
        "copy_content_list.json" in i.value and "「huahong_content_list.json」相同" in i.value
        for i in at.info
    ), [i.value for i in at.info]
    # a bad file's reason in the user's language, not Python's English
    broken = (
        "broken_content_list.json：未导入，不是有效的 JSON（第 1 行第 2 列：键名应以双引号括起）"
    )
    assert any(broken in e.value for e in at.error), [e.value for e in at.error]
    # the import emptied the uploader: no files, no import button left to press again
    assert at.file_uploader[0].value == [] and at.file_uploader[0].key != "uploader_0"
    assert not [b for b in at.button if b.label.startswith("导入 ")]
    assert len(at.progress) == 3  # ... while each file's bar keeps its outcome

    # the table and the preview render the document; its HTML is sanitised
    assert at.dataframe
    assert list(at.dataframe[0].value["格式"]) == ["MinerU 内容列表"]  # users' words
    captions = [c.value for c in at.caption]
    assert not [c for c in captions if "huahong:" in c], captions  # chunk ids only on hover
    text = markdown(at)
    assert 'colspan="2"' in text
    for bad in ("<script", "onclick", "javascript:", "steal()"):
        assert bad not in text
    assert "&lt;script&gt;" in text  # the text chunk's markup is shown, escaped
    # its profile, one line under the table: one table, its periods (rag_app/index/profile.py)
    [profile] = [e for e in at.expander if "个实体" in e.label]
    assert "1 张表" in profile.label and "2024Q1–2024Q2" in profile.label, profile.label

    library = Library(Settings(data_dir=env, cache_dir=REAL_CACHE_DIR))
    assert [d.doc_id for d in library.documents("测试库")] == ["huahong"]
    at.button(key="delete_doc").click().run()
    at.button(key="confirm_yes").click().run()
    assert not at.exception, at.exception
    assert library.documents("测试库") == []
    assert any("已删除文档" in s.value for s in at.success)
    # the import's results described the library before the deletion: gone with it
    assert "**导入结果**" not in markdown(at)
    assert not any("已导入" in s.value for s in at.success)

    # the empty knowledge base can be deleted too
    [delete_kb] = [b for b in at.button if b.label == "删除知识库"]
    delete_kb.click().run()
    at.button(key="confirm_yes").click().run()
    assert "测试库" not in library.knowledge_bases()
    assert at.session_state["kb"] == resources.SAMPLE_KB


@slow
def test_upload_results_are_shown_for_their_knowledge_base_only(env: Path) -> None:
    """Results of an import into another knowledge base (the user switched since) are gone."""
    from rag_app.models import IngestReport

    at = start("views/library.py")
    results = [("a.md", [IngestReport(name="a.md", status="ingested", doc_id="a", n_chunks=1)])]
    at.session_state["ingest_results"] = results
    at.session_state["ingest_kb"] = at.session_state["kb"]
    at.run()
    assert "**导入结果**" in markdown(at)
    at.session_state["ingest_kb"] = "另一个知识库"
    at.run()
    assert "**导入结果**" not in markdown(at)
    assert at.session_state["ingest_results"] == []


@slow
def test_ingest_files_reports_progress_per_file(env: Path) -> None:
    library = Library(Settings(data_dir=env, cache_dir=REAL_CACHE_DIR))
    seen: list[tuple[int, float]] = []
    results = ingestion.ingest_files(
        library,
        "进度测试",
        [("a_content_list.json", _content_list()), ("b.md", b"")],
        on_progress=lambda i, p: seen.append((i, ingestion.progress_fraction(p))),
    )
    assert [name for name, _ in results] == ["a_content_list.json", "b.md"]
    assert results[0][1][0].status == "ingested"
    assert results[1][1][0].status == "rejected" and "empty" in results[1][1][0].message
    assert {i for i, _ in seen} == {0, 1}
    assert max(f for i, f in seen if i == 0) == 1.0
    library.delete_kb("进度测试")


@slow
def test_english_details_of_an_english_example_question(env: Path) -> None:
    """The English page offers English examples; one asked, the retrieval details and the
    prompt inspector read in English: no Chinese label, only the documents' own words."""
    at = start()
    at.get_by_key("_w_lang__sidebar").set_value("en").run()
    examples = [b.label for b in at.button if b.key and b.key.startswith("example_")]
    assert examples[0] == "What was SMIC's revenue in 2024?"
    assert sum(bool(re.search(r"[\u4e00-\u9fff]", e)) for e in examples) <= 1  # a fab's name
    at.button(key="example_0").click().run()
    assert not at.exception, at.exception
    cjk = re.compile(r"[\u4e00-\u9fff]")
    document_text = {"Document", "Content", "Section", "Note"}  # titles and names as written
    frames = [d.value for d in at.dataframe]
    assert len(frames) >= 5  # hits per type, layers, prompt sections
    for frame in frames:
        assert not [c for c in frame.columns if cjk.search(str(c))], list(frame.columns)
        for column in set(frame.columns) - document_text:
            cells = [str(v) for v in frame[column] if cjk.search(str(v))]
            assert not cells, (column, cells[:3])
    labels = [tab.label for tab in at.tabs]
    assert "3 · assistant" in labels or "2 · user" in labels, labels
    assert not [label for label in labels if cjk.search(label)], labels
    captions = "\n".join(c.value for c in at.caption)
    assert "smart: Table preferred" in captions or "Notes" not in captions
    assert "offline extractive answer" in captions and "offline-extractive" not in captions


@slow
def test_english_labels_on_every_page(env: Path) -> None:
    at = start()
    at.get_by_key("_w_lang__sidebar").set_value("en").run()
    assert not at.exception
    assert "## 💬 Ask the reports" in markdown(at)
    assert at.chat_input(key="question").proto.placeholder.startswith("Ask a question")
    assert [s.label for s in at.sidebar.selectbox] == ["Knowledge base"]
    for page, title in [
        ("views/compare.py", "## ⚖️ Smart vs hybrid"),
        ("views/library.py", "## 📚 Library"),
        ("views/evaluate.py", "## 🧪 Evaluate"),
        ("views/settings.py", "## ⚙️ Settings"),
    ]:
        at.switch_page(page).run()
        assert not at.exception, at.exception
        assert title in [m.value for m in at.markdown], page
    at.switch_page("views/library.py").run()
    labels = [b.label for b in at.button]
    assert "Create" in labels and "Delete knowledge base" in labels
    assert at.file_uploader[0].proto.label == "Choose files (several at once)"
    # back to Chinese from the settings page's own control
    at.switch_page("views/settings.py").run()
    at.get_by_key("_w_lang__settings").set_value("zh").run()
    assert "## ⚙️ 设置" in markdown(at)


@slow
def test_settings_never_show_the_key(env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RAG_APP_API_KEY", SECRET)
    at = start("views/settings.py")
    rendered = everything(at)
    assert SECRET not in rendered
    assert "sk-…6d5e" in rendered  # masked: prefix and last four only
    assert "RAG_APP_API_KEY" in rendered  # where it came from
    assert any("离线" in c.value for c in at.caption)  # no model: the offline answerer

    typed = "sk-typed-ALSO-SECRET-0011223344"
    at.text_input(key="_f_model").set_value("gpt-4o-mini")
    at.text_input(key="_f_api_key").set_value(typed)
    [save] = [b for b in at.button if b.label == "保存"]
    save.click().run()
    assert not at.exception, at.exception
    rendered = everything(at)
    assert typed not in rendered and SECRET not in rendered
    assert "sk-…3344" in rendered
    assert at.text_input(key="_f_api_key").value == ""
    assert at.session_state["provider"]["model"] == "gpt-4o-mini"


@slow
def test_connection_test_reports_success_and_failure(
    env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with OpenAIStubServer() as server:
        monkeypatch.setenv("RAG_APP_BASE_URL", server.base_url)
        monkeypatch.setenv("RAG_APP_MODEL", "stub-model")
        at = start("views/settings.py")
        [test] = [b for b in at.button if b.label == "测试连接"]
        test.click().run()
        assert any("连接成功" in s.value and "stub-model" in s.value for s in at.success)
    at.session_state["provider"] = {
        **at.session_state["provider"],
        "base_url": "http://127.0.0.1:9/v1",
        "timeout_s": 2.0,
    }
    started = time.monotonic()
    [test] = [b for b in at.button if b.label == "测试连接"]
    test.click().run()
    assert any("连接失败" in e.value for e in at.error)
    assert time.monotonic() - started < 30


def test_every_label_has_both_languages() -> None:
    for key, pair in i18n.TEXTS.items():
        assert len(pair) == 2 and all(pair), key
        zh, en = pair
        assert set(_fields(zh)) == set(_fields(en)), key


def _fields(text: str) -> list[str]:
    import string

    return [name for _, name, _, _ in string.Formatter().parse(text) if name]


def texts(at: AppTest) -> str:
    """Every element's text and label as a user reads them (in their Markdown source)."""
    out = []
    for node in nodes(at._tree):
        for name in ("value", "label", "body"):
            try:
                value = getattr(node, name, None)
            except Exception:  # noqa: BLE001 - some widgets have no value outside a run
                continue
            if isinstance(value, str):
                out.append(value)
    return "\n".join(out)


def glued_to_full_width_colon(text: str) -> list[str]:
    """English labels written with the Chinese colon (``Evidence：``)."""
    return sorted(
        {en for _, en in i18n.TEXTS.values() if "{" not in en and f"{en}：" in text}, key=len
    )


@slow
def test_english_pages_use_the_ascii_colon(env: Path) -> None:
    at = start()
    at.get_by_key("_w_lang__sidebar").set_value("en").run()
    ask(at, QUESTION)  # smart mode: the routing's evidence, scores and reason
    shown = texts(at)
    assert "Evidence: " in shown and "Retrieval: " in shown
    assert glued_to_full_width_colon(shown) == []
    at.switch_page("views/compare.py").run()
    at.text_input(key="compare_question").set_value(QUESTION)
    at.button[0].click().run()
    assert not at.exception, at.exception
    shown = texts(at)
    assert "**Question:**" in shown
    assert glued_to_full_width_colon(shown) == []
    at.switch_page("views/settings.py").run()
    shown = texts(at)
    assert "Counter: `" in shown
    assert glued_to_full_width_colon(shown) == []
    # ... and Chinese keeps its own
    at.get_by_key("_w_lang__settings").set_value("zh").run()
    assert "计数器：`" in texts(at)


@slow
@pytest.mark.parametrize(
    "lang, expected",
    [("zh", "大小上限：.zip 每个 200 MB，其他文件每个 32 MB。"), ("en", "200 MB per .zip")],
)
def test_library_states_the_real_upload_limits(env: Path, lang: str, expected: str) -> None:
    at = start()
    at.get_by_key("_w_lang__sidebar").set_value(lang).run()
    at.switch_page("views/library.py").run()
    assert not at.exception, at.exception
    limits = resources.settings()
    megabytes = 1024 * 1024
    assert (limits.max_zip_bytes, limits.max_file_bytes) == (200 * megabytes, 32 * megabytes)
    assert any(expected in c.value for c in at.caption), [c.value for c in at.caption]
    # Streamlit's own "Limit 200MB per file" follows the settings (the largest file accepted)
    assert at.file_uploader[0].proto.max_upload_size_mb == 200


def test_english_labels_use_ascii_punctuation() -> None:
    for key, (_, en) in i18n.TEXTS.items():
        assert not re.search(r"[：（）「」，。；！？、]", en), (key, en)


def test_quoted_document_text_keeps_its_markdown_characters() -> None:
    from ui.render_citations import CheckedLine, answer_markdown, markdown_plain, quote_html

    text = (
        "（离线）\n\n- 字段 __init__ 与 *星号* <b>x</b> [Source 1]\n- 第二句 [Source 2] [Source 7]"
    )
    out = answer_markdown(text, None, prefix="", max_number=2, literal=True)
    assert "\\_\\_init\\_\\_" in out and "\\*星号\\*" in out and "\\<b\\>" in out
    assert "[\\[来源 1\\]](#source-1)" in out and "[\\[来源 2\\]](#source-2)" in out
    assert "\\[来源 7\\]" in out and "(#source-7)" not in out  # dangling: no link
    assert out.count("\n- ") == 2  # the bullets stay a list
    # a model's answer keeps its Markdown
    assert "**106.2倍**" in answer_markdown("**106.2倍** [Source 1]", None, max_number=1)

    # Quotes of a model's answer drop the emphasis it was drawn with, nothing else.
    assert markdown_plain("**106.2倍** 与 *预测* 与 __全年__") == "106.2倍 与 预测 与 全年"
    assert markdown_plain("SMIC__2024__Q1 与 a_b_c 与 2*3") == "SMIC__2024__Q1 与 a_b_c 与 2*3"
    assert markdown_plain("\\_\\_init\\_\\_") == "__init__"
    line = CheckedLine("字段 __init__ 与 SMIC__2024__Q1", (1,), True, 1.0, (), ())
    assert "字段 __init__ 与 SMIC__2024__Q1" in quote_html(line, literal=True)  # document text
    assert "字段 init 与 SMIC__2024__Q1" in quote_html(line)  # a model's Markdown


def test_core_reasons_are_worded_in_the_users_language() -> None:
    import streamlit as st

    from rag_app.models import Reason
    from rag_app.retrieve.routing import detect_query_type

    routing = detect_query_type(analyse_query("请给出表6 产线一览表"))
    why = Reason("numbers_not_found", (("numbers", "542, 84.8"), ("sources", "2, 3")))
    unknown = Reason("something_new")
    try:
        st.session_state["lang"] = "zh"
        confidence, threshold = f"{routing.confidence:.2f}", f"{routing.threshold:.2f}"
        assert i18n.reason_text((routing.why,), routing.reason) == (
            f"表格置信度 {confidence} ≥ {threshold}：优先表格，其余类型照常检索"
        )
        assert i18n.reason_text((why,), "english") == "数字 542、84.8 不在来源 2、3 中"
        assert i18n.reason_text((why, unknown), "english") == "english"  # no half-translations
        st.session_state["lang"] = "en"
        assert i18n.reason_text((routing.why,), routing.reason) == routing.reason
    finally:
        st.session_state["lang"] = "zh"


def test_every_prompt_budget_reason_has_a_chinese_wording() -> None:
    """Sources kept, excerpted, cut and dropped, history kept/cut/dropped: each section of the
    prompt report gives a key the Chinese UI words (no English left in the 原因 column)."""
    import streamlit as st

    from rag_app.models import Chunk, Hit
    from rag_app.prompt import PromptSettings, Turn, build_prompt
    from rag_app.text.tokens import get_token_counter

    rows = "".join(f"<tr><td>产线{i}</td><td>{i}</td></tr>" for i in range(200))
    big = Chunk(
        "big", "d", "table", "x", "x", (1,), table_html=f"<table>{rows}</table>", header_rows=1
    )
    text = Chunk("t", "d", "text", "产线1的产能为1万片。" * 80, "x", (2,))
    small = Chunk("s", "d", "text", "产线合计产能持续提升。", "x", (3,))
    hits = [Hit(big, 0.9), Hit(big, 0.85), Hit(text, 0.8), Hit(small, 0.7), Hit(small, 0.6)]
    history = [Turn("问" * 10, "答" * 2000), Turn("", "x"), Turn("之前的问题", "之前的回答")]
    result = build_prompt(
        analyse_query("产线1的产能是多少？"),
        hits,
        history,
        counter=get_token_counter(),
        settings=PromptSettings(context_budget=400, history_budget=300, max_history_turns=2),
    )
    sections = result.report.sections
    assert {s.status for s in sections} == {"kept", "cut", "dropped"}
    try:
        st.session_state["lang"] = "zh"
        for section in sections:
            assert section.why is not None, section
            worded = i18n.reason_text((section.why,), section.reason)
            words = re.sub(r"max_tokens|tokens", "", worded)  # the unit stays as it is
            assert worded != section.reason and not re.search(r"[a-z]{4,}", words), worded
    finally:
        st.session_state["lang"] = "zh"


@slow
def test_the_audit_page_lists_filters_and_exports_what_was_asked(env: Path) -> None:
    at = start()
    ask(at, QUESTION)
    at.switch_page("views/audit.py").run()
    assert not at.exception, at.exception
    assert "## 🧾 审计日志" in markdown(at)
    at.text_input(key="audit_words").set_value("预测市盈率").run()
    assert not at.exception, at.exception
    (table,) = [d for d in at.dataframe if "问题" in d.value.columns]
    frame = table.value
    assert (frame["问题"] == QUESTION).any() and (frame["知识库"] == resources.SAMPLE_KB).any()
    row = frame[frame["问题"] == QUESTION].iloc[0]
    assert row["片段数"] > 0 and row["提示词 tokens"] > 0 and row["来源"] == "网页"
    assert row["错误"] == ""
    assert any(b.label == "导出 CSV" for b in at.get("download_button"))
    at.text_input(key="audit_words").set_value("no such question asked").run()
    assert "没有符合条件的记录。" in [i.value for i in at.info]
    english = start()
    english.get_by_key("_w_lang__sidebar").set_value("en").run()
    english.switch_page("views/audit.py").run()
    assert not english.exception, english.exception
    assert "## 🧾 Audit log" in markdown(english)


def tick(at: AppTest, table: Any, row: int) -> AppTest:
    """Tick a row of an st.dataframe as a click does: its selection state, under its key."""
    key = str(table.proto.id).split("-", 2)[2]  # "$$ID-<hash>-<key>"
    at.session_state[key] = {"selection": {"rows": [row], "columns": [], "cells": []}}
    return at.run()


@slow
def test_a_ticked_audit_record_is_kept_by_its_id_when_a_filter_changes(env: Path) -> None:
    """Was a bug: the ticked row was a position kept whatever the table held next: a filter
    opened another record in it, or raised an IndexError past the list's end."""
    user = "apptest-tick"
    write_audit_records(env, user, TICK_QUESTIONS)  # 甲 乙 丙 丁 shown
    at = start("views/audit.py")
    at.text_input(key="audit_user").set_value(user).run()
    (table,) = [d for d in at.dataframe if "问题" in d.value.columns]
    tick(at, table, 1)
    assert not at.exception, at.exception
    assert f"**{TICKED}**" in markdown(at)
    for words, left in (("营业收入", 3), ("丁", 1)):  # 乙 filtered away; then one row left
        at.text_input(key="audit_words").set_value(words).run()
        assert not at.exception, at.exception
        assert f"{left} 条记录（最新在前）" in [c.value for c in at.caption]
        assert "**勾选测试" not in markdown(at)  # nothing open: not 丙, in 乙's row
    at.text_input(key="audit_words").set_value("").run()
    assert not at.exception, at.exception
    assert f"**{TICKED}**" in markdown(at)  # ticked again, by its id


@slow
def test_a_knowledge_base_created_on_the_library_page_is_remembered(env: Path) -> None:
    at = start("views/library.py")
    at.text_input(key="new_kb_name").set_value("记住测试").run()
    [create] = [b for b in at.button if b.label == "创建"]
    create.click().run()
    assert at.session_state["kb"] == "记住测试"
    try:
        assert session().session_state["kb"] == "记住测试"  # a reload
    finally:
        Library(Settings(data_dir=env, cache_dir=REAL_CACHE_DIR)).delete_kb("记住测试")


# -- saved conversations (rag_app/chat/conversations.py, views/ask.py) --------------------------------
@pytest.fixture(autouse=True)
def _forget_the_local_users_conversations(request: pytest.FixtureRequest) -> None:
    """The tests share one data folder: each starts as a user with no saved conversation and
    no remembered choice (a language or mode one test chose would greet the next one)."""
    if "env" not in request.fixturenames:
        return
    from rag_app.chat.conversations import ConversationStore

    store = ConversationStore.in_dir(request.getfixturevalue("data_dir"))
    store.forget_user("")
    store.close()


def session(user: dict[str, Any] | None = None, address: str = "") -> AppTest:
    """A new session (a browser tab opened, or reloaded) as ``user`` at ``?c=address``."""
    at = AppTest.from_file(APP, default_timeout=240)
    if user is not None:
        at.user = user
    if address:
        at.query_params["c"] = address
    at.run()
    assert not at.exception, at.exception
    return at


def conversation_buttons(at: AppTest) -> dict[str, str]:
    """The sidebar's saved conversations: id -> label."""
    return {
        str(b.key)[5:]: b.label
        for b in at.sidebar.button
        if str(b.key).startswith("conv_")
        and b.key not in {"conv_new", "conv_rename", "conv_delete", "conv_sign_in"}
    }


@slow
def test_a_conversation_is_saved_listed_reopened_renamed_and_deleted(env: Path) -> None:
    at = start()
    assert conversation_buttons(at) == {}
    ask(at, QUESTION)
    opened = at.session_state["conversation"]
    assert opened and at.query_params["c"] == opened  # the address names it
    assert conversation_buttons(at) == {opened: QUESTION}
    assert at.button(key=f"conv_{opened}").proto.help == QUESTION  # the whole title on hover
    # a new conversation empties the chat and the address; the saved one stays listed
    at.button(key="conv_new").click().run()
    assert len(at.chat_message) == 0 and "c" not in at.query_params
    assert at.session_state["conversation"] is None and opened in conversation_buttons(at)
    # reopened from the sidebar: the turn as it was, its citations linked to its cards
    at.button(key=f"conv_{opened}").click().run()
    assert not at.exception, at.exception
    assert len(at.chat_message) == 2 and at.query_params["c"] == opened
    text = markdown(at)
    assert "106.2" in text
    links = re.findall(r"\[\\\[来源 (\d+)\\\]\]\(#source-(\d+)\)", text)
    assert links and all(f'id="source-{b}"' in text for _, b in links)
    assert any("已从对话记录恢复" in c.value for c in at.caption)
    # every source's chunk is found in the library again (merged sub-tables joined again)
    assert not any("已不在文档库中" in c.value for c in at.caption)
    # a reload (a new session at the same address) shows it; so does a follow-up's history
    reloaded = session(address=opened)
    assert [m.name for m in reloaded.chat_message] == ["user", "assistant"]
    assert QUESTION in markdown(reloaded)
    ask(reloaded, "那2025年呢？")
    assert len(reloaded.chat_message) == 4 and reloaded.session_state["conversation"] == opened
    turns = reloaded.session_state["turns"]
    assert turns[0].answer is None and turns[0].saved is not None  # restored
    messages = turns[1].answer.prompt.messages
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]
    # rename
    reloaded.text_input(key=f"conv_title_{opened}").set_value("市盈率 *预测* <b>").run()
    reloaded.button(key="conv_rename").click().run()
    # shown as written: the title's Markdown and HTML characters are escaped
    assert conversation_buttons(reloaded)[opened] == "市盈率 \\*预测\\* \\<b\\>"
    assert [d.label for d in reloaded.get("download_button")] == ["⬇️"]  # the export
    # delete (the confirmation is the popover's own button)
    reloaded.button(key="conv_delete").click().run()
    assert not reloaded.exception, reloaded.exception
    assert opened not in conversation_buttons(reloaded) and len(reloaded.chat_message) == 0
    assert "对话已删除。" in [i.value for i in reloaded.info]
    gone = session(address=opened)
    assert len(gone.chat_message) == 0 and "c" not in gone.query_params
    assert any("地址中的对话不存在" in i.value for i in gone.info)


@slow
def test_a_reloaded_conversation_shows_what_each_answer_showed(env: Path) -> None:
    at = start()
    ask(at, "中芯国际2025年的毛利率预测是多少？")
    ask(at, "那2026年呢？")
    opened = at.session_state["conversation"]

    def shown(page: AppTest) -> tuple[int, int, int, int]:
        captions = [c.value for c in page.caption]
        labels = [e.label for e in page.expander]
        return (
            sum("理解为" in c for c in captions),
            sum("引用核查" in label for label in labels),
            sum("检索详情" in label for label in labels),
            sum("提示词检查" in label for label in labels),
        )

    live = shown(at)
    assert live[0] == 1 and live[1:] == (2, 2, 2), live
    reloaded = session(address=opened)  # a reload: a new session at the same address
    assert [m.name for m in reloaded.chat_message] == ["user", "assistant"] * 2
    assert shown(reloaded) == live
    turns = reloaded.session_state["turns"]
    assert all(turn.answer is None and turn.saved.has_details for turn in turns)
    # the citation check reads as it did live; the old "details not kept" line is gone
    checks = [e.label for e in reloaded.expander if "引用核查" in e.label]
    assert checks == [e.label for e in at.expander if "引用核查" in e.label]
    assert not any("检索详情与提示词未保存" in c.value for c in reloaded.caption)
    assert any(c.value.startswith("🗂️ 已从对话记录恢复") for c in reloaded.caption)


@slow
def test_the_language_and_the_ask_pages_choices_are_remembered(env: Path) -> None:
    at = start()
    at.get_by_key("_w_mode__ask").set_value("hybrid").run()
    at.get_by_key("_w_prompt_mode__ask").set_value("precise").run()
    library = Library(Settings(data_dir=env, cache_dir=REAL_CACHE_DIR))
    (doc_id,) = [d.doc_id for d in library.documents(resources.SAMPLE_KB)]
    at.get_by_key(f"_w_doc_filter.{resources.SAMPLE_KB}__ask").set_value([doc_id]).run()
    # (in a session of its own: AppTest loses widget changes made after a language switch)
    session().get_by_key("_w_lang__sidebar").set_value("en").run()
    again = session()
    assert again.session_state["lang"] == "en" and "## 💬 Ask the reports" in markdown(again)
    assert again.session_state["mode"] == "hybrid"
    assert again.session_state["prompt_mode"] == "precise"
    assert again.get_by_key("_w_mode__ask").value == "hybrid"
    assert again.session_state["doc_filter"] == {resources.SAMPLE_KB: [doc_id]}
    # another signed-in user starts from the defaults
    other = session({"is_logged_in": True, "email": "bob@example.com"})
    assert other.session_state["lang"] == "zh" and other.session_state["mode"] == "smart"


@slow
def test_one_user_never_sees_another_users_conversations(env: Path) -> None:
    alice_user = {"is_logged_in": True, "email": "alice@example.com", "name": "Alice"}
    alice = session(alice_user)
    ask(alice, QUESTION)
    hers = alice.session_state["conversation"]
    assert hers in conversation_buttons(alice)
    try:
        bob = session({"is_logged_in": True, "email": "bob@example.com"})
        assert conversation_buttons(bob) == {}
        # knowing the address is not enough
        peeking = session({"is_logged_in": True, "email": "bob@example.com"}, address=hers)
        assert len(peeking.chat_message) == 0 and conversation_buttons(peeking) == {}
        assert any("地址中的对话不存在" in i.value for i in peeking.info)
        # nor is being the local user (no authentication), nor a visitor not signed in
        assert conversation_buttons(session()) == {}
        visitor = session({"is_logged_in": False}, address=hers)
        assert len(visitor.chat_message) == 0 and conversation_buttons(visitor) == {}
        assert "登录后可保存对话。" in [c.value for c in visitor.sidebar.caption]
        # Alice, back, finds hers
        back = session(alice_user, address=hers)
        assert QUESTION in markdown(back) and hers in conversation_buttons(back)
    finally:
        from rag_app.chat.conversations import ConversationStore

        store = ConversationStore.in_dir(env)
        store.forget_user("alice@example.com")
        store.close()


def test_a_metric_over_the_years_from_the_library_page(env: Path) -> None:
    """The Library page's series: a metric the profiles list, its cells over the years as a
    table (each with where it is), a chart and a CSV."""
    at = start("views/library.py")
    picker = next(s for s in at.selectbox if str(s.key).startswith("series_metric_"))
    assert "毛利率" in picker.options
    picker.set_value("毛利率").run()
    assert not at.exception, at.exception
    frames = [f.value for f in at.dataframe if "期间" in f.value.columns]
    assert frames, "no series table"
    table = frames[0]
    assert list(table["数值"]) == ["38.3", "19.3", "18.6", "21.8", "23.5"]
    assert all("第" in where and "页" in where for where in table["出处"])
    assert any("下载 CSV" in str(b.proto) for b in at.get("download_button"))


@slow
def test_the_facts_each_documents_tables_hold_on_the_library_page(env: Path) -> None:
    """The document table says how many facts each document's tables hold; the expander shows
    one document's facts (subject, metric, period, value, unit, scale, table) and a CSV."""
    at = start("views/library.py")
    library = Library(Settings(data_dir=env, cache_dir=REAL_CACHE_DIR))
    counts = library.fact_counts(resources.SAMPLE_KB)
    docs = at.dataframe[0].value
    assert list(docs["表格事实"]) == [
        counts[d.doc_id] for d in library.documents(resources.SAMPLE_KB)
    ]
    [facts] = [e for e in at.expander if e.label.startswith("🔢 表格事实")]
    assert f"（{sum(counts.values())} 条）" in facts.label
    frames = [f.value for f in at.dataframe if "量级" in f.value.columns]
    assert frames and len(frames[0]) == sum(counts.values())  # the sample: one document
    margin = frames[0][frames[0]["指标"] == "毛利率（%）"]
    assert list(margin["数值"])[:5] == ["38.3", "19.3", "18.6", "21.8", "23.5"]
    assert set(margin["单位"]) == {"%"} and set(margin["主体"]) == {"中芯国际"}
    assert any("facts_csv_" in str(b.proto) for b in at.get("download_button"))
