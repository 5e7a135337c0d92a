"""What the ``rag-app`` commands share: messages on stderr, progress lines, settings from the
common flags, the library."""

from __future__ import annotations

import argparse
import sys
import time

from rag_app.config import Settings, load_settings
from rag_app.models import Progress


def _err(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


class _ProgressPrinter:
    """One updating line per stage on a terminal; a line per stage change otherwise."""

    def __init__(self) -> None:
        self.tty = sys.stderr.isatty()
        self.stage = ""
        self.last = 0.0

    def __call__(self, p: Progress) -> None:
        now = time.monotonic()
        done = p.total and p.done >= p.total
        if p.stage == self.stage and not done and now - self.last < 0.5:
            return
        self.last = now
        text = f"{p.stage}: {p.done}/{p.total}" + (f" {p.message}" if p.message else "")
        if self.tty:
            sys.stderr.write("\r\033[K" + text + ("\n" if done else ""))
            sys.stderr.flush()
        elif p.stage != self.stage or done:
            _err(text)
        self.stage = p.stage if not done else ""


def _settings(args: argparse.Namespace) -> Settings:
    return load_settings(
        data_dir=getattr(args, "data_dir", None), knowledge_base=getattr(args, "kb", None)
    )


def _library(settings: Settings):  # type: ignore[no-untyped-def]
    from rag_app.index.library import Library

    return Library(settings)
