"""Issue 26's last items in a real browser, in zh and en: the answer's citation drawn in the UI's
language (来源 N), 表6's "12英寸" drawn once over its nine rows and marked once, a restored card
(after a reload) with the 章节 line, ✂️ note and "cited by" block of the live one, and a model's
failure worded without its exception's class.

Run: ``.venv/bin/python -m pytest tests/ui/test_demo_polish_browser.py -q -m browser``.
Screenshots go to ``test-artifacts/browser/`` (or ``RAG_APP_SHOTS``, a folder).
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
    goto_page,
    last_assistant,
    new_page,
    open_app,
    sample_server,
    wait_idle,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]
pytest.importorskip("playwright.sync_api")

SHOTS = Path(os.environ.get("RAG_APP_SHOTS") or REPO_ROOT / "test-artifacts" / "browser")
QUESTION = "中芯京城的规划产能和当前产能是多少？"
# Each cell of 表6's second column below its header: text, rowspan, marked.
SIZES_JS = """(table) => [...table.querySelectorAll('tr')].slice(2).flatMap((tr) =>
  [...tr.children].filter((c) => c.textContent.trim().endsWith('英寸') && c.cellIndex === 1)
    .map((c) => [c.textContent.trim(), c.rowSpan, c.classList.contains('rag-hit')]))"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StreamlitServer]:
    yield from sample_server(tmp_path_factory, "demo-polish-browser")


def _fab_card(message: Any, word: str) -> tuple[Any, Any]:
    card = expander(message, "表6：中芯国际产线一览")
    card.locator("summary").click()
    body = card.get_by_test_id("stExpanderDetails")
    body.wait_for(state="visible")
    assert f"[{word} " in card.locator("summary").inner_text()
    return card, body


def test_citations_the_fab_table_a_restored_card_and_an_error_read_well(
    browser: Any, server: StreamlitServer, lang: str
) -> None:
    zh = lang == "zh"
    word = "来源" if zh else "Source"
    page = new_page(browser)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        open_app(page, server.url)  # the sample is in 示例 already (sample_data)
        page.get_by_text("💡").wait_for(timeout=240_000)
        if not zh:
            sidebar = page.get_by_test_id("stSidebar")
            act(page, sidebar.get_by_role("radio", name="English", exact=True).click)
        message = ask(page, QUESTION, timeout=180_000, idle=180_000)
        answer = message.locator(".st-key-answer_latest")
        # every link naming a source says so in the page's language (the others are the
        # traced numbers', opening their cells)
        links = [
            t for t in answer.locator("a[href*='source-']").all_inner_texts() if t.startswith("[")
        ]
        assert links and all(text.startswith(f"[{word} ") for text in links), links
        assert ("[Source" not in answer.inner_text()) == zh

        card, body = _fab_card(message, word)
        table = body.locator(".rag-table table")
        assert table.evaluate(SIZES_JS) == [["8英寸", 3, False], ["12英寸", 9, True]]
        assert table.locator("td.rag-hit", has_text="中芯西青").count() == 0
        assert table.locator("td.rag-hit").filter(has_text="12").all_inner_texts() == ["12英寸"]
        live = body.inner_text()
        SHOTS.mkdir(parents=True, exist_ok=True)
        card.screenshot(path=str(SHOTS / f"fab_card_{lang}.png"))

        # after a reload: the restored card draws as the live one did
        page.reload()
        page.get_by_test_id("stChatMessage").first.wait_for(timeout=60_000)
        wait_idle(page)
        card, body = _fab_card(last_assistant(page), word)
        assert body.inner_text() == live
        assert ("章节：" if zh else "Section: ") in live
        assert ("引用它的句子" if zh else "Cited by") in live
        card.screenshot(path=str(SHOTS / f"fab_card_restored_{lang}.png"))

        # a provider nobody answers: the failure in words, its exception's class in the log
        goto_page(page, "设置" if zh else "Settings")
        page.get_by_role("textbox", name="Base URL").fill("http://127.0.0.1:9/v1")
        page.get_by_role("textbox", name="模型名称" if zh else "Model").fill("nobody")
        act(page, page.get_by_role("button", name="保存" if zh else "Save").click)
        goto_page(page, "问答" if zh else "Ask")
        failed = ask(page, QUESTION, timeout=180_000, idle=180_000)
        warning = failed.get_by_test_id("stAlertContentWarning").first.inner_text()
        assert ("无法连接大模型服务" if zh else "Could not connect") in warning, warning
        assert "Error" not in warning and "ConnectError" not in failed.inner_text(), warning
        assert not errors, errors
    finally:
        page.context.close()
