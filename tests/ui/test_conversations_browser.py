"""Saved conversations in a real browser: a conversation survives a reload and a server restart
(at its address, and through the sidebar's list), and so does the language.

A second user's view is not tested here: Streamlit authentication needs an OpenID provider,
and the app has no other way to name a user (no header or variable a test could set, on
purpose). The isolation is tested on the store (tests/test_conversations.py) and through
``st.user`` in AppTest (tests/ui/test_ui_apptest.py).

Run: ``.venv/bin/python -m pytest tests/ui/test_conversations_browser.py -q -m browser``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.ui.browser_support import (
    StreamlitServer,
    act,
    expect,
    mark,
    new_page,
    open_app,
    sample_server,
    wait_idle,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]
pytest.importorskip("playwright.sync_api")

QUESTION = "中芯国际2025年的毛利率预测是多少？"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StreamlitServer]:
    yield from sample_server(tmp_path_factory, "conversations-browser")


def sidebar(page: Any) -> Any:
    return page.get_by_test_id("stSidebar")


def messages(page: Any) -> list[str]:
    return page.get_by_test_id("stChatMessage").all_inner_texts()


def ask(page: Any, question: str) -> None:
    """Ask and wait until the answer is saved (its id is in the address) and drawn."""
    box = page.get_by_test_id("stChatInputTextArea")
    box.fill(question)
    before = mark(page)
    box.press("Enter")
    page.wait_for_url(lambda url: "c=" in url, timeout=180_000)
    wait_idle(page, before, timeout=180_000)


def reopen(page: Any, url: str) -> None:
    open_app(page, url, timeout=240_000)
    restored_turn_drawn(page)


def restored_turn_drawn(page: Any) -> None:
    """Wait until the restored turn's question and answer are both drawn (the answer comes
    after the question: read at once, the list could hold the question alone)."""
    page.get_by_test_id("stChatMessage").first.wait_for(timeout=60_000)
    wait_idle(page)
    expect(page.get_by_test_id("stChatMessage")).to_have_count(2)


def test_a_conversation_and_the_language_survive_a_reload_and_a_restart(
    browser: Any, server: StreamlitServer
) -> None:
    page = new_page(browser)
    try:
        open_app(page, server.url, timeout=240_000)  # the sample is in 示例 already (sample_data)
        ask(page, QUESTION)
        address = page.url
        (opened,) = parse_qs(urlsplit(address).query)["c"]
        assert QUESTION in messages(page)[0]
        answer = messages(page)[1]
        assert "[来源" in answer
        entry = sidebar(page).get_by_role("button", name=QUESTION)
        assert entry.count() == 1  # listed, titled by the question

        # English, then a reload at the same address: the turn and the language are kept
        act(page, sidebar(page).get_by_role("radio", name="English", exact=True).click)
        page.get_by_role("heading", name="Ask the reports").wait_for()
        page.reload()
        restored_turn_drawn(page)
        assert page.url == address
        assert QUESTION in messages(page)[0]
        assert "[Source" in messages(page)[1]
        assert page.get_by_role("heading", name="Ask the reports").count() == 1
        assert "Restored from the saved conversation" in page.inner_text("body")

        # a restart on the same data: the same address (on the new port) opens it again
        server.stop()
        server.start(timeout=120)
        moved = f"{server.url}/?c={opened}"
        reopen(page, moved)
        assert QUESTION in messages(page)[0]
        assert "[Source" in messages(page)[1]
        assert page.get_by_role("heading", name="Ask the reports").count() == 1

        # and the app's own address lists it in the sidebar: one click opens it
        open_app(page, server.url, timeout=240_000)
        assert messages(page) == []
        act(page, sidebar(page).get_by_role("button", name=QUESTION).click)
        expect(page.get_by_test_id("stChatMessage")).to_have_count(2)
        assert QUESTION in messages(page)[0]
        assert parse_qs(urlsplit(page.url).query)["c"] == [opened]

        # an address naming no conversation says so and starts afresh
        open_app(page, f"{server.url}/?c=no-such-conversation", timeout=240_000)
        assert messages(page) == []
        assert "does not exist" in page.inner_text("body")
    finally:
        page.context.close()


def test_the_data_file_holds_the_conversation(server: StreamlitServer) -> None:
    """The store behind the browser: one file beside the catalogue."""
    assert (Path(server.data_dir) / "conversations.sqlite").exists()
    assert (Path(server.data_dir) / "catalogue.sqlite").exists()
