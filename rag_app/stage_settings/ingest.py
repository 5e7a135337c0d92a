"""Limits a file meets while it is read (``InputLimits``), beyond its own size
(``Settings.max_file_bytes`` and ``max_zip_bytes``, checked first): nothing is half-ingested."""

from __future__ import annotations

from dataclasses import dataclass

_MB = 1024 * 1024


@dataclass(frozen=True)
class InputLimits:
    # Zip bombs: an archive that expands past this many bytes or holds more entries is refused.
    max_zip_expanded_bytes: int = 500 * _MB
    max_zip_entries: int = 20_000
    # One image larger than this is left out with a warning, from a zip or from beside a content
    # list on disk: a figure, not a data dump.
    max_image_bytes: int = 20 * _MB
    # A workbook's XML expands about 5-10x; past this it is a zip bomb, not a sheet of examples.
    max_sheet_expanded_bytes: int = 200 * _MB
    # Rows a workbook may hold, checked before it is read: each row is a chunk, so this is already
    # 3x the default max_chunks_per_document; reading 100k rows alone takes the sheet reader 7 s.
    max_sheet_rows: int = 20_000


DEFAULT_INPUT_LIMITS = InputLimits()
