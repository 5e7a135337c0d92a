"""A traced number opens its cell (issue 25 item 3): in a real browser, on the bundled sample,
offline, a table question's answer links each number the citation check traced; clicking
57,796 opens 表1's card with that cell marked (the cell itself, not its row), without a rerun;
a computed number marks both its operands; the same works on the turn restored after a reload,
and in English.

Run: ``.venv/bin/python -m pytest tests/ui/test_traced_browser.py -q -m browser``. Screenshots
go to ``RAG_APP_SHOTS`` (a folder), else ``test-artifacts/browser/``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.ui.browser_support import (
    REPO_ROOT,
    StreamlitServer,
    act,
    ask,
    expander,
    expect,
    last_assistant,
    new_page,
    open_app,
    sample_server,
    wait_idle,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]
pytest.importorskip("playwright.sync_api")

QUESTION = "中芯国际2024年的营业收入是多少？"
CHANGE = "中芯国际2024年营业收入比2023年增加了多少百万元？"
SHOTS = Path(os.environ.get("RAG_APP_SHOTS") or REPO_ROOT / "test-artifacts" / "browser")
MARKED = "rgb(255, 216, 168)"  # ui/render.py: a traced place once its link is followed
# The elements of the page the browser marks as targets (:target, or a computed number's
# operands while its anchor is the target), with their text and background.
MARKED_JS = f"""() => [...document.querySelectorAll('td, th, span.rag-at')]
  .filter((e) => getComputedStyle(e).backgroundColor === '{MARKED}')
  .map((e) => [e.tagName, e.textContent.trim()])"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StreamlitServer]:
    yield from sample_server(tmp_path_factory, "traced-browser")


def _script_state(page: Any) -> str:
    return page.get_by_test_id("stApp").get_attribute("data-test-script-state") or ""


def _click_number(page: Any, message: Any, number: str, card_title: str, shot: str) -> Any:
    """Click the answer's link on ``number``; the card titled ``card_title`` opens with the
    cell marked. Returns the card."""
    link = message.locator('[class*="st-key-answer_"] a[href*="-cell-"]', has_text=number).first
    href = link.get_attribute("href") or ""
    card = expander(message, card_title)
    link.click()
    body = card.get_by_test_id("stExpanderDetails")
    body.wait_for(state="visible")
    target = page.locator(f"#{href[1:]}")
    expect(target).to_be_visible()
    page.wait_for_timeout(400)  # the scroll settles
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / shot))
    assert page.url.endswith(href), (page.url, href)
    assert target.evaluate("(e) => e.tagName") == "TD"
    assert target.inner_text().strip() == number
    assert target.evaluate("(e) => getComputedStyle(e).backgroundColor") == MARKED
    assert page.evaluate(MARKED_JS) == [["TD", number]]  # the cell alone, not its row
    assert body.locator(f"#{href[1:]}").count() == 1  # in this card
    assert _script_state(page) == "notRunning"  # an anchor: no rerun
    return card


def test_a_traced_number_opens_its_cell_highlighted(browser: Any, server: StreamlitServer) -> None:
    page = new_page(browser)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        open_app(page, server.url)  # the sample is in 示例 already (sample_data)
        page.get_by_text("💡").wait_for(timeout=240_000)
        message = ask(page, QUESTION, timeout=180_000, idle=180_000)
        answer = message.locator('[class*="st-key-answer_"]')
        assert "57,796" in answer.inner_text()
        SHOTS.mkdir(parents=True, exist_ok=True)
        answer.screenshot(path=str(SHOTS / "traced_answer_zh.png"))
        # every traced number is a link; the ones on 表1's 营业收入 row lead to its cells
        links = answer.locator('a[href*="-cell-"]')
        assert links.count() >= 5, links.all_inner_texts()
        check = expander(message, "引用核查")
        assert "点击数字" in (check.text_content() or "")
        _click_number(page, message, "57,796", "表1：盈利预测与估值", "traced_cell_zh.png")
        card = expander(message, "表1：盈利预测与估值")
        card.screenshot(path=str(SHOTS / "traced_card_zh.png"))

        # a computed number: its link marks both operands' cells in 表1
        message = ask(page, CHANGE, timeout=180_000, idle=180_000)
        answer = message.locator('[class*="st-key-answer_"]')
        computed = answer.locator('a[href*="-calc-"]', has_text="12546")
        assert computed.count() == 1, answer.inner_html()
        title = computed.get_attribute("title") or ""
        assert "57796 - 45250 = 12546" in title, title
        computed.click()
        expander(message, "表1：盈利预测与估值").get_by_test_id("stExpanderDetails").wait_for(
            state="visible"
        )
        page.wait_for_timeout(400)
        page.screenshot(path=str(SHOTS / "traced_computed_zh.png"))
        assert sorted(page.evaluate(MARKED_JS)) == [["TD", "45,250"], ["TD", "57,796"]]

        # the turn restored after a reload links its numbers alike
        url = page.url.split("#")[0]
        open_app(page, url)
        wait_idle(page)
        expect(page.get_by_test_id("stChatMessage")).to_have_count(4)
        restored = page.get_by_test_id("stChatMessage").nth(1)
        _click_number(page, restored, "57,796", "表1：盈利预测与估值", "traced_restored_zh.png")

        # and in English
        sidebar = page.get_by_test_id("stSidebar")
        act(page, sidebar.get_by_role("radio", name="English", exact=True).click)
        message = last_assistant(page)
        card = _click_number(page, message, "57,796", "表1：盈利预测与估值", "traced_cell_en.png")
        link = message.locator('[class*="st-key-answer_"] a[href*="-cell-"]', has_text="57,796")
        title = link.first.get_attribute("title") or ""
        assert title.startswith("Source ") and "2024A: 57,796" in title, title
        card.screenshot(path=str(SHOTS / "traced_card_en.png"))
        assert not errors, errors
    finally:
        page.context.close()
