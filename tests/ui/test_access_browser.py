"""Knowledge-base permissions in a real browser (issue 28), two users signed in through the
local OpenID provider (``tests/oidc_stub_server.py``, as ``test_auth_browser.py`` signs in):
Alice creates a knowledge base, uploads a report and asks about it; Bob sees it nowhere (the
Ask page's knowledge bases, the Audit page, the Evaluate page) until Alice adds him as a
reader; then he sees it, asks, and cannot upload.

Screenshots go to ``$ACCESS_SCREENSHOTS`` (default ``test-artifacts/browser/``).

Run: ``.venv/bin/python -m pytest tests/ui/test_access_browser.py -q -m browser``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.conftest import TEST_DATA
from tests.ui.browser_support import (
    REPO_ROOT,
    StreamlitServer,
    act,
    expect,
    goto_page,
    mark,
    new_page,
    sample_server,
    wait_idle,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]
pytest.importorskip("playwright.sync_api")
pytest.importorskip("authlib", reason="Streamlit authentication needs streamlit[auth]")
pytest.importorskip("cryptography")

from tests.oidc_stub_server import OIDCStubServer  # noqa: E402 - after the skips
from tests.ui.test_auth_browser import Budget, open_signed_in, sidebar, sign_in  # noqa: E402

ALICE = {"sub": "alice", "email": "alice@example.com", "name": "Alice"}
BOB = {"sub": "bob", "email": "bob@example.com", "name": "Bob"}
KB = "爱丽丝的研报"
REPORT = TEST_DATA / "browser" / "huahong_content_list.json"
QUESTION = "华虹半导体的营业收入是多少？"
SHOTS = Path(os.environ.get("ACCESS_SCREENSHOTS", REPO_ROOT / "test-artifacts" / "browser"))


@pytest.fixture(scope="module")
def oidc() -> Iterator[OIDCStubServer]:
    with OIDCStubServer() as provider:
        yield provider


@pytest.fixture(scope="module")
def server(
    tmp_path_factory: pytest.TempPathFactory, oidc: OIDCStubServer
) -> Iterator[StreamlitServer]:
    yield from sample_server(tmp_path_factory, "access-browser", oidc)


def main_area(page: Any) -> Any:
    return page.get_by_test_id("stMainBlockContainer")


def options(page: Any, control: Any) -> list[str]:
    """What a selectbox offers (its list opened, read, closed)."""
    control.scroll_into_view_if_needed()
    control.get_by_role("button", name="Open").click()
    page.get_by_role("listbox").wait_for()
    texts = [text.strip() for text in page.get_by_role("option").all_inner_texts()]
    page.keyboard.press("Escape")
    return texts


def kb_box(page: Any) -> Any:
    box = sidebar(page).get_by_test_id("stSelectbox").filter(has_text="知识库")
    box.wait_for()
    return box


def ask(page: Any, question: str) -> list[str]:
    """Ask on the Ask page; the chat's messages once the answer is saved and drawn."""
    box = page.get_by_test_id("stChatInputTextArea")
    box.fill(question)
    before = mark(page)
    box.press("Enter")
    page.wait_for_url(lambda url: "c=" in url, timeout=120_000)
    wait_idle(page, before, timeout=120_000)
    return page.get_by_test_id("stChatMessage").all_inner_texts()


def test_a_knowledge_base_is_invisible_to_another_user_until_shared(
    browser: Any, server: StreamlitServer, oidc: OIDCStubServer
) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    budget = Budget(420.0)
    alice, bob = new_page(browser, {"width": 1400, "height": 1400}), new_page(browser)
    try:
        # Alice creates a knowledge base, uploads a report and asks about it
        sign_in(alice, server, oidc, ALICE, budget)
        goto_page(alice, "文档库")
        main = main_area(alice)
        box = alice.locator(".st-key-new_kb_name input")
        box.fill(KB)
        act(alice, lambda: box.press("Enter"))
        act(alice, main.get_by_role("button", name="创建").click)
        main.get_by_test_id("stAlertContentSuccess").filter(has_text=KB).wait_for()
        main.get_by_text("你的角色：管理员").wait_for()
        upload = alice.get_by_test_id("stFileUploaderDropzoneInput")
        act(alice, lambda: upload.set_input_files([REPORT]))
        act(
            alice,
            main.get_by_role("button", name=f"导入 1 个文件到「{KB}」").click,
            timeout=240_000,
        )
        main.get_by_text("导入结果").wait_for()
        goto_page(alice, "问答")
        expect(kb_box(alice).get_by_role("combobox")).to_have_value(KB)
        assert QUESTION in ask(alice, QUESTION)[0]

        # Bob sees it nowhere
        sign_in(bob, server, oidc, BOB, budget)
        assert KB not in options(bob, kb_box(bob))
        goto_page(bob, "审计")
        audit_kb = main_area(bob).get_by_test_id("stSelectbox").filter(has_text="知识库")
        assert KB not in options(bob, audit_kb)
        main_area(bob).get_by_text("审计", exact=False).first.wait_for()
        assert main_area(bob).get_by_text(QUESTION).count() == 0  # the table's cells included
        bob.screenshot(path=str(SHOTS / "access_01_bob_audit_before.png"), full_page=True)
        goto_page(bob, "评测")
        assert KB not in options(bob, kb_box(bob))
        goto_page(bob, "文档库")
        current = main_area(bob).get_by_test_id("stSelectbox").filter(has_text="当前知识库")
        assert KB not in options(bob, current)

        # Alice adds Bob as a reader (a user; reader is the first role offered)
        goto_page(alice, "文档库")
        members = alice.locator(".st-key-members")
        members.locator(".st-key-members_name input").fill(BOB["email"])
        act(alice, lambda: members.locator(".st-key-members_name input").press("Enter"))
        act(alice, members.get_by_role("button", name="添加成员").click)
        main.get_by_test_id("stAlertContentSuccess").filter(has_text="读者").wait_for()
        alice.screenshot(path=str(SHOTS / "access_02_alice_members.png"), full_page=True)

        # Bob now sees it, asks in it, and cannot upload
        open_signed_in(bob, server.url, budget)
        box_ = kb_box(bob)
        assert KB in options(bob, box_)
        box_.get_by_role("button", name="Open").click()
        act(bob, bob.get_by_role("option", name=KB, exact=True).click)
        asked = ask(bob, QUESTION)
        assert QUESTION in asked[0] and len(asked) == 2
        goto_page(bob, "审计")
        # Alice's question and his own, now listed (the grid's cells are in the DOM, not shown)
        expect(main_area(bob).get_by_text(QUESTION)).to_have_count(2)
        goto_page(bob, "文档库")
        bob_main = main_area(bob)
        bob_main.get_by_text("你的角色：读者").wait_for()
        assert bob.get_by_test_id("stFileUploaderDropzoneInput").is_disabled()
        assert bob_main.get_by_text("上传文档的权限").count() == 1
        assert bob_main.get_by_role("button", name="删除知识库").is_disabled()
        assert bob_main.get_by_role("button", name="添加成员").count() == 0
        bob.screenshot(path=str(SHOTS / "access_03_bob_reader_library.png"), full_page=True)
        assert urlsplit(bob.url).path == "/library"
    finally:
        for page in (alice, bob):
            page.context.close()
