"""Feedback in a real browser (issue 27): a 👎 with a note under an answer appears on the Audit
page, filtered by it, and is exported as an evaluation row `rag-app eval` reads.

Run: ``.venv/bin/python -m pytest tests/ui/test_feedback_browser.py -q -m browser``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.ui.browser_support import (
    REPO_ROOT,
    StreamlitServer,
    ask,
    goto_page,
    mark,
    new_page,
    open_app,
    sample_server,
    wait_idle,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]
pytest.importorskip("playwright.sync_api")

QUESTION = "中芯国际2024年的毛利率是多少？"
NOTE = "应引用2024A列"
SHOTS = Path(os.environ.get("RAG_APP_SHOTS") or REPO_ROOT / "test-artifacts" / "browser")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StreamlitServer]:
    yield from sample_server(tmp_path_factory, "feedback-browser")


def test_a_thumbs_down_with_a_note_reaches_the_audit_page_and_the_evaluation_rows(
    browser: Any, server: StreamlitServer, tmp_path: Path
) -> None:
    page = new_page(browser)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        open_app(page, server.url)
        page.get_by_text("💡").wait_for(timeout=240_000)
        message = ask(page, QUESTION, timeout=180_000, idle=180_000)

        thumbs = message.get_by_test_id("stFeedback").locator("button")
        before = mark(page)
        thumbs.nth(1).click()  # 👎
        wait_idle(page, before, timeout=60_000)
        note = message.get_by_placeholder("哪里不对？应该是什么？（可选）")
        note.fill(NOTE)
        before = mark(page)
        note.press("Enter")
        wait_idle(page, before, timeout=60_000)
        message.get_by_text("已记录反馈").wait_for(timeout=30_000)

        goto_page(page, "审计")
        page.get_by_text("导出 1 条反馈为评测题").wait_for(timeout=60_000)
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / "feedback_audit.png"), full_page=True)
        with page.expect_download() as download:
            page.get_by_text("导出 1 条反馈为评测题").click()
        path = tmp_path / "rows.jsonl"
        download.value.save_as(str(path))
        (row,) = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        assert row["question"] == QUESTION and row["rating"] == "down" and row["answer"] == NOTE

        # ... and on the Evaluate page, in one click, a question set to run
        goto_page(page, "评测")
        button = page.get_by_role("button", name="由已评价的回答生成（1 条）")
        button.wait_for()  # the "add a set" expander is open while there is no set
        before = mark(page)
        button.click()
        wait_idle(page, before, timeout=60_000)
        box = page.get_by_test_id("stSelectbox").filter(has_text="问题集").first
        assert "（1 题）" in box.get_by_role("combobox").input_value()
        page.get_by_test_id("stDataFrame").first.wait_for()
        page.screenshot(path=str(SHOTS / "feedback_set.png"), full_page=True)
        assert not errors, errors
    finally:
        page.context.close()
