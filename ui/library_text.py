"""The Library page's words: a file's size, date and format, a document's chunk counts, an
upload's stage on its progress bar, and each uploaded file's result as the lines shown under it
(a rejection worded from the core's reason key, ``IngestReport.why``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime

from rag_app.models import IngestReport, Progress
from ui.i18n import TEXTS, lang, t, type_label
from ui.strings_library import INGEST_REASONS_ZH, JSON_PROBLEMS_ZH

MB = 1024 * 1024


def size_text(n: int) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024  # type: ignore[assignment]
    return f"{n} B"


def megabytes(n: int) -> str:
    return f"{n / MB:g} MB"


def date_text(iso: str) -> str:
    try:
        return datetime.fromisoformat(iso).astimezone().strftime("%Y-%m-%d %H:%M")
    except ValueError:
        return iso


def format_label(source_format: str) -> str:
    """A document's format in the user's words (``DocumentInfo.source_format``: content_list,
    zip, markdown, sheet)."""
    key = f"format_{source_format}"
    return t(key) if key in TEXTS else source_format


def counts_text(type_counts: Iterable[tuple[str, int]]) -> str:
    return " · ".join(f"{type_label(k)} {v}" for k, v in type_counts)


def stage_text(progress: Progress) -> str:
    if progress.stage == "embed":
        return t("ingest_stage_embed", done=progress.done, total=progress.total)
    if progress.stage == "index" and progress.total and progress.done >= progress.total:
        return t("ingest_stage_done")
    return t(f"ingest_stage_{progress.stage}") if progress.stage in ("chunk", "index") else ""


def outcome_text(name: str, reports: list[IngestReport]) -> str:
    """A finished file's progress bar: its name and the best of its reports' outcomes."""
    statuses = {r.status for r in reports}
    outcome = "ingest_outcome_" + next(
        (k for k in ("ingested", "conflict", "duplicate") if k in statuses),
        "rejected",
    )
    return f"{name} · {t(outcome)}"


def result_lines(
    name: str, reports: list[IngestReport], names: Mapping[str, str] | None = None
) -> list[tuple[str, str]]:
    """(level, message) per report of one uploaded file; level is success/info/error/warning.

    ``names`` maps document ids to the names the document list shows, so that a duplicate or a
    conflict names the document as the list does (``tatqa_like_content_list.json``, not
    ``tatqa_like``)."""
    names = names or {}
    lines = []
    for report in reports:
        label = name if "kept beside" in report.message else (report.name or name)
        doc = names.get(report.doc_id, report.doc_id)
        if report.status == "ingested":
            message = t(
                "ingested", name=label, n=report.n_chunks, counts=counts_text(report.type_counts)
            )
            message += "".join(f" · {note}" for note in _notes(report, doc))
            lines.append(("success", message))
        elif report.status == "duplicate":
            key = "duplicate_pair" if "content list is kept" in report.message else "duplicate"
            lines.append(("info", t(key, name=label, doc=doc)))
        elif report.status == "conflict":
            lines.append(("warning", t("conflict", name=label, doc=doc)))
        else:
            lines.append(("error", t("rejected", name=label, reason=rejection_text(report))))
        for warning in report.warnings:
            lines.append(("warning", t("ingest_warning", name=label, warning=warning)))
    return lines


def rejection_text(report: IngestReport) -> str:
    """Why a file was not imported, in the user's language: the core's reason key worded in
    Chinese; otherwise (English, or a reason without a key) the core's English message, less
    the file's name that the result line already gives."""
    why = report.why
    if lang() != "en" and why is not None and why.key in INGEST_REASONS_ZH:
        values = dict(why.values)
        if "problem" in values and why.key == "bad_json":
            values["problem"] = JSON_PROBLEMS_ZH.get(values["problem"], values["problem"])
        try:
            return INGEST_REASONS_ZH[why.key].format(**values)
        except (KeyError, IndexError):  # a wording asking for a value the core did not give
            pass
    prefix = f"{report.name}: "
    return report.message.removeprefix(prefix) if report.name else report.message


def _notes(report: IngestReport, doc: str) -> list[str]:
    """What the library said beyond the count: what was replaced and what changed, or the id a
    file was kept under beside a document of the same name."""
    notes = []
    if "replaced" in report.message:
        notes.append(t("replaced"))
    for part in report.message.split("; ")[1:]:
        if part.startswith("kept beside"):
            notes.append(t("kept_beside", doc=doc))
        elif ": " in part:
            notes.append(t("changed", what=part.split(": ", 1)[1]))
    return notes
