"""The app in a real browser: headless Chromium drives ``streamlit run app.py``.

One server per module on a fresh data folder holding the sample report in 示例 (imported with the
real embedding model once a session, ``browser_support.sample_data``; the import from the first
page is tests/ui/test_cold_start.py's), then every test opens its own browser context, which is
a fresh Streamlit session. Tests that change the library make their own
knowledge base, so they do not depend on each other's order.

What only a browser shows, and so what is checked here: uploads through the file input, the
answer growing while it streams, a ``[Source N]`` click opening and scrolling to its card, the
view staying where the reader put it (a new question is brought into view, a section opened
keeps its title in view), canvas tables and charts being drawn, labels that fit their buttons,
the language switch surviving page changes, what a restart shows (only the app's navigation,
a notice while the embedding model loads), document text shown as written, and hostile
content (a document, a model's answer) staying inert: no script runs, no dialog opens (any
dialog or uncaught page error fails every test). Screenshots of every page in both languages
are written to ``docs/screenshots/``; every test's last view goes to ``test-artifacts/browser/``.

Where a test needs a language model it uses ``tests/openai_stub_server.py`` (a real HTTP server
speaking the OpenAI chat API), configured through the Settings page like a user would.
``test_clicking_a_citation_scrolls_...`` still ends in xfail if the card's title lands above
the window (a UI bug fixed by the anchor's scroll margin; the reason names the file and fix).

Run: ``.venv/bin/python -m pytest tests/ui/test_browser.py -q -m browser``.
"""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REAL_CACHE_DIR, TEST_DATA
from tests.openai_stub_server import OpenAIStubServer, Reply
from tests.ui.audit_support import TICK_QUESTIONS, TICKED, write_audit_records
from tests.ui.browser_support import (
    REPO_ROOT,
    StreamlitServer,
    act,
    ask,
    expander,
    expect,
    goto_page,
    in_viewport,
    last_assistant,
    mark,
    navigation,
    new_page,
    open_app,
    recorder,
    sample_data,
    use_stub_llm,
    wait_idle,
)

pytestmark = pytest.mark.browser

pytest.importorskip("playwright.sync_api")

UPLOAD_SUFFIXES = (".json", ".md", ".markdown", ".zip", ".xlsx", ".xls", ".csv")
BROWSER_DATA = TEST_DATA / "browser"
# The README's screenshots are rewritten only on request (UPDATE_SCREENSHOTS=1); otherwise the
# pages are still driven and captured, into test-artifacts/.
SCREENSHOTS = (
    REPO_ROOT / "docs" / "screenshots"
    if os.environ.get("UPDATE_SCREENSHOTS") == "1"
    else REPO_ROOT / "test-artifacts" / "screenshots"
)
ARTIFACTS = REPO_ROOT / "test-artifacts" / "browser"
QUESTION = "中芯国际2026年预测市盈率是多少？"
QUESTION_2 = "2024年第二季度中芯国际的产能利用率是多少？"
QUESTION_EN = "What is the planned monthly capacity of SMIC's 中芯京城 fab, and what is its status?"
HOSTILE_QUESTION = "恶意测试公司2024年各季度营业收入是多少？"
# What the stub model streams, one CJK character at a time, 20 ms apart (about 1.3 s in all).
STUB_ANSWER = (
    "根据盈利预测与估值表，中芯国际2026年预测市盈率为106.2倍 [Source 1]。"
    "2025年的预测值为132.0倍 [Source 1]。"
)
# A document whose text Markdown would rewrite: names with double underscores, stars.
UNDERSCORE_SENTENCE = "字段 __init__ 与 SMIC__2024__Q1 的营业收入为 5.1 亿美元，标识 a_b_c、*星号* 与 **粗体** 保持原样。"
UNDERSCORE_DOC = [
    {"type": "text", "text": "下划线测试报告", "text_level": 1, "page_idx": 0},
    {"type": "text", "text": UNDERSCORE_SENTENCE, "page_idx": 0},
]
# For the citation tests: answers the stub model gives, so that [Source 2] is always there.
STUB_SHORT = "中芯国际2026年预测市盈率为106.2倍 [Source 1]。公司资本开支维持高位 [Source 2]。"
STUB_LONG = "结论：估值处于高位，依据见 [Source 2]。\n\n" + "\n\n".join(
    f"{i}. 第{i}条分析：产能利用率、折旧与毛利率的变化共同决定了盈利弹性 [Source 1]。"
    for i in range(1, 16)
)
# A model's answer is untrusted too: links, raw HTML and a fake citation to a missing source.
STUB_HOSTILE = (
    "营业收入见 [季度表](javascript:window.__pwned=9) [Source 1]。"
    '<img src=x onerror="window.__pwned=10"><script>window.__pwned=11</script>'
    '<a href="javascript:window.__pwned=12">点此</a> [Source 99]'
)
ROW_PX = 35  # an st.dataframe row's height (Streamlit's default)
SCROLL_TOP = "document.querySelector('[data-testid=\"stMain\"]').scrollTop"
PROBES = """() => ({
  pwned: typeof window.__pwned === 'undefined' ? null : String(window.__pwned),
  jsLinks: document.querySelectorAll('a[href^="javascript:" i], [src^="javascript:" i]').length,
  handlers: [...document.body.querySelectorAll('*')].filter(
      (e) => [...e.attributes].some((a) => /^on/i.test(a.name))).length,
  scripts: [...document.querySelectorAll('script')].filter(
      (s) => s.textContent.includes('__pwned')).length,
  images: [...document.querySelectorAll('img')].filter(
      (i) => (i.getAttribute('src') || '') === 'x').length,
})"""


# -- fixtures -------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def app_server(tmp_path_factory: pytest.TempPathFactory, browser: Any) -> Iterator[StreamlitServer]:
    from rag_app.config import Settings
    from rag_app.index.embedder import ModelMissingError, resolve_model

    try:
        resolve_model(Settings(cache_dir=REAL_CACHE_DIR))
    except ModelMissingError as exc:
        pytest.skip(f"real embedding model not available: {exc}")
    root = tmp_path_factory.mktemp("browser")
    data = sample_data(tmp_path_factory, root / "data")  # the sample in 示例, imported once
    server = StreamlitServer(data, cache_dir=REAL_CACHE_DIR, log_path=root / "server.log")
    server.start()
    try:
        # The first session finds the sample there, as every later one does.
        page = new_page(browser)
        open_app(page, server.url, timeout=240_000)
        page.get_by_text("💡").wait_for(timeout=30_000)  # the sample's example questions
        page.context.close()
    except Exception:
        print(server.log())
        server.stop()
        raise
    yield server
    server.stop()


@pytest.fixture(scope="module")
def stub() -> Iterator[OpenAIStubServer]:
    with OpenAIStubServer() as server:
        yield server


@pytest.fixture
def page(
    browser: Any, app_server: StreamlitServer, request: pytest.FixtureRequest
) -> Iterator[Any]:
    """A fresh session on the Ask page; any dialog or uncaught page error fails the test."""
    # Saved conversations and remembered choices (language, modes) belong to the one local
    # user, whom every test's session is: each test starts without the last one's.
    from rag_app.chat.conversations import ConversationStore

    saved = ConversationStore.in_dir(app_server.data_dir)
    saved.forget_user("")
    saved.close()
    pg = new_page(browser)
    dialogs: list[str] = []
    errors: list[str] = []

    def on_dialog(dialog: Any) -> None:
        dialogs.append(f"{dialog.type}: {dialog.message}")
        dialog.dismiss()

    pg.on("dialog", on_dialog)
    pg.on("pageerror", lambda error: errors.append(str(error)))
    pg.dialogs, pg.page_errors = dialogs, errors  # for tests that check mid-way
    open_app(pg, app_server.url)
    yield pg
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    name = re.sub(r"[^\w.-]+", "_", request.node.name)
    try:  # the last state of every test, for a failure's post-mortem (test-artifacts/ is ignored)
        pg.screenshot(path=str(ARTIFACTS / f"{name}.png"))
    except Exception:  # noqa: BLE001 - a screenshot must not hide the test's own result
        pass
    pg.context.close()
    assert not dialogs, f"a dialog opened: {dialogs}"
    assert not errors, f"uncaught errors in the page: {errors}"


# -- helpers --------------------------------------------------------------------------------------
def main_area(page: Any) -> Any:
    """The page's content column (inside ``stMain``, the element that scrolls)."""
    return page.get_by_test_id("stMainBlockContainer")


def sidebar(page: Any) -> Any:
    return page.get_by_test_id("stSidebar")


def segment(page: Any, label: str) -> Any:
    """A segmented-control option in the sidebar (retrieval mode, language...)."""
    return sidebar(page).get_by_role("radio", name=label, exact=True)


def heading(page: Any, text: str) -> Any:
    return main_area(page).locator("h1, h2, h3, h4", has_text=text)


def create_kb(page: Any, name: str) -> None:
    """On the Library page: create a knowledge base (it becomes the session's current one)."""
    box = page.locator(".st-key-new_kb_name input")
    box.fill(name)
    act(page, lambda: box.press("Enter"))
    act(page, main_area(page).get_by_role("button", name="创建").click)
    page.get_by_test_id("stAlertContentSuccess").filter(has_text=name).wait_for()


def choose(page: Any, control: Any, option: str) -> None:
    """Pick ``option`` in a selectbox (its list opens in a popover outside the control)."""
    options_of(page, control)
    act(page, page.get_by_role("option", name=option, exact=True).click)


def options_of(page: Any, control: Any) -> Any:
    """The options a selectbox or multiselect offers (its list opened; Escape closes it)."""
    # a scroll closes the list: the control brought into view first, and the page still
    control.scroll_into_view_if_needed()
    scrolling_stopped(page, 300)
    control.get_by_role("button", name="Open").click()
    page.get_by_role("listbox").wait_for()
    # a multiselect's list starts with Streamlit's own "Select all"
    return page.get_by_role("option").filter(has_not_text="Select all")


def document_names(page: Any, n: int) -> list[str]:
    """The Library page's document table's names, read from the grid's accessible twin (the
    grid is drawn on a canvas) once it holds ``n`` rows."""
    table = main_area(page).get_by_test_id("stDataFrame").first
    rows = table.locator('[role="row"]:has([role="gridcell"])')
    expect(rows).to_have_count(n)
    return [r.locator('[role="gridcell"]').first.inner_text().strip() for r in rows.all()]


def tick_row(page: Any, table: Any, row: int) -> None:
    """Tick a row of an st.dataframe: its checkbox in the row-marker column, on the canvas
    (rows and the header are ROW_PX high)."""
    box = table.bounding_box()
    y = box["y"] + ROW_PX * (row + 1) + ROW_PX / 2
    act(page, lambda: page.mouse.click(box["x"] + ROW_PX / 2, y))


def upload(page: Any, paths: list[Path], kb: str) -> None:
    """Choose files in the uploader, press the import button and wait for the results."""
    act(page, lambda: page.get_by_test_id("stFileUploaderDropzoneInput").set_input_files(paths))
    button = page.get_by_role("button", name=f"导入 {len(paths)} 个文件到「{kb}」")
    act(page, button.click, timeout=180_000)
    page.get_by_text("导入结果").wait_for()


def script_state(page: Any) -> str:
    return page.get_by_test_id("stApp").get_attribute("data-test-script-state") or ""


def open_card(page: Any, message: Any, number: int) -> Any:
    """Open the source card N (titled [来源 N] in the Chinese UI, [Source N] in the English)."""
    card = expander(message, re.compile(rf"\[(来源|Source) {number}\]"))
    card.locator("summary").click()
    card.get_by_test_id("stExpanderDetails").wait_for(state="visible")
    return card


def rest_pointer(page: Any) -> None:
    """Put the pointer in the content column's left padding, where no inner scroller (code,
    table, chart) takes the wheel."""
    column = main_area(page).bounding_box()  # includes its padding, around the content
    content = main_area(page).get_by_test_id("stVerticalBlock").first.bounding_box()
    page.mouse.move((column["x"] + content["x"]) / 2, page.viewport_size["height"] / 2)


def wheel_to(page: Any, target: Any, top_max: float) -> None:
    """Scroll with the mouse wheel, as a user does, until ``target``'s top is between 40 px
    and ``top_max``."""
    rest_pointer(page)
    for _ in range(60):
        box = target.bounding_box()
        if box is not None and 40 <= box["y"] <= top_max:
            return
        down = box is not None and box["y"] > top_max
        away = (box["y"] - top_max) if down else (40 - box["y"]) if box is not None else 600
        step = min(away + 30, 600)  # land 30 px inside the band (a wheel pixel is a pixel)
        page.mouse.wheel(0, step if down else -step)
        scrolling_stopped(page, 150)
        after = target.bounding_box()
        if down and after is not None and box is not None and after["y"] == box["y"]:
            return  # the page's end: it cannot come any higher
    raise AssertionError(f"could not scroll {target} into place: {target.bounding_box()}")


def wheel_to_end(page: Any) -> None:
    """Scroll with the mouse wheel to the page's end, as a reader who has read to the end."""
    rest_pointer(page)
    for _ in range(30):
        top = page.evaluate(SCROLL_TOP)
        page.mouse.wheel(0, 600)
        scrolling_stopped(page, 150)
        if page.evaluate(SCROLL_TOP) == top:
            return
    raise AssertionError("the page did not reach its end")


def below_the_fold_setup(page: Any, message: Any) -> tuple[Any, Any]:
    """With a long answer: open the prompt inspector (so card 2 is far from the page's end)
    and wheel back up to the answer's first line; card 2 is then closed and below the fold."""
    link = message.locator('.st-key-answer_latest a[href="#source-2"]').first
    card = expander(message, "[来源 2]")
    inspector = expander(message, "提示词检查")
    inspector.locator("summary").click()
    inspector.get_by_test_id("stExpanderDetails").wait_for(state="visible")
    scrolling_stopped(page, 200)
    wheel_to(page, link, page.viewport_size["height"] * 0.4)
    assert card.locator("details").get_attribute("open") is None
    box = card.bounding_box()
    assert box is not None and box["y"] > page.viewport_size["height"], box
    return link, card


def settle_scrolling(page: Any, anchor: str) -> None:
    """Wait until the anchor's card is open and scrolling has stopped (the jump is smooth, a
    few hundred ms, and the chat may then glide on to its bottom)."""
    page.wait_for_function(
        "(id) => { const d = document.getElementById(id)?.closest('details'); return !!d?.open; }",
        arg=anchor,
    )
    scrolling_stopped(page, 300)


def scrolling_stopped(page: Any, still_ms: float) -> None:
    """Wait until the page's scroll position has not moved for ``still_ms``."""
    page.evaluate("window.__scroll = null")
    page.wait_for_function(
        """(still) => {
          const s = document.querySelector('[data-testid="stAppScrollToBottomContainer"]')
              || document.querySelector('[data-testid="stMain"]') || document.scrollingElement;
          const now = performance.now();
          const w = window.__scroll;
          if (!w || w.top !== s.scrollTop) { window.__scroll = {top: s.scrollTop, since: now}; return false; }
          return now - w.since > still;
        }""",
        arg=still_ms,
    )


def visible_height(page: Any, locator: Any) -> float:
    """How many pixels of the element are inside the window."""
    box = locator.bounding_box()
    if box is None:
        return 0.0
    top, bottom = max(box["y"], 0.0), min(box["y"] + box["height"], page.viewport_size["height"])
    return max(0.0, bottom - top)


def cut_labels(page: Any) -> list[str]:
    """Button and link labels drawn shorter than their text (Streamlit ends them with "…")."""
    return page.evaluate(
        """() => [...document.querySelectorAll(
              'button [data-testid="stMarkdownContainer"], a [data-testid="stMarkdownContainer"]')]
            .filter((e) => e.offsetParent !== null && e.scrollWidth > e.clientWidth + 1)
            .map((e) => e.textContent)"""
    )


def assert_inert(page: Any) -> None:
    found = page.evaluate(PROBES)
    assert found == {"pwned": None, "jsLinks": 0, "handlers": 0, "scripts": 0, "images": 0}, found
    assert not page.dialogs, page.dialogs


def northwind_zip(folder: Path) -> Path:
    """A second MinerU-style zip (content list + the figure it names), built from tests/data."""
    from PIL import Image

    image = io.BytesIO()
    Image.new("RGB", (64, 48), (31, 95, 191)).save(image, format="PNG")
    path = folder / "northwind_report.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(
            "northwind/northwind_content_list.json",
            (TEST_DATA / "tatqa_like_content_list.json").read_bytes(),
        )
        archive.writestr("northwind/images/revenue_mix.png", image.getvalue())
    return path


# -- tests ----------------------------------------------------------------------------------------
def test_upload_zip_and_content_list_show_results_per_file(page: Any, tmp_path: Path) -> None:
    goto_page(page, "文档库")
    create_kb(page, "上传测试")
    broken = tmp_path / "broken_content_list.json"
    broken.write_text("{not json", encoding="utf-8")
    files = [northwind_zip(tmp_path), BROWSER_DATA / "huahong_content_list.json", broken]
    upload(page, files, "上传测试")

    bars = page.get_by_test_id("stProgress")
    expect(bars).to_have_count(3)
    texts = bars.all_inner_texts()
    assert "northwind_report.zip · ✅ 已导入" in texts[0], texts
    assert "huahong_content_list.json · ✅ 已导入" in texts[1], texts
    assert "broken_content_list.json · ❌ 未导入" in texts[2], texts

    main = main_area(page)
    successes = main.get_by_test_id("stAlertContentSuccess").all_inner_texts()
    assert any("northwind" in s and "已导入" in s and "图片 1" in s for s in successes), successes
    assert any("huahong_content_list.json：已导入" in s and "表格 1" in s for s in successes)
    errors = main.get_by_test_id("stAlertContentError").all_inner_texts()
    assert any("broken_content_list.json：未导入" in e for e in errors), errors
    heading(page, "文档（2）").wait_for()
    assert main.get_by_test_id("stDataFrame").first.is_visible()


def test_answer_streams_in_smart_and_in_hybrid_mode(page: Any, stub: OpenAIStubServer) -> None:
    """The stub model streams one character every 20 ms: the answer must be seen growing in
    the browser, with the status box moving through its stages, before the script ends."""
    stub.set_default(
        Reply(text=STUB_ANSWER, pieces=tuple(STUB_ANSWER), chunk_delay_s=0.02, usage=(900, 60))
    )
    use_stub_llm(page, stub.base_url)
    assert "stub-model" in sidebar(page).inner_text()  # the session answers with the stub
    for turn, mode in enumerate(["smart", "hybrid"], start=1):
        if mode == "hybrid":
            act(page, segment(page, "混合").click)
        requests_before = len(stub.chat_requests)
        box = page.get_by_test_id("stChatInputTextArea")
        box.fill(QUESTION)
        started = mark(page)
        box.press("Enter")
        # Poll while the script runs: the new message's text must grow before the run ends.
        page.wait_for_function(f"window.__st.log.slice({started[0]}).some(e => e[1] === 'running')")
        seen: list[int] = []
        deadline = time.monotonic() + 60
        while script_state(page) == "running" and time.monotonic() < deadline:
            count, length = page.evaluate("window.__st.measure()")
            if count == turn and length and (not seen or length != seen[-1]):
                seen.append(length)
            page.wait_for_timeout(50)
        assert len(seen) >= 2 and seen == sorted(seen), f"{mode}: no stream seen: {seen}"

        message = last_assistant(page)
        expander(message, "提示词检查").wait_for(timeout=60_000)
        wait_idle(page, started)
        # The recorder (every DOM change, in the page) saw the same, and the stages.
        rec = recorder(page)
        growth = [n for t, c, n in rec["answer"] if t >= started[1] and c == turn and n > 0]
        assert len(set(growth)) >= 3, (mode, growth)
        labels = [label for t, label in rec["status"] if t >= started[1]]
        stages = [
            x for x in ("检索中", "构建提示词", "生成中", "完成 ·") if any(x in y for y in labels)
        ]
        # Retrieval and prompt building take tens of milliseconds: their labels can come and go
        # within one browser frame, and "完成" is replaced by the final render. What a reader
        # always sees is "生成中" while the text grows; any earlier stage seen comes before it.
        assert "生成中" in stages, (mode, labels)
        order = [x for x in ("检索中", "构建提示词", "生成中") if x in stages]
        first_seen = [next(i for i, y in enumerate(labels) if x in y) for x in order]
        assert first_seen == sorted(first_seen), (mode, labels)

        answer = message.locator(".st-key-answer_latest")
        assert "106.2" in answer.inner_text()
        assert answer.locator('a[href="#source-1"]').count() == 2
        details = expander(message, "检索详情")
        details.locator("summary").click()
        details.get_by_text("判定为" if mode == "smart" else "混合模式").first.wait_for()
        assert ("智能" if mode == "smart" else "混合") in message.locator(
            '[data-testid="stCaptionContainer"]'
        ).last.inner_text()  # the timings line: answerer, mode
        request = stub.chat_requests[requests_before]
        assert request.body["stream"] is True
        assert QUESTION in request.messages[-1]["content"]


def test_an_unreachable_provider_is_answered_offline_in_its_place(page: Any) -> None:
    """A model nobody answers for (a loopback port nothing listens on): the user gets the error
    with what to do, and the offline answer from the same retrieval, whose citations open."""
    use_stub_llm(page, "http://127.0.0.1:9/v1")
    message = ask(page, QUESTION)
    text = message.inner_text()
    assert "离线抽取式回答：大模型调用失败" in text and "[来源" in text
    warning = page.get_by_test_id("stAlertContentWarning").filter(has_text="离线抽取式回答")
    assert "设置" in warning.first.inner_text()
    assert page.get_by_test_id("stAlertContentError").count() == 0
    card = open_card(page, message, 1)
    assert card.get_by_test_id("stExpanderDetails").is_visible()


def test_clicking_a_citation_right_after_the_answer_shows_its_card(
    page: Any, stub: OpenAIStubServer
) -> None:
    """The common case: the answer has just arrived and the user clicks [Source 2] without
    scrolling; its card opens and is on screen, with no server round-trip."""
    stub.set_default(Reply(text=STUB_SHORT))
    use_stub_llm(page, stub.base_url)
    message = ask(page, QUESTION)
    link = message.locator('.st-key-answer_latest a[href="#source-2"]')
    assert link.inner_text() == "[来源 2]"
    card = expander(message, "[来源 2]")
    assert card.locator("details").get_attribute("open") is None
    link.click()
    body = card.get_by_test_id("stExpanderDetails")
    body.wait_for(state="visible")
    settle_scrolling(page, "source-2")
    assert page.url.endswith("#source-2")
    height = body.bounding_box()["height"]
    assert visible_height(page, body) >= min(150, height), body.bounding_box()
    assert script_state(page) == "notRunning"  # no rerun


def test_clicking_a_citation_scrolls_a_card_below_the_fold_into_view(
    page: Any, stub: OpenAIStubServer
) -> None:
    """A long answer in a smaller window; the user has scrolled back up to its first line and
    clicks [Source 2], whose card is far below the fold: the card opens and is scrolled to.

    Ends in xfail while the card's title lands above the window (a known UI bug, see below).
    """
    stub.set_default(Reply(text=STUB_LONG))
    use_stub_llm(page, stub.base_url)
    page.set_viewport_size({"width": 1280, "height": 700})
    message = ask(page, QUESTION)
    link, card = below_the_fold_setup(page, message)
    link.click()
    body = card.get_by_test_id("stExpanderDetails")
    body.wait_for(state="visible")
    settle_scrolling(page, "source-2")
    assert page.url.endswith("#source-2")
    anchor = page.locator("#source-2").bounding_box()
    assert in_viewport(page, anchor), anchor
    height = body.bounding_box()["height"]
    assert visible_height(page, body) >= min(200, height - 10), body.bounding_box()
    assert script_state(page) == "notRunning"

    title = card.locator("summary").bounding_box()
    if not in_viewport(page, title):
        pytest.xfail(
            f"UI bug (ui/render.py): the card's title lands at y={title['y']:.0f}, above the "
            "window: the <span id=source-N> anchor is the first thing inside the card body. "
            "Fix: a scroll margin on the anchor (class 'rag-anchor', CSS `.rag-anchor "
            "{scroll-margin-top: 4rem}`; checked: the title then lands at y=9)."
        )


def test_opening_a_section_after_an_answer_keeps_its_title_in_view(page: Any) -> None:
    """The reader has read to the end of an answer and opens the retrieval details, then the
    prompt inspector: the page grows below each title clicked, and the title stays put.

    Was a UI bug: with st.chat_input at the top level Streamlit pinned the Ask page to its
    bottom (stAppScrollToBottomContainer), so the view followed the page's end as it grew and
    the section just opened had its title pushed above the window (card 1's title: 213 px ->
    -331 px at 1280x700). views/ask.py now puts the input in st.bottom.
    """
    page.set_viewport_size({"width": 1280, "height": 700})
    message = ask(page, QUESTION)
    assert page.get_by_test_id("stAppScrollToBottomContainer").count() == 0
    for label in ("检索详情", "提示词检查"):
        wheel_to_end(page)  # where the old pinned view took hold again
        section = expander(message, label)
        title = section.locator("summary")
        before = title.bounding_box()
        assert in_viewport(page, before), (label, before)
        title.click()
        section.get_by_test_id("stExpanderDetails").wait_for(state="visible")
        scrolling_stopped(page, 300)
        after = title.bounding_box()
        assert in_viewport(page, after) and abs(after["y"] - before["y"]) < 40, (before, after)


def test_a_new_question_is_brought_into_view(page: Any) -> None:
    """With the view no longer pinned to the page's end, the app itself scrolls a new question
    to the top of the window: the second question and the start of its answer are on screen."""
    page.set_viewport_size({"width": 1280, "height": 700})
    ask(page, QUESTION)
    ask(page, QUESTION_2)
    scrolling_stopped(page, 300)
    question = page.get_by_test_id("stChatMessage").nth(-2)
    assert QUESTION_2 in question.inner_text()
    box = question.bounding_box()
    assert box is not None and 40 <= box["y"] <= 120, box  # just under the header
    answer = last_assistant(page).bounding_box()
    assert answer is not None and answer["y"] < page.viewport_size["height"] - 200, answer


def test_prompt_inspector_shows_the_messages_and_token_table(page: Any) -> None:
    message = ask(page, QUESTION)
    inspector = expander(message, "提示词检查")
    inspector.locator("summary").click()
    body = inspector.get_by_test_id("stExpanderDetails")
    body.wait_for(state="visible")

    body.get_by_test_id("stMetricValue").last.wait_for()
    labels = body.get_by_test_id("stMetricLabel").all_inner_texts()
    assert labels[0] == "提示词" and any(x.startswith("合计（窗口") for x in labels), labels
    values = body.get_by_test_id("stMetricValue").all_inner_texts()
    assert all(re.fullmatch(r"[\d,]+", v) for v in values), values
    assert int(values[0].replace(",", "")) > 100  # the prompt's tokens

    table = body.get_by_test_id("stDataFrame")
    assert table.is_visible()
    # The grid is drawn on a canvas; its accessible twin (a hidden table) holds the text.
    table.locator('[role="gridcell"]').first.wait_for(state="attached")
    headers = table.locator('[role="columnheader"]').all_text_contents()
    assert {"部分", "tokens", "状态"} <= {h.strip() for h in headers}, headers
    cells = [c.strip() for c in table.locator('[role="gridcell"]').all_text_contents()]
    assert "系统提示" in cells and any("保留" in c for c in cells), cells[:20]
    assert body.get_by_test_id("stVegaLiteChart").is_visible()  # tokens by section

    tabs = body.get_by_test_id("stTab")
    expect(tabs).to_have_text(["1 · 系统", "2 · 用户"])
    tabs.nth(1).click()
    user = body.get_by_test_id("stTabPanel").nth(1).get_by_test_id("stCode")
    user.wait_for(state="visible")
    assert QUESTION in user.inner_text()
    assert "106.2" in user.inner_text()  # the table that answers it was sent


def test_deleting_a_document_removes_it(page: Any) -> None:
    goto_page(page, "文档库")
    create_kb(page, "删除测试")
    upload(page, [BROWSER_DATA / "huahong_content_list.json"], "删除测试")
    heading(page, "文档（1）").wait_for()
    main = main_area(page)
    assert main.get_by_text("华虹半导体2024年营业收入为20.04亿美元").first.is_visible()

    act(page, main.get_by_role("button", name="删除该文档").click)
    main.get_by_text("确定删除文档「huahong_content_list.json」").wait_for()
    act(page, main.get_by_role("button", name="确认删除").click)

    main.get_by_test_id("stAlertContentSuccess").filter(
        has_text="已删除文档「huahong_content_list.json」"
    ).wait_for()
    heading(page, "文档（0）").wait_for()
    assert main.get_by_text("这个知识库还没有文档。").is_visible()
    assert main.get_by_role("button", name="删除该文档").count() == 0
    assert main.get_by_text("华虹半导体2024年营业收入为20.04亿美元").count() == 0


def test_a_different_file_under_a_used_name_is_asked_about(page: Any, tmp_path: Path) -> None:
    """Nothing is silently written over: the second 华虹 report under the same file name is held
    back with two choices; keeping both lists two documents, replacing says so."""
    goto_page(page, "文档库")
    create_kb(page, "同名测试")
    upload(page, [BROWSER_DATA / "huahong_content_list.json"], "同名测试")
    heading(page, "文档（1）").wait_for()
    items = json.loads((BROWSER_DATA / "huahong_content_list.json").read_text(encoding="utf-8"))
    main = main_area(page)
    # the replace button names the document as the list does (its file's name)
    for version, choice in ((2, "两者都保留"), (3, "替换「huahong_content_list.json」")):
        newer = tmp_path / f"v{version}" / "huahong_content_list.json"
        newer.parent.mkdir()
        extra = {"type": "text", "text": f"第{version}版：2025年营业收入预计为2{version}亿美元。"}
        newer.write_text(json.dumps([*items, {**extra, "page_idx": 1}], ensure_ascii=False))
        while page.get_by_test_id("stFileChipDeleteBtn").count():  # the last upload's files
            act(page, page.get_by_test_id("stFileChipDeleteBtn").first.click)
        upload(page, [newer], "同名测试")
        assert "⚠️ 需要选择" in page.get_by_test_id("stProgress").first.inner_text()
        warning = main.get_by_test_id("stAlertContentWarning").filter(has_text="库中已有同名文档")
        assert warning.first.is_visible()
        act(page, main.get_by_role("button", name=choice).click, timeout=120_000)
        done = main.get_by_test_id("stAlertContentSuccess").filter(has_text="已导入")
        done.first.wait_for(timeout=120_000)
        text = done.first.inner_text()
        if version == 2:
            assert "另存为「huahong (2)」" in text, text
            heading(page, "文档（2）").wait_for()
            assert_listed_apart(page)
        else:
            assert "替换了旧版本" in text and "变化" in text, text
            heading(page, "文档（2）").wait_for()
        assert main.get_by_role("button", name=choice).count() == 0
    # the Ask page's document filter offers both, each under its own name (the replaced one
    # is now the newer)
    goto_page(page, "问答")
    offered = options_of(page, sidebar(page).get_by_test_id("stMultiSelect"))
    expect(offered).to_have_count(2)
    assert sorted(offered.all_inner_texts()) == sorted(KEPT_APART)
    page.keyboard.press("Escape")


KEPT_APART = ["huahong_content_list.json", "huahong (2)"]


def assert_listed_apart(page: Any) -> None:
    """The file kept beside the first one is listed, picked and confirmed under the name the
    user was told (it was a second "huahong_content_list.json" in each)."""
    main = main_area(page)
    assert document_names(page, 2) == KEPT_APART
    picker = main.get_by_test_id("stSelectbox").filter(has_text="选择文档")
    expect(options_of(page, picker)).to_have_text(KEPT_APART)
    act(page, page.get_by_role("option", name="huahong (2)", exact=True).click)
    act(page, main.get_by_role("button", name="删除该文档").click)
    main.get_by_text("确定删除文档「huahong (2)」").wait_for()
    act(page, main.get_by_role("button", name="取消").click)


def test_the_library_keeps_its_knowledge_base_across_a_reload(page: Any) -> None:
    """Was a bug: a knowledge base created on the Library page was not remembered as the
    user's choice (one picked in its selectbox was), so a reload showed 示例 and the uploads
    looked lost. Created or picked, it is still the chosen one after a reload."""
    goto_page(page, "文档库")
    current = main_area(page).get_by_test_id("stSelectbox").filter(has_text="当前知识库")
    for made in ("重载测试甲", "重载测试乙"):
        create_kb(page, made)
        page.reload()
        heading(page, "文档库").wait_for()
        wait_idle(page)
        expect(current.get_by_role("combobox")).to_have_value(made)
    choose(page, current, "重载测试甲")
    page.reload()
    heading(page, "文档库").wait_for()
    wait_idle(page)
    expect(current.get_by_role("combobox")).to_have_value("重载测试甲")
    heading(page, "文档（0）").wait_for()


def test_a_ticked_audit_record_stays_itself_when_a_filter_changes(
    page: Any, app_server: StreamlitServer
) -> None:
    """Was a bug: the records table's selection was a row position kept whatever rows the
    table held next. Filtered, the ticked position opened another record, or raised an
    IndexError past the list's end (the page, and the language control after it, gone); now
    the ticked record is kept by its id: hidden, nothing is open, shown again, it is open."""
    user = "审计勾选测试"
    write_audit_records(app_server.data_dir, user, TICK_QUESTIONS)  # 甲 乙 丙 丁 shown
    goto_page(page, "审计")
    main = main_area(page)
    who = page.locator(".st-key-audit_user input")
    who.fill(user)
    act(page, lambda: who.press("Enter"))
    table = main.get_by_test_id("stDataFrame").first
    main.get_by_text("4 条记录").wait_for()
    opened = main.locator("strong", has_text="勾选测试")
    tick_row(page, table, 1)
    expect(opened).to_have_text([TICKED])

    words = page.locator(".st-key-audit_words input")
    for shown, left in (("营业收入", 3), ("丁", 1)):  # 乙 filtered away: 甲 丙 丁, then 丁
        words.fill(shown)
        act(page, lambda: words.press("Enter"))
        main.get_by_text(f"{left} 条记录").wait_for()
        assert page.get_by_test_id("stException").count() == 0
        assert opened.count() == 0, opened.all_inner_texts()  # not 丙, in 乙's row
        heading(page, "审计日志").wait_for()
        expect(segment(page, "English")).to_be_visible()

    words.fill("")
    act(page, lambda: words.press("Enter"))
    main.get_by_text("4 条记录").wait_for()
    expect(opened).to_have_text([TICKED])  # ticked again, by its id
    assert page.get_by_test_id("stException").count() == 0


def test_an_asked_questions_audit_record_shows_its_answer_and_verdicts(page: Any) -> None:
    """Was: an opened audit record showed the question, an error box naming both languages, the
    hits and a raw timings line, not the answer or its citation check (issue 26). Asked through
    a provider nobody answers for, then opened on the Audit page, in Chinese and in English."""
    shots = Path(os.environ.get("SHOTS", str(ARTIFACTS)))
    shots.mkdir(parents=True, exist_ok=True)
    use_stub_llm(page, "http://127.0.0.1:9/v1")
    ask(page, QUESTION)
    goto_page(page, "审计")
    words = page.locator(".st-key-audit_words input")
    words.fill(QUESTION)
    act(page, lambda: words.press("Enter"))
    tick_row(page, main_area(page).get_by_test_id("stDataFrame").first, 0)  # the newest
    record = page.locator(".st-key-audit_record")
    error = record.get_by_test_id("stAlertContentWarning")
    for lang, said, failed, other in (
        ("zh", ("引用核查", "有来源支持", "检索"), "无法连接大模型服务", "Could not"),
        ("en", ("Citation check", "supported", "retrieve"), "Could not connect", "无法"),
    ):
        if lang == "en":
            act(page, segment(page, "English").click)
        expect(record.locator(".st-key-answer_audit")).to_contain_text(
            "[来源" if lang == "zh" else "[Source"
        )
        expect(record).to_contain_text(said[0])
        verdicts = record.locator(".rag-quote")
        expect(verdicts.first).to_contain_text("[来源" if lang == "zh" else "[Source")
        assert all(q.startswith(("✅", "⚠️")) for q in verdicts.all_inner_texts())
        text = record.inner_text()
        assert all(w in text for w in said) and "_ms" not in text, (lang, text)
        assert failed in error.inner_text() and other not in error.inner_text()
        record.scroll_into_view_if_needed()
        page.screenshot(path=str(shots / f"audit_record_{lang}.png"), full_page=True)
    assert page.get_by_test_id("stException").count() == 0


def test_hostile_files_each_get_their_result_row_and_the_canary_stays(
    page: Any, tmp_path: Path
) -> None:
    """Files from the hostile catalogue (tests/ingest/hostile_files.py), two of each kind, and a
    canary, uploaded at once: a row per file with its outcome, the reason of every rejection, no
    exception on the page, and the canary listed and whole afterwards."""
    from tests.ingest.hostile_files import hostile_bytes

    chosen, kinds = [], {}
    for case, data in hostile_bytes():
        small = 0 < len(data) < 60_000 and case.name.lower().endswith(UPLOAD_SUFFIXES)
        if case.kind == "canary" or (small and kinds.get(case.kind, 0) < 2 and case.on_disk):
            kinds[case.kind] = kinds.get(case.kind, 0) + 1
            chosen.append((case, data))
    chosen = [c for c in chosen if c[0].kind != "canary"] + [
        c for c in chosen if c[0].kind == "canary"
    ][:1]
    paths = []
    for case, data in chosen:
        path = tmp_path / case.name
        path.write_bytes(data)
        paths.append(path)
    goto_page(page, "文档库")
    create_kb(page, "恶意批次")
    upload(page, paths, "恶意批次")
    main = main_area(page)
    expect(page.get_by_test_id("stProgress")).to_have_count(len(chosen))
    bars = page.get_by_test_id("stProgress").all_inner_texts()
    for (case, _), bar in zip(chosen, bars, strict=True):
        if case.expect == "rejected":
            assert "❌ 未导入" in bar, (case.name, bar)
        elif case.expect in ("ingested", "warned"):
            assert "✅ 已导入" in bar or "ℹ️" in bar, (case.name, bar)
    # every rejection says why, in the UI's language (the core's English, with its fragments,
    # is checked in tests/ingest/test_hostile.py)
    errors = "\n".join(main.get_by_test_id("stAlertContentError").all_inner_texts())
    for case, _ in chosen:
        if case.expect == "rejected":
            assert re.search(rf"{re.escape(case.name)}：未导入，\S", errors), (case.name, errors)
    assert page.get_by_test_id("stException").count() == 0
    canary = chosen[-1][0]
    assert canary.kind == "canary"
    successes = main.get_by_test_id("stAlertContentSuccess").all_inner_texts()
    assert any(f"{canary.name}：已导入" in text for text in successes), successes
    listed = sum("✅ 已导入" in bar for bar in bars)
    heading(page, f"文档（{listed}）").wait_for()


def test_a_company_the_library_does_not_hold_is_said_so_without_a_tick(page: Any) -> None:
    message = ask(page, "宁德时代2025年的营业收入预测是多少？")
    text = message.locator(".st-key-answer_latest").inner_text()
    assert "库中没有宁德时代的报告" in text and "现有：中芯国际" in text, text[:300]
    assert "[来源" not in text  # nothing quoted in its place ...
    assert message.get_by_text("引用核查").count() == 0  # ... so no check and no ✅ on it
    assert "✅ 引用核查" not in message.inner_text()


def test_a_metric_the_report_names_but_gives_no_value_for_is_declined(page: Any) -> None:
    # issue 24: 研发 is written in two risk sentences ("先进制程研发投入大") that give no figure;
    # they were quoted and ticked "on the question". Now the library says it does not hold it.
    message = ask(page, "中芯国际2024年的研发费用是多少？")
    text = message.locator(".st-key-answer_latest").inner_text()
    assert "库中报告没有「研发费用」" in text and "毛利率" in text, text[:300]
    assert "[来源" not in text and "✅ 引用核查" not in message.inner_text()


def test_a_company_only_ranked_is_said_to_be_only_mentioned(page: Any) -> None:
    # issue 24: 华虹集团 is a row of 表3's ranking, not a report's subject: its revenue is there,
    # its chairman is not
    message = ask(page, "华虹集团的董事长是谁？")
    text = message.locator(".st-key-answer_latest").inner_text()
    assert "华虹集团" in text and "表3" in text and "只在" in text, text[:300]
    assert "[来源" not in text


def test_a_comparison_follow_up_asks_for_both_companies(page: Any) -> None:
    # issue 24: "和华虹比呢？" was read as a company named 和华虹比 and declined; 表3 ranks 华虹
    ask(page, "中芯国际2024年的产能是多少？")
    message = ask(page, "和华虹比呢？")
    shown = message.inner_text()
    understood = next(line for line in shown.splitlines() if "理解为" in line)
    assert "中芯国际" in understood and "华虹" in understood and "产能" in understood, understood
    # 中芯国际's capacity answered and quoted; 华虹 said to be only ranked, its capacity not given
    text = message.locator(".st-key-answer_latest").inner_text()
    assert "和华虹比" not in text and "[来源" in text, text[:300]
    assert "华虹集团" in text and "只在" in text and "表3" in text, text[:300]


def test_a_figure_question_is_answered_with_the_trend_the_figure_states(page: Any) -> None:
    message = ask(page, "图3显示的季度营收趋势如何？")
    text = message.locator(".st-key-answer_latest").inner_text()
    first = next(line for line in text.splitlines() if "[来源" in line)
    # the figure named by its caption, then the sentence saying which way revenue went; the
    # sentence on how the chart is drawn (axes, units) answers nothing and is not quoted
    assert "图3" in first and "单季最高" in first, text[:400]
    assert "左轴" not in text and "右轴" not in text, text[:400]


def test_figure_2_is_answered_from_the_paragraph_discussing_it(page: Any) -> None:
    # issue 24: 图2 has no description; the paragraph before it states the trend. The ranking
    # table's row "排名: 2" shares only the number 2 and is not quoted.
    message = ask(page, "图2是什么走势？")
    text = message.locator(".st-key-answer_latest").inner_text()
    first = next(line for line in text.splitlines() if "[来源" in line)
    assert "图2" in first and "回升" in text, text[:400]
    assert "三星" not in text, text[:400]


def test_an_english_question_gets_the_value_first(page: Any) -> None:
    # issue 24: the value line in the question's language, SMIC presumed the one company in view
    message = ask(page, "What was SMIC's gross margin in 2024?")
    text = message.locator(".st-key-answer_latest").inner_text()
    assert "中芯国际 2024A gross margin (毛利率): 18.6%" in text, text[:400]
    # SMIC, which the report never writes, is said to be presumed the one company it covers
    assert "do not mention SMIC" in text and "the one company they cover" in text, text[:400]


def test_figure_3_is_the_figure_numbered_3(page: Any) -> None:
    # issue 24: not the table rows holding a 3 (序号: 3, 排名: 3)
    message = ask(page, "What does Figure 3 show?")
    text = message.locator(".st-key-answer_latest").inner_text()
    first = next(line for line in text.splitlines() if "[来源" in line)
    assert "图3" in first and "单季最高" in first, text[:400]
    assert "序号" not in text and "排名" not in text, text[:400]


def test_a_page_opened_by_its_address_is_the_app_around_it(
    browser: Any, app_server: StreamlitServer
) -> None:
    """A bookmarked /library or /audit opens that page inside the app: its navigation, its
    sidebar, its labels (a pages/ folder would have Streamlit serve the file on its own)."""
    fresh = new_page(browser)
    try:
        for path, title in (
            ("library", "文档库"),
            ("audit", "审计日志"),
            ("compare", "智能 vs 混合"),
        ):
            open_app(fresh, f"{app_server.url}/{path}")
            heading(fresh, title).wait_for()
            # drawn after the heading can be: waited for, not read at once (was ('library', []))
            expect(navigation(fresh).get_by_role("link")).to_have_count(6)
            assert fresh.get_by_test_id("stSidebarNav").count() == 0
    finally:
        fresh.close()


def test_english_switch_relabels_every_page(page: Any) -> None:
    act(page, segment(page, "English").click)
    heading(page, "Ask the reports").wait_for()
    links = navigation(page).get_by_role("link")
    expect(links).to_have_text(
        [
            re.compile(rf"\b{x}$")
            for x in ("Ask", "Compare", "Library", "Evaluate", "Audit", "Settings")
        ]
    )
    side = sidebar(page).inner_text()
    for label in ("Knowledge base", "Retrieval mode", "Prompt mode", "Smart", "Hybrid"):
        assert label in side, label
    for label in ("知识库", "检索模式", "提示词模式"):
        assert label not in side, label
    placeholder = page.get_by_test_id("stChatInputTextArea").get_attribute("placeholder")
    assert placeholder.startswith("Ask a question")
    assert page.get_by_text("Example questions").is_visible()

    # The language survives a page change. A page's heading can be drawn before the rest of
    # it, so each label is waited for (and fails the test if it never shows in English).
    goto_page(page, "Library")
    heading(page, "Library").wait_for()
    main = main_area(page)
    main.get_by_role("button", name="Create").wait_for()
    main.get_by_text("Choose files (several at once)").wait_for()
    main.get_by_text("Preview and delete").wait_for()
    goto_page(page, "Settings")
    heading(page, "Settings").wait_for()
    main.get_by_text("Language model provider").wait_for()
    goto_page(page, "Compare")
    heading(page, "Smart vs hybrid").wait_for()
    main.get_by_role("button", name="Compare").wait_for()


def grid_rows(table: Any) -> tuple[list[str], list[list[str]]]:
    """An st.dataframe's headers and rows, read from the grid's accessible twin (which holds
    the columns in view: a wide table is read scrolled to its left, then to its right end)."""
    table.locator('[role="gridcell"]').first.wait_for(state="attached")
    columns: dict[str, list[str]] = {}
    scroller = table.locator(".dvn-scroller").first
    for left in ("0", "e.scrollWidth"):
        scroller.evaluate(f"(e) => {{ e.scrollLeft = {left}; }}")
        time.sleep(0.3)  # the twin follows the canvas
        headers = [h.strip() for h in table.locator('[role="columnheader"]').all_text_contents()]
        rows = table.locator('[role="row"]:has([role="gridcell"])').all()
        cells = [
            [c.strip() for c in r.locator('[role="gridcell"]').all_text_contents()] for r in rows
        ]
        for i, header in enumerate(headers):
            columns.setdefault(header, [row[i] if i < len(row) else "" for row in cells])
    headers = list(columns)
    return headers, [list(row) for row in zip(*columns.values(), strict=False)]


def test_an_english_example_reads_in_english_in_its_details(page: Any) -> None:
    """Issue 26, in the English UI at 1280 px: the three prompt modes sit on one line of the
    sidebar; an English example asked, the retrieval details and the prompt inspector show no
    Chinese label (the documents' own words, titles and names, aside)."""
    shots = Path("/tmp/h26_ask")
    shots.mkdir(parents=True, exist_ok=True)
    page.set_viewport_size({"width": 1280, "height": 900})
    act(page, segment(page, "English").click)
    boxes = [segment(page, m).bounding_box() for m in ("Simple", "Advanced", "Precise")]
    assert len({round(b["y"]) for b in boxes}) == 1, boxes  # one line
    assert all(b["height"] < 48 for b in boxes), boxes  # each label on one line
    sidebar(page).screenshot(path=str(shots / "sidebar_modes_en_1280.png"))

    cjk = re.compile(r"[\u4e00-\u9fff]")
    question = "What was SMIC's revenue in 2024?"
    before = mark(page)
    act(page, main_area(page).get_by_role("button", name=question).click)
    message = last_assistant(page)
    expander(message, "Prompt inspector").wait_for(timeout=120_000)
    wait_idle(page, before)

    details = expander(message, "Retrieval details")
    details.locator("summary").click()
    body = details.get_by_test_id("stExpanderDetails")
    body.wait_for(state="visible")
    words = body.get_by_test_id("stCaptionContainer").all_inner_texts()
    words += body.get_by_test_id("stMarkdownContainer").all_inner_texts()
    # the synonyms the question's words were expanded with are the library's own words
    words = [re.sub(r"Expanded terms: [^\n]*", "", w) for w in words]
    assert not [w for w in words if cjk.search(w)], words
    document_text = {"Document", "Content"}  # the documents' names and titles, as written
    tabs = body.get_by_test_id("stTab")
    assert not [label for label in tabs.all_inner_texts() if cjk.search(label)]
    for n in range(tabs.count()):
        tabs.nth(n).click()
        panel = body.get_by_test_id("stTabPanel").nth(n)
        table = panel.get_by_test_id("stDataFrame")
        if table.count() == 0:
            continue
        headers, rows = grid_rows(table)
        assert not [h for h in headers if cjk.search(h)], headers
        for row in rows:
            said = [c for h, c in zip(headers, row, strict=False) if h not in document_text]
            assert not [c for c in said if cjk.search(c)], (headers, row)
    body.screenshot(path=str(shots / "retrieval_details_en_1280.png"))

    inspector = expander(message, "Prompt inspector")
    inspector.locator("summary").click()
    body = inspector.get_by_test_id("stExpanderDetails")
    body.wait_for(state="visible")
    body.get_by_test_id("stVegaLiteChart").wait_for()
    labels = body.get_by_test_id("stMetricLabel").all_inner_texts()
    assert labels and not [x for x in labels if cjk.search(x)], labels
    headers, rows = grid_rows(body.get_by_test_id("stDataFrame"))
    assert "Section" in headers and "Chunk ID" in headers, headers
    for row in rows:
        section = row[headers.index("Section")]
        assert "来源" not in section and not section.startswith("source "), section
        if not section.startswith(("[Source ", "✗")):  # a source's title is the document's
            assert not cjk.search(section), section
        said = [c for h, c in zip(headers, row, strict=False) if h != "Section"]
        assert not [c for c in said if cjk.search(c)], (headers, row)
    expect(body.get_by_test_id("stTab")).to_have_text(["1 · system", "2 · user"])
    chart = body.get_by_test_id("stVegaLiteChart")
    chart.scroll_into_view_if_needed()
    time.sleep(1)  # the chart's drawing settles
    chart.screenshot(path=str(shots / "budget_chart_en_1280.png"))
    box = chart.bounding_box()  # the third bar (the first source), hovered: its tooltip
    page.mouse.move(box["x"] + box["width"] * 0.45, box["y"] + 2.5 * box["height"] / 22)
    time.sleep(1)
    page.screenshot(path=str(shots / "budget_chart_tooltip_en_1280.png"))
    table = body.get_by_test_id("stDataFrame")
    table.scroll_into_view_if_needed()
    table.locator(".dvn-scroller").first.evaluate("(e) => { e.scrollLeft = 0; }")
    time.sleep(0.5)
    table.screenshot(path=str(shots / "sections_table_en_1280.png"))


def test_library_labels_fit_their_buttons_at_1280_px_in_english(page: Any) -> None:
    """No button or link label on the Library page is cut short ("Delete this do…" was, in a
    narrow third column), nor in its delete confirmation."""
    page.set_viewport_size({"width": 1280, "height": 800})
    act(page, segment(page, "English").click)
    goto_page(page, "Library")
    main = main_area(page)
    delete = main.get_by_role("button", name="Delete this document")
    assert delete.is_visible()
    assert cut_labels(page) == []
    act(page, delete.click)
    cancel = main.get_by_role("button", name="Cancel")
    assert main.get_by_role("button", name="Delete", exact=True).is_visible()
    assert cut_labels(page) == []
    act(page, cancel.click)


def test_document_text_is_shown_as_written(page: Any, tmp_path: Path) -> None:
    """Underscores and stars in a document are its text, not Markdown: the offline answer
    quoting it, the citation check and the source card show ``__init__`` and ``**粗体**`` as
    written (they came out as bold "init" and "粗体", and the quotes as "SMIC2024Q1"), and the
    citation is still a link."""
    path = tmp_path / "underscore_content_list.json"
    path.write_text(json.dumps(UNDERSCORE_DOC, ensure_ascii=False), encoding="utf-8")
    goto_page(page, "文档库")
    create_kb(page, "下划线")
    upload(page, [path], "下划线")
    main_area(page).locator(".rag-src", has_text=UNDERSCORE_SENTENCE).first.wait_for()

    goto_page(page, "问答")
    message = ask(page, "SMIC__2024__Q1 的营业收入是多少？")
    answer = message.locator(".st-key-answer_latest")
    assert UNDERSCORE_SENTENCE in answer.inner_text(), answer.inner_text()
    assert answer.locator("strong, em").count() == 0
    assert answer.locator('a[href="#source-1"]').count() >= 1
    check = expander(message, "引用核查")
    check.locator("summary").click()
    assert UNDERSCORE_SENTENCE in check.get_by_test_id("stExpanderDetails").inner_text()
    card = open_card(page, message, 1)
    body = card.get_by_test_id("stExpanderDetails").inner_text()
    assert body.count(UNDERSCORE_SENTENCE) == 2, body  # quoted under "cited by", and in full


def test_a_restart_shows_only_the_apps_navigation_and_says_when_the_model_loads(
    browser: Any, app_server: StreamlitServer, tmp_path: Path
) -> None:
    """A restart on an existing library (nothing to import): from the first paint the sidebar
    shows only the app's navigation (Streamlit's own list of the pages/ files, "app ask
    compare...", flashed first), and the first question, asked while the embedding model is
    still loading in the background (about ten seconds), says so while it waits."""
    data = tmp_path / "data"
    shutil.copytree(app_server.data_dir, data)
    with StreamlitServer(
        data, cache_dir=REAL_CACHE_DIR, log_path=tmp_path / "server.log"
    ) as server:
        fresh = new_page(browser)
        try:
            open_app(fresh, server.url)
            # The last knowledge base chosen is remembered across a restart (an earlier test
            # may have created another): the sample's is picked for its question.
            kb_box = sidebar(fresh).get_by_test_id("stSelectbox").filter(has_text="知识库")
            kb_box.wait_for()
            if "示例" not in kb_box.inner_text():
                choose(fresh, kb_box, "示例")
            box = fresh.get_by_test_id("stChatInputTextArea")
            box.fill(QUESTION)
            before = mark(fresh)
            box.press("Enter")
            # The model loads in the background from the first run (about a second with the
            # ONNX encoder, issue 15), so the question seldom waits; when it does, it says so.
            notice = fresh.get_by_text("正在加载嵌入模型")
            message = last_assistant(fresh)
            expander(message, "提示词检查").wait_for(timeout=120_000)
            wait_idle(fresh, before)
            assert notice.count() == 0
            assert "106.2" in message.inner_text()
            shown = recorder(fresh)["nav"]
            assert shown and all(native == "" for _, native, _ in shown), shown
            assert all(name in shown[-1][2] for name in ("问答", "对比", "文档库", "设置")), shown
        except Exception:
            print(server.log())
            raise
        finally:
            fresh.context.close()


def test_hostile_document_stays_inert(page: Any) -> None:
    goto_page(page, "文档库")
    create_kb(page, "恶意文档")
    upload(page, [BROWSER_DATA / "hostile_content_list.json"], "恶意文档")
    main = main_area(page)
    main.get_by_test_id("stAlertContentSuccess").filter(has_text="已导入").wait_for()

    # The preview: the text shows its markup as text, the table is a table.
    main.get_by_text("<script>window.__pwned=1</script>").first.wait_for()
    table = main.locator(".rag-table table").first
    assert table.is_visible()
    assert table.locator("tr").count() == 3
    # its first row drawn as its header
    cells = [c.strip() for c in table.locator("th, td").all_inner_texts()]
    assert cells[:6] == ["季度", "2024Q1", "2024Q2", "2024Q3", "2024Q4", "营业收入"], cells
    assert {"4.2", "4.6", "4.9", "5.1"} <= set(cells), cells
    assert_inert(page)

    # Ask about it: the table comes back as a source card, still inert.
    goto_page(page, "问答")
    message = ask(page, HOSTILE_QUESTION)
    assert_inert(page)
    cards = message.get_by_test_id("stExpander").filter(
        has=page.locator("summary", has_text="[来源")
    )
    table_card = cards.filter(has=page.locator("summary", has_text="表格")).first
    table_card.locator("summary").click()
    card_table = table_card.locator(".rag-table table")
    card_table.wait_for(state="visible")
    assert card_table.locator("tr").count() == 3
    for link in message.locator(".st-key-answer_latest a").all():  # only citations are links
        assert (link.get_attribute("href") or "").startswith("#source-")
    # Hover and click the cells that carried handlers; nothing may fire.
    for cell in card_table.locator("td").all()[-9:]:
        cell.click()
    assert_inert(page)


def test_hostile_model_answer_stays_inert(page: Any, stub: OpenAIStubServer) -> None:
    """What a model writes is rendered as Markdown with HTML escaped: no script, no handler,
    no javascript: link, and a citation of a source that does not exist is not a link."""
    stub.set_default(Reply(text=STUB_HOSTILE))
    use_stub_llm(page, stub.base_url)
    message = ask(page, QUESTION)
    answer = message.locator(".st-key-answer_latest")
    text = answer.inner_text()
    assert '<img src=x onerror="window.__pwned=10">' in text  # shown as text
    assert "<script>window.__pwned=11</script>" in text
    hrefs = [a.get_attribute("href") or "" for a in answer.locator("a").all()]
    assert "#source-1" in hrefs and "#source-99" not in hrefs, hrefs
    assert not [h for h in hrefs if not h.startswith("#")], hrefs
    for link in answer.locator("a", has_text="季度表").all():  # if drawn as a link, click it
        link.click()
    assert_inert(page)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_screenshots_of_every_page(page: Any, lang: str) -> None:
    """docs/screenshots/{ask,compare,library,settings}_{lang}.png at 1400x1000."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    en = lang == "en"
    if en:
        act(page, segment(page, "English").click)
    message = ask(page, QUESTION_EN if en else QUESTION)
    # The question, the answer and the card of its first citation, opened.
    # the first citation (a traced number's link goes to a cell of a card: #source-4-cell-2-3)
    links = message.locator('.st-key-answer_latest a[href^="#source-"]').all()
    first = next(
        h for a in links if re.fullmatch(r"#source-\d+", h := a.get_attribute("href") or "")
    )
    open_card(page, message, int(first.rsplit("-", 1)[1]))
    question = page.get_by_test_id("stChatMessage").nth(-2)
    wheel_to(page, question, 140)
    shots = {"ask": page.screenshot(path=str(SCREENSHOTS / f"ask_{lang}.png"))}

    goto_page(page, "Compare" if en else "对比")
    # a question smart prefers tables for: the page says what moved, and why
    page.get_by_role("textbox", name="Question" if en else "问题").fill(
        "Show table 6, SMIC's fab list" if en else "请给出表6 产线一览表"
    )
    act(
        page,
        main_area(page).get_by_role("button", name="Compare" if en else "对比").click,
        timeout=120_000,
    )
    main_area(page).get_by_text("hits found by both modes" if en else "两种模式共同命中").wait_for()
    summary = main_area(page).get_by_text("Smart preferred" if en else "智能模式优先表格")
    expect(summary).to_contain_text("places changed" if en else "处排名变化")
    shots["compare"] = page.screenshot(path=str(SCREENSHOTS / f"compare_{lang}.png"))

    goto_page(page, "Library" if en else "文档库")
    main_area(page).get_by_test_id("stDataFrame").first.wait_for()
    shots["library"] = page.screenshot(path=str(SCREENSHOTS / f"library_{lang}.png"))

    goto_page(page, "Settings" if en else "设置")
    heading(page, "Settings" if en else "设置").wait_for()
    shots["settings"] = page.screenshot(path=str(SCREENSHOTS / f"settings_{lang}.png"))

    for name, data in shots.items():
        assert data[:8] == b"\x89PNG\r\n\x1a\n"
        assert len(data) < 400_000, f"{name}_{lang}.png is {len(data)} bytes"
