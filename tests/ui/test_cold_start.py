"""A cold start in a real browser: on an empty data folder the page is usable while the sample
report is still being imported in the background, a question asked then is held with the
import's progress under it, and it gets a cited answer once the sample is in.

The goals (issue 15) are timed by ``../shared/checks/cold-start``; this test checks the order of
events, with generous limits for a busy machine (about 40-60 s here, most of it the import).

Run: ``.venv/bin/python -m pytest tests/ui/test_cold_start.py -q -m browser``.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import Any

import pytest

from tests.conftest import REAL_CACHE_DIR
from tests.ui.browser_support import REPO_ROOT, StreamlitServer, new_page, wait_idle

pytestmark = [pytest.mark.browser, pytest.mark.slow]
pytest.importorskip("playwright.sync_api")

QUESTION = "中芯国际2026年预测市盈率是多少？"
CHAT_INPUT = '[data-testid="stChatInputTextArea"]:not([disabled])'
CITATION = re.compile(r"(Source|来源)\s*\d")  # the marker as the UI's language draws it
ARTIFACTS = REPO_ROOT / "test-artifacts" / "browser"  # the views along the way, to look at


@pytest.fixture
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StreamlitServer]:
    from rag_app.config import Settings
    from rag_app.index.embedder import ModelMissingError, resolve_model

    try:
        resolve_model(Settings(cache_dir=REAL_CACHE_DIR))
    except ModelMissingError as exc:
        pytest.skip(f"real embedding model not available: {exc}")
    root = tmp_path_factory.mktemp("cold-start")
    app = StreamlitServer(root / "data", cache_dir=REAL_CACHE_DIR, log_path=root / "server.log")
    app.start()
    try:
        yield app
    finally:
        app.stop()


def test_the_page_is_usable_before_the_sample_is_in_and_answers_once_it_is(
    browser: Any, server: StreamlitServer
) -> None:
    page = new_page(browser)
    try:
        page.goto(server.url, timeout=60_000)
        box = page.locator(CHAT_INPUT).first
        box.wait_for(timeout=30_000)
        usable = time.monotonic() - server.started_at
        # usable while the import is still running: its progress is on the page
        progress = page.get_by_test_id("stProgress")
        progress.get_by_text("正在后台把示例研报导入").wait_for(timeout=5_000)
        assert not page.get_by_text("💡").count()  # the sample's examples come once it is in

        box.fill(QUESTION)
        box.press("Enter")
        held = page.get_by_test_id("stChatMessage").filter(has_text="示例研报仍在导入中")
        held.wait_for(timeout=15_000)  # said at once, not an empty answer or a wait
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "cold_start_held.png"))
        assert QUESTION in page.get_by_test_id("stChatMessage").first.inner_text()

        page.locator("a", has_text=CITATION).first.wait_for(timeout=150_000)
        answered = time.monotonic() - server.started_at
        wait_idle(page, timeout=60_000)
        page.screenshot(path=str(ARTIFACTS / "cold_start_answered.png"))
        answer = page.get_by_test_id("stChatMessage").nth(1).inner_text()
        assert "106.2" in answer, answer[:1000]  # the forecast P/E, quoted from the sample
        assert not held.count() and not progress.count()  # the import's notes are gone
        page.get_by_text("💡").wait_for(timeout=10_000)
        print(f"usable {usable:.1f}s, cited answer {answered:.1f}s after the server started")
    except Exception:
        print(server.log())
        raise
    finally:
        page.context.close()
