"""The browser every browser test module drives: Debian's headless Chromium through playwright,
one per module (tests skip when it is not installed: `make browser-deps`); and ``lang``, a
test run once in each UI language (``st.session_state["lang"]``, back to zh after)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.ui.browser_support import CHROMIUM, launch_browser


@pytest.fixture(params=["zh", "en"])
def lang(request: pytest.FixtureRequest) -> Iterator[str]:
    import streamlit as st

    st.session_state["lang"] = request.param
    try:
        yield request.param
    finally:
        st.session_state["lang"] = "zh"


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} not found: run `make browser-deps`")
    from playwright import sync_api

    with sync_api.sync_playwright() as playwright:
        chromium = launch_browser(playwright)
        yield chromium
        chromium.close()
