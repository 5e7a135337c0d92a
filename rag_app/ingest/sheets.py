"""Example sheets (seed 003, the retrieval node's example libraries) -> Q&A Items.

Excel (one sheet per category), CSV, or JSON (``{"qa_examples": [...], ...}`` or a list) rows with
``user_input``, ``agent_response``, optional ``tags`` (comma separated or a list) and
``quality_grade`` (优秀/良好/一般); ``notes`` is for curators and is not ingested. Invalid rows are
reported with their sheet and row number (as a spreadsheet shows it); valid rows are kept.
"""

from __future__ import annotations

import io
from collections.abc import Iterable
from typing import Any

from rag_app.ingest.errors import IngestError
from rag_app.models import Item

REQUIRED = ("user_input", "agent_response")
GRADES = ("优秀", "良好", "一般")


def is_sheet_json(raw: Any) -> bool:
    """True for JSON shaped like an example sheet rather than a content list."""
    if isinstance(raw, dict):
        return any(
            isinstance(v, list) and v and isinstance(v[0], dict) and "user_input" in v[0]
            for v in raw.values()
        )
    return (
        bool(raw) and isinstance(raw, list) and isinstance(raw[0], dict) and "user_input" in raw[0]
    )


def parse_sheet_json(raw: Any, name: str) -> tuple[list[Item], list[str]]:
    if isinstance(raw, list):
        groups = {"examples": raw}
    else:
        groups = {k: v for k, v in raw.items() if isinstance(v, list)}
    rows = (
        (category, n + 1, row)
        for category, values in groups.items()
        for n, row in enumerate(values)
    )
    return _rows_to_items(rows, name, row_label="item")


def parse_sheet_table(data: bytes, name: str) -> tuple[list[Item], list[str]]:
    """Parse .xlsx/.xls (every sheet) or .csv bytes."""
    import pandas as pd

    lower = name.lower()
    frames: dict[str, Any]
    try:
        if lower.endswith(".csv"):
            text = None
            for encoding in ("utf-8-sig", "gb18030"):
                try:
                    text = data.decode(encoding)
                    break
                except UnicodeDecodeError:
                    continue
            if text is None:
                raise IngestError(f"{name}: not a CSV file in UTF-8 or GB18030", key="csv_not_text")
            frames = {
                "csv": pd.read_csv(
                    io.StringIO(text), dtype=str, keep_default_na=False, skip_blank_lines=False
                )
            }
        else:
            frames = pd.read_excel(io.BytesIO(data), sheet_name=None, dtype=str)
    except IngestError:
        raise
    except Exception as exc:  # pandas raises many types for a broken file
        raise IngestError(
            f"{name}: cannot read the sheet ({type(exc).__name__}: {exc})",
            key="sheet_unreadable",
            values={"problem": f"{type(exc).__name__}: {exc}"},
        ) from None
    rows = []
    for sheet, frame in frames.items():
        frame = frame.rename(columns=lambda c: str(c).strip().lower())
        missing = [c for c in REQUIRED if c not in frame.columns]
        if missing:
            raise IngestError(
                f"{name}: sheet '{sheet}' lacks column(s) {', '.join(missing)}"
                f" (needs {', '.join(REQUIRED)}; optional tags, quality_grade)",
                key="sheet_missing_columns",
                values={
                    "sheet": sheet,
                    "missing": ", ".join(missing),
                    "required": ", ".join(REQUIRED),
                },
            )
        for n, record in enumerate(frame.fillna("").to_dict("records")):
            # Row 1 is the header in a spreadsheet, so data row n is row n + 2.
            rows.append((str(sheet), n + 2, record))
    return _rows_to_items(rows, name, row_label="row")


def _rows_to_items(
    rows: Iterable[tuple[str, int, Any]], name: str, row_label: str
) -> tuple[list[Item], list[str]]:
    items: list[Item] = []
    problems: list[str] = []
    for category, number, row in rows:
        where = f"{category} {row_label} {number}"
        if not isinstance(row, dict):
            problems.append(f"{where}: not an object")
            continue
        if not any(str(v).strip() for v in row.values()):
            continue  # blank rows are spacing, not errors (seed 003: removed on import)
        question = str(row.get("user_input") or "").strip()
        answer = str(row.get("agent_response") or "").strip()
        if not question or not answer:
            problems.append(f"{where}: user_input and agent_response are required")
            continue
        tags = row.get("tags") or ""
        if isinstance(tags, list):
            tags = ",".join(str(t) for t in tags)
        tags = ",".join(t.strip() for t in str(tags).replace("，", ",").split(",") if t.strip())
        grade = str(row.get("quality_grade") or "").strip()
        if grade and grade not in GRADES:
            problems.append(f"{where}: quality_grade '{grade}' is not one of {'/'.join(GRADES)}")
            continue
        items.append(
            Item(
                index=len(items),
                kind="qa",
                text=question,
                description=answer,
                fields=(
                    ("category", category),
                    ("tags", tags),
                    ("quality_grade", grade),
                    ("row", str(number)),
                ),
            )
        )
    if not items:
        detail = tuple(problems) or ("no rows",)
        raise IngestError(f"{name}: no valid example rows", details=detail, key="no_valid_rows")
    warnings = [f"rejected {p}" for p in problems]
    return items, warnings
