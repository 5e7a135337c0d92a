"""The environment's one reader: ``load_settings`` reads exactly the variables ``SETTINGS_ENV``
lists (so a cache keyed on them cannot miss a change), and the provider's variables are read by
``read_provider_env`` alone, for the CLI, the server and the UI alike."""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from pathlib import Path

from rag_app.answer import provider_from_env
from rag_app.config import PROVIDER_VARIABLES, SETTINGS_ENV, load_settings, read_provider_env

ROOT = Path(__file__).resolve().parent.parent


class _Recording(Mapping[str, str]):
    """An empty environment that remembers every name asked for."""

    def __init__(self) -> None:
        self.asked: set[str] = set()

    def __getitem__(self, name: str) -> str:
        self.asked.add(name)
        raise KeyError(name)

    def __contains__(self, name: object) -> bool:
        self.asked.add(str(name))
        return False

    def get(self, name: str, default: object = None) -> object:  # type: ignore[override]
        self.asked.add(name)
        return default

    def __iter__(self) -> Iterator[str]:
        return iter(())

    def __len__(self) -> int:
        return 0


def test_settings_env_lists_exactly_what_load_settings_reads() -> None:
    env = _Recording()
    load_settings(env)
    xdg = {"XDG_DATA_HOME", "XDG_CACHE_HOME"}  # read by the default paths, from os.environ
    assert env.asked == set(SETTINGS_ENV) - xdg


def test_the_provider_reader_reads_exactly_the_provider_variables() -> None:
    env = _Recording()
    read_provider_env(env)
    assert env.asked == set(PROVIDER_VARIABLES)


def test_the_app_names_come_first_and_values_are_stripped() -> None:
    env = {
        "RAG_APP_MODEL": " qwen ",
        "OPENAI_BASE_URL": "http://b/v1",
        "RAG_APP_API_KEY": "",
        "OPENAI_API_KEY": "sk-2",
    }
    found = read_provider_env(env)
    assert (found.model, found.base_url, found.api_key, found.api_key_name) == (
        "qwen",
        "http://b/v1",
        "sk-2",
        "OPENAI_API_KEY",
    )
    provider = provider_from_env({**env, "RAG_APP_BASE_URL": "http://a/v1"})
    assert provider is not None and provider.base_url == "http://a/v1"
    assert provider_from_env({"OPENAI_API_KEY": "sk-2"}) is None  # no model: offline


def _reads_provider_names(path: Path) -> bool:
    names = set(PROVIDER_VARIABLES)
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return any(isinstance(node, ast.Constant) and node.value in names for node in ast.walk(tree))


def test_only_the_reader_names_the_provider_variables() -> None:
    """No other module of the core or the UI spells a provider variable: the CLI, the server and
    the UI all go through ``read_provider_env``."""
    paths = [
        *(ROOT / "rag_app").rglob("*.py"),
        *(ROOT / "ui").rglob("*.py"),
        *(ROOT / "views").glob("*.py"),
        ROOT / "app.py",
        ROOT / "streamlit_app.py",
    ]
    naming = sorted(str(p.relative_to(ROOT)) for p in paths if _reads_provider_names(p))
    assert naming == ["rag_app/config.py"]
