"""A question set as a user uploads it: JSON lines, a JSON list, CSV or an Excel sheet, one
question per row, with its expected answer and, optionally, the document, pages or content-list
items that hold it, its conversation so far, and ``answerable: false`` for a question the library
cannot answer.

The columns are named as in ``rag-app eval``'s questions.jsonl (``question``, ``answer``,
``doc_id``, ``gold_item_indices``, ``history``, ``answerable``) or in plainer words (``expected``,
``document``, ``page``, ``item``), in English or Chinese: the header names are this format's own
vocabulary, listed once in ``COLUMNS``. Pages are numbered from 1, as a reader sees them; a cell
may hold several, "3, 4". An expected answer holding several parts that must all be in the
answer separates them with "|" in a sheet (a list in JSON).

``read_question_set`` raises ``QuestionSetError`` naming the row and what is wrong with it, as a
``Reason`` each UI language can word.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import PurePath

from rag_app.models import Reason

# The most rows one set may have, and the largest file read: a set is for a person to look
# through, and a run of this many takes minutes offline (10+ questions a second).
MAX_SET_ROWS = 2000
MAX_SET_BYTES = 8 * 1024 * 1024

# The header names each field is read from (folded: lower case, spaces and dashes as "_").
COLUMNS: dict[str, tuple[str, ...]] = {
    "id": ("id", "qid", "question_id", "编号", "序号"),
    "question": ("question", "query", "问题", "提问"),
    "expected": (
        "answer",
        "answers",
        "expected",
        "expected_answer",
        "gold_answer",
        "答案",
        "标准答案",
        "预期答案",
        "参考答案",
    ),
    "document": ("document", "doc", "doc_id", "doc_name", "file", "文档", "文件", "报告"),
    "pages": ("page", "pages", "page_no", "页", "页码"),
    "items": ("item", "items", "gold_item_indices", "item_index", "条目"),
    "history": ("history", "conversation", "对话", "对话历史", "历史"),
    "answerable": ("answerable", "可回答", "能回答"),
    "answer_type": ("answer_type", "答案类型"),
    "scale": ("scale", "单位量级"),
}
_FIELD_OF = {name: field for field, names in COLUMNS.items() for name in names}
_NO = {"false", "0", "no", "n", "否", "不可", "不能", "无"}
_INTEGERS = re.compile(r"\d+")


@dataclass(frozen=True)
class EvalQuestion:
    """One row of a question set. ``pages`` are 1-based; ``items`` index the document's content
    list; ``history`` is the conversation before the question, (role, content) oldest first."""

    id: str
    question: str
    expected: tuple[str, ...] = ()
    document: str = ""
    pages: tuple[int, ...] = ()
    items: tuple[int, ...] = ()
    history: tuple[tuple[str, str], ...] = ()
    answerable: bool = True
    answer_type: str = ""
    scale: str = ""

    @property
    def has_gold(self) -> bool:
        """Whether the row says where its answer is (items or pages)."""
        return bool(self.items or self.pages)


class QuestionSetError(ValueError):
    """A file that is not a question set, or a row that is not a question; ``reason`` words it."""

    def __init__(self, reason: Reason, english: str) -> None:
        super().__init__(english)
        self.reason = reason


def read_question_set(data: bytes, name: str) -> list[EvalQuestion]:
    """The questions of the file ``name`` (its suffix says the format: .jsonl, .json, .csv,
    .xlsx) holding ``data``. Raises QuestionSetError on an unknown format, a file too large or
    unreadable, a row without a question, or a set with none."""
    if len(data) > MAX_SET_BYTES:
        raise QuestionSetError(
            Reason.of("set_too_large", mb=MAX_SET_BYTES // (1024 * 1024)),
            f"the file is larger than {MAX_SET_BYTES // (1024 * 1024)} MB",
        )
    suffix = PurePath(name).suffix.lower()
    if suffix == ".jsonl":
        rows = _jsonl_rows(data)
    elif suffix == ".json":
        rows = _json_rows(data)
    elif suffix in (".csv", ".tsv", ".txt"):
        rows = _csv_rows(data, "\t" if suffix == ".tsv" else None)
    elif suffix in (".xlsx", ".xlsm"):
        rows = _xlsx_rows(data)
    else:
        raise QuestionSetError(
            Reason.of("set_format", suffix=suffix or "?"),
            f"{suffix or 'a file without a suffix'} is not a question set: use .jsonl, .json, "
            ".csv or .xlsx",
        )
    return questions_of(rows)


def questions_of(rows: Iterable[tuple[int, Mapping[str, object]]]) -> list[EvalQuestion]:
    """The questions of ``rows`` (line or row number, the row's columns by header); rows
    with no cell filled are skipped. Raises QuestionSetError as ``read_question_set``."""
    out: list[EvalQuestion] = []
    for where, raw in rows:
        row = {_FIELD_OF.get(_fold(k), ""): v for k, v in raw.items() if _filled(v)}
        row.pop("", None)
        if not row:
            continue
        if len(out) >= MAX_SET_ROWS:
            raise QuestionSetError(
                Reason.of("set_too_many", n=MAX_SET_ROWS),
                f"the set has more than {MAX_SET_ROWS} questions",
            )
        out.append(_question(where, row, len(out) + 1))
    if not out:
        raise QuestionSetError(
            Reason.of("set_empty"),
            "no question in the file: it needs a column named question (or 问题)",
        )
    seen: set[str] = set()
    for q in out:
        if q.id in seen:
            raise QuestionSetError(
                Reason.of("set_duplicate_id", id=q.id), f"the id {q.id} is given twice"
            )
        seen.add(q.id)
    return out


def _question(where: int, row: Mapping[str, object], n: int) -> EvalQuestion:
    question = _text(row.get("question"))
    if not question:
        raise QuestionSetError(
            Reason.of("set_no_question", row=where), f"row {where}: it has no question"
        )
    try:
        return EvalQuestion(
            id=_text(row.get("id")) or f"q{n}",
            question=question,
            expected=_expected(row.get("expected")),
            document=_text(row.get("document")),
            pages=_integers(row.get("pages")),
            items=_integers(row.get("items")),
            history=_history(row.get("history")),
            answerable=_text(row.get("answerable", "")).lower() not in _NO,
            answer_type=_text(row.get("answer_type")),
            scale=_text(row.get("scale")),
        )
    except ValueError as exc:
        raise QuestionSetError(
            Reason.of("set_bad_row", row=where, problem=str(exc)), f"row {where}: {exc}"
        ) from None


def question_rows(questions: Sequence[EvalQuestion]) -> list[dict[str, object]]:
    """The questions as JSON rows of the format read here (a set saved, exported or sent)."""
    out = []
    for q in questions:
        row: dict[str, object] = {"id": q.id, "question": q.question}
        if q.expected:
            row["answer"] = list(q.expected) if len(q.expected) > 1 else q.expected[0]
        if q.document:
            row["document"] = q.document
        if q.pages:
            row["pages"] = list(q.pages)
        if q.items:
            row["gold_item_indices"] = list(q.items)
        if q.history:
            row["history"] = [{"role": r, "content": c} for r, c in q.history]
        if not q.answerable:
            row["answerable"] = False
        if q.answer_type:
            row["answer_type"] = q.answer_type
        if q.scale:
            row["scale"] = q.scale
        out.append(row)
    return out


# formats ------------------------------------------------------------------------------------------
def _jsonl_rows(data: bytes) -> list[tuple[int, Mapping[str, object]]]:
    rows = []
    for n, line in enumerate(_decode(data).splitlines(), start=1):
        if line.strip():
            rows.append((n, _json_object(line, n)))
    return rows


def _json_rows(data: bytes) -> list[tuple[int, Mapping[str, object]]]:
    try:
        value = json.loads(_decode(data))
    except json.JSONDecodeError as exc:
        raise QuestionSetError(
            Reason.of("set_bad_json", line=exc.lineno), f"not valid JSON (line {exc.lineno})"
        ) from None
    if isinstance(value, dict):  # {"questions": [...]}
        value = next((v for v in value.values() if isinstance(v, list)), None)
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise QuestionSetError(
            Reason.of("set_not_list"), "the JSON is not a list of question objects"
        )
    return list(enumerate(value, start=1))


def _json_object(line: str, n: int) -> Mapping[str, object]:
    try:
        value = json.loads(line)
    except json.JSONDecodeError:
        raise QuestionSetError(
            Reason.of("set_bad_json", line=n), f"line {n} is not valid JSON"
        ) from None
    if not isinstance(value, dict):
        raise QuestionSetError(
            Reason.of("set_not_list"), f"line {n} is not a JSON object (a question's row)"
        )
    return value


def _csv_rows(data: bytes, delimiter: str | None) -> list[tuple[int, Mapping[str, object]]]:
    text = _decode(data)
    if delimiter is None:  # as the header row separates its names (Excel in some locales: ;)
        header = text.split("\n", 1)[0]
        delimiter = next((d for d in ",\t;" if d in header), ",")
    reader = csv.DictReader(io.StringIO(text), delimiter=delimiter)
    # a row's number as a spreadsheet shows it: the header is row 1
    return [(n, row) for n, row in enumerate(reader, start=2)]


def _xlsx_rows(data: bytes) -> list[tuple[int, Mapping[str, object]]]:
    from openpyxl import load_workbook

    try:
        book = load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    except Exception as exc:  # noqa: BLE001 - openpyxl raises many kinds on a damaged file
        raise QuestionSetError(
            Reason.of("set_bad_xlsx"), f"not a readable Excel workbook ({type(exc).__name__})"
        ) from None
    try:
        sheet = book.worksheets[0]
        rows = sheet.iter_rows(values_only=True)
        header = [str(h or "").strip() for h in next(rows, ())]
        return [
            (n, dict(zip(header, values, strict=False))) for n, values in enumerate(rows, start=2)
        ]
    finally:
        book.close()


def _decode(data: bytes) -> str:
    # Excel writes CSV in the system's code page: GB18030 on a Chinese Windows.
    for encoding in ("utf-8-sig", "gb18030"):
        try:
            return data.decode(encoding)
        except UnicodeDecodeError:
            continue
    raise QuestionSetError(Reason.of("set_encoding"), "the file is neither UTF-8 nor GB18030 text")


# cells --------------------------------------------------------------------------------------------
def _fold(header: object) -> str:
    return re.sub(r"[\s\-]+", "_", str(header or "").strip().lower())


def _filled(value: object) -> bool:
    return value is not None and (not isinstance(value, str) or bool(value.strip()))


def _text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))  # a sheet's 3 read as 3.0
    return str(value).strip()


def _expected(value: object) -> tuple[str, ...]:
    if isinstance(value, list):
        return tuple(t for t in (_text(v) for v in value) if t)
    text = _text(value)
    return tuple(p.strip() for p in text.split("|") if p.strip()) if text else ()


def _integers(value: object) -> tuple[int, ...]:
    if isinstance(value, list):
        return tuple(int(v) for v in value)
    if isinstance(value, bool):
        raise ValueError("a page or item is a number")
    if isinstance(value, (int, float)):
        return (int(value),)
    text = _text(value)
    numbers = _INTEGERS.findall(text)
    if text and not numbers:
        raise ValueError(f"{text!r} is not a page or item number")
    return tuple(int(n) for n in numbers)


def _history(value: object) -> tuple[tuple[str, str], ...]:
    """A list of chat messages ({"role", "content"}), a list of earlier questions, or, in a
    sheet's cell, either as JSON or the earlier questions one per line."""
    if value is None:
        return ()
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("["):
            try:
                value = json.loads(text)
            except json.JSONDecodeError:
                raise ValueError("history is not valid JSON") from None
        else:
            value = [line for line in text.splitlines() if line.strip()]
    if not isinstance(value, list):
        raise ValueError("history is a list of chat messages")
    out = []
    for message in value:
        if isinstance(message, str):
            out.append(("user", message.strip()))
        elif isinstance(message, dict) and message.get("role") in ("user", "assistant"):
            out.append((str(message["role"]), str(message.get("content") or "")))
        else:
            raise ValueError("history messages need a role of user or assistant")
    return tuple(out)
