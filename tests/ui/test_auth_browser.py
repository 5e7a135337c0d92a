"""Two signed-in users in a real browser: neither sees the other's saved conversations.

Streamlit's own authentication (``st.login``, OIDC through Authlib) against a tiny local OpenID
provider (``tests/oidc_stub_server.py``), configured by a secrets file of the test's own
(``--secrets.files``; the repo's ``.streamlit/`` is not touched). The browser signs in the way a
user does: the sidebar's sign-in button, the provider's redirect back to ``/oauth2callback``, and
Streamlit's signed cookie from then on; ``/authorize`` signs in whoever the test set as
``next_user``. Each user has a browser context of their own (their own cookies).

Run: ``.venv/bin/python -m pytest tests/ui/test_auth_browser.py -q -m browser``.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.ui.browser_support import (
    StreamlitServer,
    expect,
    mark,
    new_page,
    open_app,
    sample_server,
    wait_idle,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]
pytest.importorskip("playwright.sync_api")
pytest.importorskip("authlib", reason="Streamlit authentication needs streamlit[auth]")
pytest.importorskip("cryptography")

from tests.oidc_stub_server import OIDCStubServer  # noqa: E402 - after the skips

ALICE = {"sub": "alice", "email": "alice@example.com", "name": "Alice"}
BOB = {"sub": "bob", "email": "bob@example.com", "name": "Bob"}
HER_QUESTION = "中芯国际2025年的毛利率预测是多少？"
HIS_QUESTION = "中芯国际2025年的营业收入预测是多少？"  # neither is an example question
SIGN_IN = "登录"  # conv_sign_in_button, in Chinese (the default language)
CONVERSATIONS = "对话记录"  # conv_title: shown only to a signed-in user
NOT_FOUND = "地址中的对话不存在"  # conv_not_found
WAIT_MS = 120_000  # no single wait longer than this
TEST_BUDGET_S = 240.0  # the whole test (after the server is up)


class Budget:
    """Every wait gets at most ``WAIT_MS`` and never more than what is left of the test's."""

    def __init__(self, seconds: float) -> None:
        self.deadline = time.monotonic() + seconds

    def ms(self, cap: float = WAIT_MS) -> float:
        left = (self.deadline - time.monotonic()) * 1000
        if left <= 0:
            pytest.fail(f"the test took longer than {TEST_BUDGET_S:.0f} s")
        return min(cap, left)


@pytest.fixture(scope="module")
def oidc() -> Iterator[OIDCStubServer]:
    with OIDCStubServer() as provider:
        yield provider


@pytest.fixture(scope="module")
def server(
    tmp_path_factory: pytest.TempPathFactory, oidc: OIDCStubServer
) -> Iterator[StreamlitServer]:
    yield from sample_server(tmp_path_factory, "auth-browser", oidc)


# -- helpers ------------------------------------------------------------------------------------
def sidebar(page: Any) -> Any:
    return page.get_by_test_id("stSidebar")


def messages(page: Any) -> list[str]:
    return page.get_by_test_id("stChatMessage").all_inner_texts()


def listed(page: Any) -> list[str]:
    """The titles in the sidebar's list of saved conversations."""
    return conversation_buttons(page).all_inner_texts()


def conversation_buttons(page: Any) -> Any:
    return sidebar(page).locator(".st-key-conversations").get_by_role("button")


def assert_listed(page: Any, titles: list[str]) -> None:
    """The sidebar lists exactly ``titles``, waited for: the list is drawn after its heading,
    which is all ``wait_signed_in`` waits for (read at once, it could still be empty)."""
    expect(conversation_buttons(page)).to_have_text(titles)


def conversation_id(page: Any) -> str:
    (opened,) = parse_qs(urlsplit(page.url).query)["c"]
    return opened


def open_signed_in(page: Any, url: str, budget: Budget) -> None:
    """Load ``url`` as a signed-in user."""
    open_app(page, url, timeout=budget.ms())
    wait_signed_in(page, budget)


def wait_signed_in(page: Any, budget: Budget) -> None:
    """The list's heading is drawn (only for a signed-in user) and there is no sign-in button."""
    sidebar(page).get_by_text(CONVERSATIONS, exact=True).wait_for(timeout=budget.ms())
    wait_idle(page, timeout=budget.ms())
    assert sidebar(page).get_by_role("button", name=SIGN_IN, exact=True).count() == 0


def sign_in(
    page: Any, server: StreamlitServer, oidc: OIDCStubServer, user: dict[str, str], budget: Budget
) -> None:
    """Click the sidebar's sign-in button as ``user``: Streamlit sends the browser to
    ``/auth/login``, the provider answers straight back to ``/oauth2callback`` (no form), and
    Streamlit sets its cookie and returns to the app."""
    open_app(page, server.url, timeout=budget.ms())
    button = sidebar(page).get_by_role("button", name=SIGN_IN, exact=True)
    button.wait_for(timeout=budget.ms())
    tokens = oidc.tokens_issued()
    oidc.next_user = user
    with page.expect_response(
        lambda r: urlsplit(r.url).path == "/oauth2callback", timeout=budget.ms()
    ) as callback:
        button.click()
    assert callback.value.status == 302
    assert oidc.tokens_issued() == tokens + 1  # the code was exchanged, the id_token accepted
    page.wait_for_url(lambda url: urlsplit(url).path == "/", timeout=budget.ms())
    wait_signed_in(page, budget)


def ask(page: Any, question: str, budget: Budget) -> str:
    """Ask, wait until the answer is saved (its id is in the address) and drawn; the id."""
    box = page.get_by_test_id("stChatInputTextArea")
    box.fill(question)
    before = mark(page)
    box.press("Enter")
    page.wait_for_url(lambda url: "c=" in url, timeout=budget.ms())
    wait_idle(page, before, timeout=budget.ms())
    assert question in messages(page)[0]
    assert "[来源" in messages(page)[1]  # the offline answerer answered, with a citation
    return conversation_id(page)


# -- the test -----------------------------------------------------------------------------------
def test_a_second_user_does_not_see_the_first_users_conversations(
    browser: Any, server: StreamlitServer, oidc: OIDCStubServer
) -> None:
    budget = Budget(TEST_BUDGET_S)
    alice, bob, visitor = (new_page(browser) for _ in range(3))  # own contexts, own cookies
    try:
        # Alice signs in (nothing saved yet) and asks: her conversation is saved and listed
        sign_in(alice, server, oidc, ALICE, budget)
        assert listed(alice) == []
        hers = ask(alice, HER_QUESTION, budget)
        assert_listed(alice, [HER_QUESTION])

        # Bob, in his own browser, signs in: none of Alice's conversations is listed
        sign_in(bob, server, oidc, BOB, budget)
        assert listed(bob) == []
        assert HER_QUESTION not in sidebar(bob).inner_text()

        # Alice's address, opened by Bob: a note and a new chat, not her turns
        open_signed_in(bob, f"{server.url}/?c={hers}", budget)
        assert NOT_FOUND in bob.inner_text("body")
        assert messages(bob) == []
        assert HER_QUESTION not in bob.inner_text("body")
        assert "c" not in parse_qs(urlsplit(bob.url).query)
        assert listed(bob) == []

        # Bob asks his own question and sees only his
        his = ask(bob, HIS_QUESTION, budget)
        assert his != hers
        assert_listed(bob, [HIS_QUESTION])

        # back in Alice's browser: still only hers, and her address still opens her turns
        open_signed_in(alice, server.url, budget)
        assert_listed(alice, [HER_QUESTION])
        open_signed_in(alice, f"{server.url}/?c={hers}", budget)
        alice.get_by_test_id("stChatMessage").first.wait_for(timeout=budget.ms())
        wait_idle(alice, timeout=budget.ms())
        assert HER_QUESTION in messages(alice)[0]
        assert NOT_FOUND not in alice.inner_text("body")
        # ...and Bob's address is not hers to open
        open_signed_in(alice, f"{server.url}/?c={his}", budget)
        assert NOT_FOUND in alice.inner_text("body")
        assert messages(alice) == []
        assert_listed(alice, [HER_QUESTION])

        # a visitor who has not signed in: the sign-in button, no list, nobody's turns
        for address in (server.url, f"{server.url}/?c={hers}", f"{server.url}/?c={his}"):
            open_app(visitor, address, timeout=budget.ms())
            sidebar(visitor).get_by_role("button", name=SIGN_IN, exact=True).wait_for(
                timeout=budget.ms()
            )
            assert sidebar(visitor).get_by_text(CONVERSATIONS, exact=True).count() == 0
            assert listed(visitor) == []
            assert messages(visitor) == []
            body = visitor.inner_text("body")
            assert HER_QUESTION not in body and HIS_QUESTION not in body
    finally:
        for page in (alice, bob, visitor):
            page.context.close()

    # behind the browser: each conversation is filed under its user's e-mail
    from rag_app.chat.conversations import ConversationStore

    store = ConversationStore.in_dir(Path(server.data_dir))
    try:
        assert [c.id for c in store.list(ALICE["email"])] == [hers]
        assert [c.id for c in store.list(BOB["email"])] == [his]
        assert store.list("") == []  # nothing under the local (unauthenticated) user
    finally:
        store.close()
