"""The browser every browser test module drives: Debian's headless Chromium through playwright,
one per module (tests skip when it is not installed: `make browser-deps`); ``lang``, a test run
once in each UI language (``st.session_state["lang"]``, back to zh after); and for AppTest
modules ``data_dir`` (a module's own, the tests skipping when the real model is not built) and
``env`` (the app pointed at it and at the model, no provider configured)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rag_app.config import PROVIDER_VARIABLES, Settings
from tests.conftest import REAL_CACHE_DIR
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


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> Path:
    from rag_app.index.embedder import ModelMissingError, resolve_model

    try:
        resolve_model(Settings(cache_dir=REAL_CACHE_DIR))
    except ModelMissingError as exc:
        pytest.skip(f"real embedding model not available: {exc}")
    return tmp_path_factory.mktemp(request.module.__name__.rsplit(".", 1)[-1])


@pytest.fixture
def env(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("RAG_APP_DATA_DIR", str(data_dir))
    monkeypatch.setenv("RAG_APP_CACHE_DIR", str(REAL_CACHE_DIR))
    for name in PROVIDER_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    return data_dir
