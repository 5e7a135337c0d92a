"""Uploads on the Library page: each file ingested on its own, with its progress bar and its
result (moved out of ``ui.state``, which keeps the per-user state)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rag_app.index.admission import OnConflict
from rag_app.index.library import Library
from rag_app.ingest.loader import doc_id_from_name
from rag_app.models import IngestReport, Progress

# Share of a file's progress bar per ingestion stage (embedding dominates).
_STAGE_SPAN = {"chunk": (0.0, 0.1), "embed": (0.1, 0.9), "index": (0.9, 1.0)}


def progress_fraction(progress: Progress) -> float:
    low, high = _STAGE_SPAN.get(progress.stage, (0.0, 1.0))
    share = progress.done / progress.total if progress.total else 1.0
    return max(0.0, min(1.0, low + (high - low) * share))


def ingest_files(
    lib: Library,
    kb: str,
    files: Sequence[tuple[str, bytes]],
    on_progress: Callable[[int, Progress], None] | None = None,
    on_conflict: OnConflict = "ask",
) -> list[tuple[str, list[IngestReport]]]:
    """Ingest uploaded files one by one (a progress bar and a result each).

    Returns ``(file name, reports)`` per file, in the files' order; a zip may hold several
    documents. A failure of one file becomes a ``rejected`` report and the others still run. A
    content list goes before the other files of its document (the markdown MinerU writes beside
    it), so they are found to be its duplicates before anything of theirs is embedded.
    """
    results: list[tuple[str, list[IngestReport]]] = [("", [])] * len(files)
    for position in _content_lists_first(files):
        name, data = files[position]

        def report(progress: Progress, position: int = position) -> None:
            if on_progress is not None:
                on_progress(position, progress)

        try:
            reports = lib.ingest_bytes([(name, data)], kb, progress=report, on_conflict=on_conflict)
        except Exception as exc:  # noqa: BLE001 - shown per file; the batch goes on
            reports = [IngestReport(name=name, status="rejected", message=str(exc))]
        results[position] = (name, reports)
    return results


def _content_lists_first(files: Sequence[tuple[str, bytes]]) -> list[int]:
    """The files' positions, each content list moved before the first file of its document."""
    order = list(range(len(files)))
    first: dict[str, int] = {}
    for position, (name, _) in enumerate(files):
        doc_id = doc_id_from_name(name)
        if doc_id not in first:
            first[doc_id] = position
        elif name.lower().endswith(".json") and "_content_list" in name.lower():
            order.remove(position)
            order.insert(order.index(first[doc_id]), position)
            first[doc_id] = position
    return order
