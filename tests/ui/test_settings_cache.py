"""The app's shared Settings are made again when any variable they are made from changes: every
one ``load_settings`` reads and the provider's (``ui.resources.SETTINGS_KEY_ENV``). No app run,
no browser: ``resources.settings`` is called directly."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from rag_app.config import PROVIDER_VARIABLES, SETTINGS_ENV, load_settings
from ui import resources

# A value each variable accepts (load_settings refuses a malformed number or cue list).
VALUES = {
    "RAG_APP_REWRITES": "hyde",
    "RAG_APP_SELF_RAG": "1",
    "RAG_APP_ROUTING_CUES": "table=产线一览",
    "RAG_APP_ENCODER_RUNTIME": "torch",
    "RAG_APP_CHROMA_URL": "http://127.0.0.1:9",
}


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> pytest.MonkeyPatch:
    for name in resources.SETTINGS_KEY_ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("RAG_APP_DATA_DIR", str(tmp_path / "data"))
    return monkeypatch


def test_the_key_holds_every_variable_settings_and_the_provider_are_read_from() -> None:
    assert set(resources.SETTINGS_KEY_ENV) == set(SETTINGS_ENV) | set(PROVIDER_VARIABLES)


@pytest.mark.parametrize("name", resources.SETTINGS_KEY_ENV)
def test_changing_any_one_variable_gives_fresh_settings(
    clean_env: pytest.MonkeyPatch, tmp_path: Path, name: str
) -> None:
    before = resources.settings()
    assert resources.settings() is before  # unchanged: the cached object
    old = os.environ.get(name)
    value = VALUES.get(name, str(tmp_path / name) if name.endswith(("_DIR", "_HOME")) else "7")
    clean_env.setenv(name, value)
    after = resources.settings()
    assert after is not before
    assert after == load_settings()  # made from the environment as it is now
    if old is None:
        clean_env.delenv(name)
    else:
        clean_env.setenv(name, old)
    assert resources.settings() is before  # the same variables: the cached object again
