"""A hostile catalogue: malformed, odd, oversized and malicious inputs, written at test time.

``hostile_catalogue(folder)`` writes every case into ``folder`` and returns what each must end
in. Nothing big is committed: the files are generated from a fixed seed. Three canary documents
carry one distinctive fact each; whatever the hostile files do, the canaries' chunks and answers
must survive (``tests/ingest/test_hostile.py``, ``docs/HOSTILE.md``).

Expectations are the library's: ``rejected`` (the message names the file and contains
``fragment``), ``warned`` (ingested, one warning contains ``fragment``), ``ingested`` and
``any`` (either way, as long as it ends in a report and no exception). ``on_disk`` is False for
names the CLI's folder walk does not pick up (``.json`` has no suffix as ``pathlib`` sees it).
"""

from __future__ import annotations

import functools
import io
import json
import random
import struct
import warnings
import zipfile
from dataclasses import dataclass
from pathlib import Path

REJECTED, WARNED, INGESTED, ANY = "rejected", "warned", "ingested", "any"


@dataclass(frozen=True)
class HostileCase:
    name: str  # the file's name (as uploaded, and on disk under the folder)
    kind: str  # parse, schema, encoding, markdown, sheet, zip, name, size, html, canary
    expect: str  # rejected / warned / ingested / any
    fragment: str = ""  # in the rejection message (rejected) or in one warning (warned)
    size: int = 0  # bytes written
    on_disk: bool = True  # picked up by `rag-app ingest FOLDER`


@dataclass(frozen=True)
class Canary:
    name: str
    question: str  # keywords that find it
    fact: str  # text its chunk must contain


CANARIES = (
    Canary(
        "canary_whale_content_list.json",
        "蓝鲸半导体 晶圆出货量",
        "蓝鲸半导体2031年第三季度的晶圆出货量为987654片",
    ),
    Canary(
        "canary_zephyrine_content_list.json",
        "Zephyrine Capital net asset value",
        "Zephyrine Capital reported a net asset value of 4271.93 million",
    ),
    Canary("canary_falcon.md", "绿隼科技 研发投入", "绿隼科技的研发投入占营收比例为31.7%"),
)


def _items(*texts: str, page: object = 0) -> list[dict]:
    return [{"type": "text", "text": t, "page_idx": page} for t in texts]


def _json(value: object) -> bytes:
    return json.dumps(value, ensure_ascii=False).encode("utf-8")


def _zip(members: list[tuple[str, bytes]], method: int = zipfile.ZIP_DEFLATED) -> bytes:
    buf = io.BytesIO()
    with warnings.catch_warnings(), zipfile.ZipFile(buf, "w", method) as archive:
        warnings.simplefilter("ignore")  # a duplicate member name is one of the cases
        for name, data in members:
            archive.writestr(zipfile.ZipInfo(name), data, compress_type=method)
    return buf.getvalue()


def _symlink_zip() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as archive:
        link = zipfile.ZipInfo("images/escape.png")
        link.external_attr = (0o120777 << 16) | 0
        archive.writestr(link, "/etc/passwd")
        archive.writestr("a_content_list.json", _json(_items("symlink zip")))
    return buf.getvalue()


def _encrypted_zip() -> bytes:
    data = bytearray(_zip([("a_content_list.json", _json(_items("encrypted")))]))
    # Set the "encrypted" flag bit in the local header and the central directory entry.
    data[6:8] = struct.pack("<H", struct.unpack("<H", bytes(data[6:8]))[0] | 1)
    central = data.rfind(b"PK\x01\x02")
    flags = central + 8
    data[flags : flags + 2] = struct.pack("<H", struct.unpack("<H", data[flags : flags + 2])[0] | 1)
    return bytes(data)


def _xlsx(sheets: dict[str, list[list[str]]]) -> bytes:
    """A minimal workbook written as XML (inline strings): fast for 100k rows, no openpyxl."""

    def cell(ref: str, text: str) -> str:
        safe = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        return f'<c r="{ref}" t="inlineStr"><is><t>{safe}</t></is></c>'

    def col(n: int) -> str:
        return "ABCDEFGHIJKLMNOPQRSTUVWXYZ"[n]

    names = list(sheets)
    members = [
        (
            "[Content_Types].xml",
            '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
            '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
            '<Default Extension="xml" ContentType="application/xml"/>'
            '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
            + "".join(
                f'<Override PartName="/xl/worksheets/sheet{n + 1}.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>'
                for n in range(len(names))
            )
            + "</Types>",
        ),
        (
            "_rels/.rels",
            '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
            '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/>'
            "</Relationships>",
        ),
        (
            "xl/workbook.xml",
            '<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" '
            'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets>'
            + "".join(
                f'<sheet name="{name}" sheetId="{n + 1}" r:id="rId{n + 1}"/>'
                for n, name in enumerate(names)
            )
            + "</sheets></workbook>",
        ),
        (
            "xl/_rels/workbook.xml.rels",
            '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
            + "".join(
                f'<Relationship Id="rId{n + 1}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet{n + 1}.xml"/>'
                for n in range(len(names))
            )
            + "</Relationships>",
        ),
    ]
    for n, name in enumerate(names):
        rows = "".join(
            f'<row r="{r + 1}">'
            + "".join(cell(f"{col(c)}{r + 1}", v) for c, v in enumerate(row))
            + "</row>"
            for r, row in enumerate(sheets[name])
        )
        members.append(
            (
                f"xl/worksheets/sheet{n + 1}.xml",
                '<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
                f"<sheetData>{rows}</sheetData></worksheet>",
            )
        )
    return _zip([(name, text.encode("utf-8")) for name, text in members])


def _deep_json(depth: int) -> bytes:
    return b"[" * depth + b"]" * depth


def _table(rows: int, cols: int, prefix: str = "v") -> str:
    head = "<tr>" + "".join(f"<th>col{c}</th>" for c in range(cols)) + "</tr>"
    body = "".join(
        "<tr>" + "".join(f"<td>{prefix}{r}_{c}</td>" for c in range(cols)) + "</tr>"
        for r in range(rows)
    )
    return f"<table>{head}{body}</table>"


def _canaries() -> list[tuple[HostileCase, bytes]]:
    whale, zephyrine, falcon = CANARIES
    return [
        (
            HostileCase(whale.name, "canary", INGESTED),
            _json(
                [
                    {"type": "text", "text": "蓝鲸半导体季度报告", "text_level": 1, "page_idx": 0},
                    {"type": "text", "text": whale.fact + "，同比增长12%。", "page_idx": 0},
                ]
            ),
        ),
        (
            HostileCase(zephyrine.name, "canary", INGESTED),
            _json(
                [
                    {"type": "text", "text": "Zephyrine Capital annual letter", "text_level": 1},
                    {"type": "text", "text": zephyrine.fact + " in fiscal 2031.", "page_idx": 2},
                ]
            ),
        ),
        (
            HostileCase(falcon.name, "canary", INGESTED),
            f"# 绿隼科技年报\n\n{falcon.fact}，位居行业前列。\n".encode(),
        ),
    ]


def _cases(rng: random.Random) -> list[tuple[HostileCase, bytes]]:  # noqa: C901 - a catalogue
    good = _items("正常段落：本文件的其余部分是正常的。")
    out: list[tuple[HostileCase, bytes]] = []

    def add(name: str, kind: str, expect: str, data: bytes, fragment: str = "", **kw) -> None:  # type: ignore[no-untyped-def]
        out.append((HostileCase(name, kind, expect, fragment, len(data), **kw), data))

    # -- JSON that does not parse, or parses oddly ---------------------------------------------
    add(
        "truncated_content_list.json",
        "parse",
        REJECTED,
        b'[{"type": "text", "text": "cut',
        "not valid JSON",
    )
    add(
        "trailing_garbage_content_list.json",
        "parse",
        REJECTED,
        _json(good) + b" }{ garbage",
        "not valid JSON",
    )
    add(
        "raw_control_char_content_list.json",
        "parse",
        REJECTED,
        b'[{"type": "text", "text": "a\x01b"}]',
        "not valid JSON",
    )
    add(
        "nan_page_content_list.json",
        "parse",
        WARNED,
        b'[{"type": "text", "text": "nan page text", "page_idx": NaN}]',
        "page",
    )
    add(
        "infinity_page_content_list.json",
        "parse",
        WARNED,
        b'[{"type": "text", "text": "infinite page text", "page_idx": Infinity}]',
        "page",
    )
    add(
        "nan_text_content_list.json",
        "parse",
        REJECTED,
        b'[{"type": "text", "text": NaN}]',
        "no content",
    )
    add(
        "bom_utf8_content_list.json",
        "encoding",
        INGESTED,
        b"\xef\xbb\xbf" + _json(_items("带BOM的文件")),
    )
    add("only_bom.json", "encoding", REJECTED, b"\xef\xbb\xbf", "empty")
    add(
        "utf16_content_list.json",
        "encoding",
        INGESTED,
        json.dumps(_items("UTF-16 编码的文件"), ensure_ascii=False).encode("utf-16"),
    )
    add(
        "utf16be_nobom_content_list.json",
        "encoding",
        INGESTED,
        json.dumps(_items("utf16be")).encode("utf-16-be"),
    )
    add(
        "gbk_content_list.json",
        "encoding",
        INGESTED,
        json.dumps(_items("国标编码的中文报告正文"), ensure_ascii=False).encode("gbk"),
    )
    add(
        "invalid_utf8_content_list.json",
        "encoding",
        REJECTED,
        b'[{"type": "text", "text": "bad \xff\xfe\xff bytes"}]',
        "UTF-8",
    )
    add("deep_nesting_5000.json", "parse", REJECTED, _deep_json(5000), "nested")
    add(
        "deep_nesting_in_item_content_list.json",
        "parse",
        REJECTED,
        b'[{"type": "text", "text": "deep", "extra": '
        + b'{"a": ' * 5000
        + b"1"
        + b"}" * 5000
        + b"}]",
        "nested",
    )
    add(
        "deep_nesting_900_content_list.json",
        "parse",
        ANY,
        b'[{"type": "text", "text": "moderately deep", "bbox": ' + b"[" * 900 + b"]" * 900 + b"}]",
    )
    add(
        "huge_integer_page_content_list.json",
        "parse",
        REJECTED,
        b'[{"type": "text", "text": "page with 5000 digits", "page_idx": 1' + b"7" * 5000 + b"}]",
        "4300 digits",
    )
    add(
        "huge_integer_text_content_list.json",
        "parse",
        ANY,
        b'[{"type": "text", "text": 9' + b"9" * 6000 + b'}, {"type": "text", "text": "next"}]',
    )
    add(
        "exponent_page_content_list.json",
        "parse",
        WARNED,
        b'[{"type": "text", "text": "page 1e400", "page_idx": 1e400}]',
        "page",
    )
    add(
        "duplicate_keys_content_list.json",
        "parse",
        INGESTED,
        b'[{"type": "text", "text": "first", "text": "duplicate keys, last wins"}]',
    )

    # -- schema oddities -------------------------------------------------------------------------
    add(
        "top_object.json",
        "schema",
        REJECTED,
        b'{"title": "a report", "pages": 3}',
        "must be a JSON list",
    )
    add("top_number.json", "schema", REJECTED, b"42", "must be a JSON list")
    add("top_string.json", "schema", REJECTED, b'"hello"', "must be a JSON list")
    add("top_null.json", "schema", REJECTED, b"null", "must be a JSON list")
    add("top_true.json", "schema", REJECTED, b"true", "must be a JSON list")
    add(
        "items_not_objects_content_list.json",
        "schema",
        REJECTED,
        b'[1, "a", null, [], true]',
        "malformed item",
    )
    add(
        "type_missing_content_list.json",
        "schema",
        REJECTED,
        _json([*good, {"text": "no type"}]),
        "item 1",
    )
    add(
        "type_unknown_content_list.json",
        "schema",
        WARNED,
        _json([*good, {"type": "sidebar", "text": "侧栏"}]),
        "unknown type",
    )
    add(
        "type_number_content_list.json",
        "schema",
        REJECTED,
        _json([*good, {"type": 5, "text": "x"}]),
        "item 1",
    )
    add(
        "type_spaced_upper_content_list.json",
        "schema",
        INGESTED,
        _json([{"type": "  TEXT ", "text": "type with spaces and capitals"}]),
    )
    add(
        "text_number_content_list.json",
        "schema",
        INGESTED,
        _json([{"type": "text", "text": 31415926}]),
    )
    add(
        "text_list_content_list.json",
        "schema",
        REJECTED,
        _json([*good, {"type": "text", "text": ["a", "b"]}]),
        "'text'",
    )
    add(
        "text_dict_content_list.json",
        "schema",
        REJECTED,
        _json([*good, {"type": "text", "text": {"zh": "文本"}}]),
        "'text'",
    )
    add(
        "text_null_content_list.json",
        "schema",
        INGESTED,
        _json([*good, {"type": "text", "text": None}]),
    )
    add(
        "page_negative_content_list.json",
        "schema",
        WARNED,
        _json(_items("negative page", page=-1)),
        "page",
    )
    add(
        "page_string_digits_content_list.json",
        "schema",
        INGESTED,
        _json(_items("page given as a string", page="3")),
    )
    add(
        "page_string_word_content_list.json",
        "schema",
        REJECTED,
        _json(_items("page given as a word", page="three")),
        "page_idx",
    )
    add(
        "page_2pow70_content_list.json",
        "schema",
        WARNED,
        _json(_items("a page past 2**70", page=2**70)),
        "page",
    )
    add(
        "page_true_content_list.json",
        "schema",
        REJECTED,
        _json(_items("page is true", page=True)),
        "page_idx",
    )
    add(
        "page_list_content_list.json",
        "schema",
        REJECTED,
        _json(_items("page is a list", page=[1])),
        "page_idx",
    )
    add("page_float_content_list.json", "schema", INGESTED, _json(_items("page is 2.0", page=2.0)))
    add(
        "text_level_huge_content_list.json",
        "schema",
        ANY,
        _json([{"type": "text", "text": "heading", "text_level": 2**70}, *good]),
    )
    add(
        "text_level_float_content_list.json",
        "schema",
        ANY,
        _json([{"type": "text", "text": "heading", "text_level": 1e400}, *good]),
    )
    add(
        "table_body_list_content_list.json",
        "schema",
        REJECTED,
        _json([*good, {"type": "table", "table_body": ["<table>"]}]),
        "'table_body'",
    )
    add(
        "table_body_dict_content_list.json",
        "schema",
        REJECTED,
        _json([*good, {"type": "table", "table_body": {"rows": 3}}]),
        "'table_body'",
    )
    add(
        "table_body_huge_content_list.json",
        "schema",
        INGESTED,
        _json([{"type": "table", "table_body": _table(3000, 6), "table_caption": ["表1 巨表"]}]),
    )
    add(
        "table_body_deep_content_list.json",
        "schema",
        ANY,
        _json(
            [
                *good,
                {
                    "type": "table",
                    "table_body": "<table><tr><td>"
                    + "<div><table><tr><td>" * 5000
                    + "deep"
                    + "</td></tr></table></div>" * 5000
                    + "</td></tr></table>",
                },
            ]
        ),
    )
    add(
        "table_span_bomb_content_list.json",
        "schema",
        ANY,
        _json(
            [
                *good,
                {
                    "type": "table",
                    "table_body": "<table>"
                    + ("<tr>" + '<td colspan="1000000" rowspan="1000000">x</td>' * 300 + "</tr>")
                    * 300
                    + "</table>",
                },
            ]
        ),
    )
    add(
        "img_path_dotdot_content_list.json",
        "schema",
        WARNED,
        _json(
            [
                *good,
                {"type": "image", "img_path": "../../../etc/passwd", "image_caption": ["图1 逃逸"]},
            ]
        ),
        "img_path",
    )
    add(
        "img_path_absolute_content_list.json",
        "schema",
        WARNED,
        _json(
            [*good, {"type": "image", "img_path": "/etc/shadow", "image_caption": ["图2 绝对路径"]}]
        ),
        "img_path",
    )
    add(
        "img_path_nul_content_list.json",
        "schema",
        WARNED,
        _json(
            [
                *good,
                {
                    "type": "image",
                    "img_path": "images/a\u0000.png",
                    "image_caption": ["图3 空字符"],
                },
            ]
        ),
        "img_path",
    )
    add(
        "img_path_long_content_list.json",
        "schema",
        WARNED,
        _json(
            [
                *good,
                {
                    "type": "image",
                    "img_path": "images/" + "x" * 5000 + ".png",
                    "image_caption": ["图4 长路径"],
                },
            ]
        ),
        "img_path",
    )
    add(
        "ten_thousand_empty_items_content_list.json",
        "schema",
        REJECTED,
        _json([{"type": "text", "text": ""}] * 10_000),
        "no content items",
    )
    add(
        "list_items_dicts_content_list.json",
        "schema",
        REJECTED,
        _json([*good, {"type": "list", "list_items": [{"a": 1}]}]),
        "'list_items'",
    )
    add(
        "caption_nested_content_list.json",
        "schema",
        REJECTED,
        _json([*good, {"type": "image", "image_caption": [["nested"]]}]),
        "caption",
    )
    add(
        "wrapped_object_content_list.json",
        "schema",
        INGESTED,
        _json({"content_list": _items("wrapped in an object")}),
    )
    add(
        "extra_fields_content_list.json",
        "schema",
        INGESTED,
        _json(
            [{"type": "text", "text": "extra fields", "bbox": "nonsense", "foo": {"bar": [1, 2]}}]
        ),
    )
    add(
        "lone_surrogate_content_list.json",
        "encoding",
        WARNED,
        b'[{"type": "text", "text": "surrogate \\ud800 here and \\udfff there"}]',
        "U+FFFD",
    )
    add(
        "nul_bytes_content_list.json",
        "encoding",
        WARNED,
        b'[{"type": "text", "text": "nul \\u0000 byte \\u0007 bell"}]',
        "control",
    )
    add(
        "rtl_zero_width_content_list.json",
        "encoding",
        INGESTED,
        _json(_items("RTL \u202eoverride\u202c zero\u200bwidth \ufeff bom", "שלום עולם مرحبا")),
    )

    # -- markdown oddities -----------------------------------------------------------------------
    add(
        "only_headings.md",
        "markdown",
        REJECTED,
        b"# One\n\n## Two\n\n### Three\n",
        "no searchable content",
    )
    add("nested_list_markers.md", "markdown", ANY, ("- " * 50_000 + "deep item\n").encode())
    add("nested_quote_markers.md", "markdown", ANY, (">" * 50_000 + " quoted\n").encode())
    add(
        "indented_lists.md",
        "markdown",
        INGESTED,
        "".join("  " * (i % 200) + f"- item {i}\n" for i in range(5000)).encode(),
    )
    add(
        "giant_table_row.md",
        "markdown",
        ANY,
        (
            "<table><tr>" + "".join(f"<td>c{i}</td>" for i in range(30_000)) + "</tr></table>\n"
        ).encode(),
    )
    add(
        "pipe_table_wide.md",
        "markdown",
        ANY,
        ("|" + "|".join(f"h{i}" for i in range(5000)) + "|\n|" + "---|" * 5000 + "\n").encode(),
    )
    add(
        "script_payload.md",
        "html",
        INGESTED,
        b"# Report\n\n<script>alert('x')</script>\n\n<img src=x onerror=alert(1)>\n\n[click](javascript:alert(1))\n\nbody text <iframe src='//evil'></iframe>\n",
    )
    add(
        "table_script_payload.md",
        "html",
        INGESTED,
        b"<table><tr><th>a<script>alert(1)</script></th></tr><tr><td onclick='x()'>1<img src=x onerror=alert(2)></td></tr></table>\n",
    )
    add(
        "unclosed_table.md", "markdown", ANY, ("<table><tr><td>open\n" + "line\n" * 10_000).encode()
    )
    add("heading_backtrack.md", "markdown", ANY, ("# " + " #" * 100_000 + " x\n\nbody\n").encode())
    add(
        "image_link_escape.md",
        "markdown",
        WARNED,
        b"# Figures\n\n![a](../../etc/passwd)\n\n![b](/abs/path.png)\n\ntext\n",
        "img_path",
    )
    add("nul_in_markdown.md", "encoding", WARNED, b"# NUL\n\ntext with \x00 nul\n", "control")
    add("cr_only_lines.md", "markdown", INGESTED, b"# CR only\r\rline one\r\rline two\r")

    # -- sheets ----------------------------------------------------------------------------------
    add("empty.csv", "sheet", REJECTED, b"", "empty")
    add("one_column.csv", "sheet", REJECTED, b"user_input\nhello\n", "lacks column")
    add("ragged.csv", "sheet", ANY, b"user_input,agent_response\na,b\nc,d,e,f,g\nh\n")
    add(
        "formula_injection.csv",
        "sheet",
        INGESTED,
        b"user_input,agent_response\n\"=cmd|' /C calc'!A0\",\"@SUM(1+1)*cmd|' /C calc'!A0\"\n+1+1,-2+3\n",
    )
    rows = "".join(f"问题{n},回答{n}\n" for n in range(100_000))
    add(
        "rows_100k.csv",
        "size",
        REJECTED,
        ("user_input,agent_response\n" + rows).encode(),
        "max_chunks_per_document",
    )
    add(
        "xlsx_not_a_zip.xlsx", "sheet", REJECTED, b"this is not a workbook", "cannot read the sheet"
    )
    add(
        "xlsx_bomb.xlsx",
        "sheet",
        REJECTED,
        _zip(
            [
                ("[Content_Types].xml", b"<Types/>"),
                ("xl/worksheets/sheet1.xml", b"<" + b" " * (300 * 1024 * 1024) + b">"),
            ]
        ),
        "expands",
    )
    add(
        "xlsx_rows_100k.xlsx",
        "size",
        REJECTED,
        _xlsx(
            {
                "qa": [["user_input", "agent_response"]]
                + [[f"q{n}", f"a{n}"] for n in range(100_000)]
            }
        ),
        "rows, over the 20,000",
    )
    add(
        "xlsx_rows_5k.xlsx",
        "size",
        REJECTED,
        _xlsx(
            {"qa": [["user_input", "agent_response"]] + [[f"q{n}", f"a{n}"] for n in range(5000)]}
        ),
        "max_chunks_per_document",
    )
    add("csv_nul.csv", "sheet", ANY, b"user_input,agent_response\nq\x00one,a\x00one\n")
    add(
        "csv_huge_cell.csv",
        "sheet",
        ANY,
        b'user_input,agent_response\nhuge,"' + "答案很长。".encode() * 150_000 + b'"\n',
    )
    add(
        "items_50k_content_list.json",
        "size",
        ANY,
        _json([{"type": "text", "text": f"第{n}段", "page_idx": n // 50} for n in range(50_000)]),
    )
    add(
        "table_ragged_bomb_content_list.json",
        "schema",
        ANY,
        _json(
            [
                *good,
                {
                    "type": "table",
                    "table_body": "<table><tr>"
                    + "<td>w</td>" * 30_000
                    + "</tr>"
                    + "<tr><td>n</td></tr>" * 10_000
                    + "</table>",
                },
            ]
        ),
    )
    add(
        "xlsx_many_sheets.xlsx",
        "sheet",
        INGESTED,
        _xlsx(
            {
                f"s{n}": [["user_input", "agent_response"], [f"问题{n}", f"回答{n}"]]
                for n in range(60)
            }
        ),
    )
    add(
        "sheet_json_rows_not_objects.json",
        "sheet",
        ANY,
        _json([{"user_input": "q", "agent_response": "a"}, 5, "x"]),
    )

    # -- zip tricks ------------------------------------------------------------------------------
    member = _json(_items("zip member text"))
    add(
        "zip_dotdot.zip",
        "zip",
        REJECTED,
        _zip([("../evil_content_list.json", member)]),
        "unsafe path",
    )
    add(
        "zip_absolute.zip",
        "zip",
        REJECTED,
        _zip([("/tmp/evil_content_list.json", member)]),
        "unsafe path",
    )
    add(
        "zip_backslash.zip",
        "zip",
        REJECTED,
        _zip([("..\\evil_content_list.json", member)]),
        "unsafe path",
    )
    add("zip_symlink.zip", "zip", REJECTED, _symlink_zip(), "symbolic link")
    add(
        "zip_nested.zip",
        "zip",
        REJECTED,
        _zip([("inner.zip", _zip([("a_content_list.json", member)]))]),
        "no content_list",
    )
    add("zip_encrypted.zip", "zip", REJECTED, _encrypted_zip(), "encrypted")
    add(
        "zip_bomb.zip",
        "zip",
        REJECTED,
        _zip([("bomb_content_list.json", b" " * (200 * 1024 * 1024))]),
        "expands",
    )
    add(
        "zip_image_bomb.zip",
        "zip",
        WARNED,
        _zip(
            [
                (
                    "img_content_list.json",
                    _json(
                        [
                            *_items("zip with a huge image"),
                            {"type": "image", "img_path": "images/big.png"},
                        ]
                    ),
                ),
                ("images/big.png", b"\0" * (60 * 1024 * 1024)),
            ]
        ),
        "image",
    )
    add(
        "zip_many_entries.zip",
        "zip",
        REJECTED,
        _zip([(f"f{n}.txt", b"") for n in range(20_001)], zipfile.ZIP_STORED),
        "files in the archive",
    )
    add(
        "zip_both_sources.zip",
        "zip",
        INGESTED,
        _zip(
            [
                ("both/both_content_list.json", _json(_items("content list beside its markdown"))),
                ("both/both.md", b"# md\n\nmarkdown twin\n"),
            ]
        ),
    )
    add(
        "zip_no_sources.zip",
        "zip",
        REJECTED,
        _zip([("readme.txt", b"hello"), ("images/a.png", b"png")]),
        "no content_list",
    )
    add(
        "zip_zero_byte_members.zip",
        "zip",
        REJECTED,
        _zip([("z_content_list.json", b""), ("z.md", b"")]),
        "empty",
    )
    add(
        "zip_duplicate_names.zip",
        "zip",
        REJECTED,
        _zip(
            [
                ("dup_content_list.json", _json(_items("first copy"))),
                ("dup_content_list.json", _json(_items("second copy"))),
            ]
        ),
        "twice",
    )
    add(
        "zip_truncated.zip",
        "zip",
        REJECTED,
        _zip([("t_content_list.json", _json(_items("truncated zip") * 50))])[:-40],
        "zip",
    )
    add("zip_not_a_zip.zip", "zip", REJECTED, b"PK\x03\x04 but not really", "not a valid zip")
    add(
        "zip_deep_json.zip",
        "zip",
        REJECTED,
        _zip([("deep_content_list.json", _deep_json(5000))]),
        "nested",
    )
    add(
        "zip_dots_member.zip",
        "zip",
        ANY,
        _zip(
            [
                (
                    "..json",
                    _json(
                        [
                            *_items("member named ..json"),
                            {"type": "image", "img_path": "images/a.png"},
                        ]
                    ),
                ),
                ("images/a.png", b"png"),
            ]
        ),
    )

    # -- names -----------------------------------------------------------------------------------
    add("n" * 240 + ".json", "name", INGESTED, _json(_items("a very long file name")))
    add(
        "تقرير_\u202ereport\u200b_content_list.json",
        "name",
        INGESTED,
        _json(_items("RTL and zero-width in the name")),
    )
    add(
        "my report  v2 (final)_content_list.json",
        "name",
        INGESTED,
        _json(_items("spaces in the name")),
    )
    add("UPPER_CASE.JSON", "name", INGESTED, _json(_items("upper-case suffix")))
    add(".json", "name", ANY, _json(_items("a name that is only the suffix")), on_disk=False)
    add("CON.json", "name", INGESTED, _json(_items("a reserved Windows device name")))
    add(
        "...json",
        "name",
        ANY,
        _json([*_items("a name of dots"), {"type": "image", "img_path": "x.png"}]),
    )
    add(
        "<script>alert(1)<",
        "name",
        REJECTED,
        _json(_items("no suffix")),
        "unsupported file type",
        on_disk=False,
    )

    # -- sizes -----------------------------------------------------------------------------------
    sentence = (
        "中芯国际在报告期内的产能利用率保持高位，先进制程收入占比持续提升，公司计划扩大资本开支。"
    )
    chinese = "\n\n".join(
        sentence + "".join(rng.choice("营收利润增长下降同比环比毛利率净利率") for _ in range(20))
        for _ in range(5 * 1024 * 1024 // (len(sentence.encode()) + 62))
    )
    add(
        "chinese_5mb.md",
        "size",
        REJECTED,
        ("# 巨型中文文本\n\n" + chinese).encode(),
        "max_chunks_per_document",
    )
    letters = "abcdefghijklmnopqrstuvwxyz0123456789"
    add(
        "spaceless_2mb.md",
        "size",
        ANY,
        "".join(rng.choice(letters) for _ in range(2 * 1024 * 1024)).encode(),
    )
    add("repeated_char_2mb.md", "size", ANY, b"x" * (2 * 1024 * 1024))
    add("empty.md", "size", REJECTED, b"", "empty")
    add("whitespace_only.md", "size", REJECTED, b" \n\t \r\n   \n", "empty")
    add("whitespace_only_content_list.json", "size", REJECTED, b"   \n  ", "empty")
    add(
        "over_limit_content_list.json",
        "size",
        REJECTED,
        b"[" + b" " * (33 * 1024 * 1024) + b"]",
        "limit",
    )
    return out


@functools.cache
def _catalogue() -> tuple[tuple[HostileCase, bytes], ...]:
    """Every case with its bytes, canaries last: made once per process (seconds of seeded
    random text; the cases and their bytes are immutable, so every caller gets the same)."""
    return tuple(_cases(random.Random(20250612)) + _canaries())


def hostile_catalogue(folder: Path) -> list[HostileCase]:
    """Write the hostile files and the canaries into ``folder``; returns every case, canaries last."""
    folder.mkdir(parents=True, exist_ok=True)
    cases = []
    for case, data in _catalogue():
        if case.on_disk:
            (folder / case.name).write_bytes(data)
        cases.append(case)
    return cases


def hostile_bytes() -> list[tuple[HostileCase, bytes]]:
    """Every case with its bytes, canaries last (for ingesting without a folder)."""
    return list(_catalogue())
