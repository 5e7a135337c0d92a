"""研报问答 (research report Q&A): the server. ``streamlit run app.py`` (``make run``) finds the
``st.App`` below and serves the pages of ``streamlit_app.py``, the script every session runs.

What this adds to ``streamlit run streamlit_app.py`` is the lifespan: as the server starts, before
any browser has connected, the work a first page and a first answer would wait for begins in a
thread (``ui.resources.start_early``: the library opens, the embedding model loads, the pages'
modules are imported, and after a restart the caches of a first answer are filled). A browser
takes seconds to connect and load the page; on two cores that is the difference between a first
answer 6 s after a restart and 10 s (``../shared/checks/cold-start``, docs/EVALUATION.md).
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import streamlit as st

# The start-up thread's niceness (Linux: per thread; the threads it starts inherit it). The
# browser loading the page and the server serving it come first; measured on two cores, the
# first answer after a restart comes about half a second sooner than at the default priority.
STARTUP_NICENESS = 10


def _start_early() -> None:
    if sys.platform == "linux":  # elsewhere a thread's id is not a process id to renice
        try:
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), STARTUP_NICENESS)
        except OSError:
            pass  # not permitted: the work runs at the usual priority
    from ui import resources  # here, not above: the server answers its health check sooner

    resources.start_early()


@asynccontextmanager
async def lifespan(_app: st.App) -> AsyncIterator[None]:
    threading.Thread(target=_start_early, name="startup-early", daemon=True).start()
    yield


app = st.App("streamlit_app.py", lifespan=lifespan)
