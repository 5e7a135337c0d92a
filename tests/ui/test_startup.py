"""The start-up work (ui/startup.py) with the hash embedder: the sample imported in the
background with its progress, a model still loading holding the import back, nothing imported
twice, and a failed import said as such. No Streamlit involved."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from rag_app.index.embedder import HashEmbedder
from rag_app.index.library import Library
from rag_app.models import Progress
from tests.conftest import REPO_ROOT, SAMPLE_ZIP
from ui import startup as startup_module
from ui.startup import SampleStatus, Startup

KB = "示例"


class GatedEmbedder(HashEmbedder):
    """Loads only when the gate opens, as a real model takes seconds; encoding waits for it."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = threading.Event()
        self.loaded = threading.Event()

    def warm_up(self) -> None:
        self.gate.wait(30)
        self.loaded.set()

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        self.loaded.wait(30)
        return super().embed_passages(texts)


def _join(startup: Startup) -> None:
    for thread in startup.threads:
        thread.join(timeout=60)
        assert not thread.is_alive()


def test_the_sample_is_imported_in_the_background_once_the_model_is_in(
    library: Library,
) -> None:
    embedder = GatedEmbedder()
    library._embedder = embedder  # the library encodes with it, as the app's does
    seen: list[SampleStatus] = []
    startup = Startup(SAMPLE_ZIP, KB).load_model(embedder).start(library)
    status = startup.status()
    assert status.importing and not startup.model_ready.is_set()
    assert KB in library.knowledge_bases() and not library.documents(KB)  # offered at once
    assert not startup.sample_done.wait(0.5)  # held back while the model loads
    seen.append(startup.status())
    embedder.gate.set()
    assert startup.sample_done.wait(60)
    assert startup.model_ready.is_set() and startup.status().state == "in"
    assert [d.name for d in library.documents(KB)] == [SAMPLE_ZIP.name]
    assert seen[0].counts == (0, seen[0].counts[1]) and seen[0].counts[1] > 0  # 0/N encoded
    _join(startup)


def test_a_sample_already_there_is_in_at_once_and_not_imported_again(
    library: Library, monkeypatch: pytest.MonkeyPatch
) -> None:
    library.ingest_bytes([(SAMPLE_ZIP.name, SAMPLE_ZIP.read_bytes())], KB)
    (before,) = library.documents(KB)
    monkeypatch.setattr(startup_module, "RECHECK_DELAY_S", 0.0)
    startup = Startup(SAMPLE_ZIP, KB).load_model(library.embedder).start(library)
    assert startup.status().state == "in" and startup.sample_done.is_set()
    _join(startup)  # the warm-up and the re-check (same chunks: nothing to do)
    assert library.documents(KB) == [before]


def test_a_failed_import_is_said_and_the_model_still_counts_as_ready(
    library: Library, tmp_path: Path
) -> None:
    startup = Startup(tmp_path / "missing.zip", KB).load_model(None).start(library)
    assert startup.sample_done.wait(60)
    status = startup.status()
    assert status.state == "failed" and "missing.zip" in status.error
    assert startup.model_ready.is_set()
    _join(startup)


def test_counts_are_passages_encoded_once_encoding_has_started() -> None:
    assert SampleStatus("importing").counts == (0, 0)
    assert SampleStatus("importing", Progress("chunk", 0, 1)).counts == (0, 0)
    assert SampleStatus("importing", Progress("embed", 12, 41)).counts == (12, 41)


def test_the_import_can_wait_for_the_first_page(library: Library) -> None:
    startup = Startup(SAMPLE_ZIP, KB).load_model(library.embedder).start(library, after_page=30)
    assert not startup.sample_done.wait(1.0) and not library.documents(KB)
    startup.page_shown.set()
    assert startup.sample_done.wait(60) and startup.status().state == "in"
    _join(startup)


def test_streamlit_run_finds_the_server_with_its_start_up_work() -> None:
    """``streamlit run app.py`` must find app.py's st.App (found by reading the file, as
    Streamlit does): otherwise it would run app.py as a page, blank, without the lifespan that
    starts the work at the server's start."""
    from streamlit.web.server.app_discovery import discover_asgi_app

    found = discover_asgi_app(REPO_ROOT / "app.py")
    assert found.is_asgi_app and found.import_string == "app:app"
    assert not discover_asgi_app(REPO_ROOT / "streamlit_app.py").is_asgi_app
