"""The sample's background import as the pages show it: a progress bar at the top of the Ask and
Library pages, a note under a question asked before the sample is in, and ``follow``, which keeps
them current until it is in and then runs the page again (the held question is answered then).

Each run's progress elements are remembered per script thread (a session's run happens on one
thread) and handed to ``follow`` at the end of ``app.py``, after the whole page is drawn: the page
is usable while the bars move.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import streamlit as st

from ui import ingestion, resources
from ui.i18n import t
from ui.startup import SampleStatus

# The longest a progress bar stays unchanged, and the longest a click waits for this run to
# give way (each redraw is a point where Streamlit can stop the run for the next one).
REDRAW_S = 0.5

_run = threading.local()
Draw = Callable[[Any, SampleStatus], None]


def begin_run() -> None:
    """Forget the elements of an earlier run (``app.py`` calls this first)."""
    _run.slots = []


def _register(slot: Any, draw: Draw, status: SampleStatus) -> None:
    draw(slot, status)
    if not hasattr(_run, "slots"):
        _run.slots = []
    _run.slots.append((slot, draw))


def count_text(status: SampleStatus) -> str:
    done, total = status.counts
    if not done and not resources.model_ready():
        return t("sample_model")  # encoding waits for the model to load
    return t("sample_count", done=done, total=total) if total else t("sample_preparing")


def _fraction(status: SampleStatus) -> float:
    return ingestion.progress_fraction(status.progress) if status.progress else 0.0


def _draw_bar(slot: Any, status: SampleStatus) -> None:
    text = t("sample_importing", kb=resources.SAMPLE_KB, n=count_text(status))
    slot.progress(_fraction(status), text="📥 " + text)


def _draw_held(slot: Any, status: SampleStatus) -> None:
    slot.info(t("sample_held", n=count_text(status)), icon="⏳")


def progress_bar(status: SampleStatus) -> None:
    """The import's progress bar, kept current while this page is open."""
    _register(st.empty(), _draw_bar, status)


def held_note(status: SampleStatus) -> None:
    """Under a question asked before the sample is in: it is answered as soon as it is."""
    _register(st.empty(), _draw_held, status)


def failure(status: SampleStatus) -> None:
    st.error(t("seed_failed", error=status.error), icon="⚠️")


def follow() -> None:
    """While the sample is importing and this run drew its progress: redraw it every
    ``REDRAW_S`` seconds, then run the page again with the sample in. Returns at once when the
    run drew none (other pages, or nothing left to import)."""
    slots = list(getattr(_run, "slots", []))
    _run.slots = []
    if not slots:
        return
    startup = resources.startup()
    status = startup.status()
    while status.importing:
        startup.sample_done.wait(REDRAW_S)
        status = startup.status()
        for slot, draw in slots:
            draw(slot, status)
    st.rerun()
