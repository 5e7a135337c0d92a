"""Items -> chunks: merging under headings, heading paths, item indices, pages, limits.

Besides hand-made documents, every real or authored content list is checked for the invariants
that evaluation and citations rely on (pages and item indices agree with the source list; no
page furniture; every content item lands in some chunk; text chunks stay within the limit).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from rag_app.ingest import ChunkingOptions, chunk_document, load_path
from rag_app.ingest.content_list import FURNITURE_TYPES
from rag_app.models import Document, Item
from tests.conftest import MINERU_FIXTURES, REPO_ROOT, SAMPLE_CONTENT_LIST, TEST_DATA


def _doc(items: list[Item], doc_id: str = "d") -> Document:
    return Document(
        doc_id=doc_id,
        name=f"{doc_id}.json",
        source_format="content_list",
        items=tuple(items),
        content_hash="x",
        size_bytes=1,
    )


def _heading(index: int, text: str, level: int, page: int | None = 0) -> Item:
    return Item(index=index, kind="heading", text=text, level=level, page=page)


def _text(index: int, text: str, page: int | None = 0) -> Item:
    return Item(index=index, kind="text", text=text, page=page)


def test_paragraphs_merge_under_a_heading_but_never_across_one(counter) -> None:  # type: ignore[no-untyped-def]
    items = [
        _heading(0, "1 公司概况", 1),
        _text(1, "第一段：公司成立于2000年。"),
        _text(2, "第二段：总部位于上海。", page=1),
        _heading(3, "1.1 营收", 2, page=1),
        _text(4, "第三段：营收创新高。", page=1),
        _heading(5, "1.2 结构", 2, page=2),
        _text(6, "第四段：消费电子占比提升。", page=2),
        _heading(7, "2 行业", 1, page=3),
        _text(8, "第五段：行业复苏。", page=3),
    ]
    chunks = chunk_document(_doc(items), counter)
    assert [c.text for c in chunks] == [
        "第一段：公司成立于2000年。\n第二段：总部位于上海。",
        "第三段：营收创新高。",
        "第四段：消费电子占比提升。",
        "第五段：行业复苏。",
    ]
    assert [c.item_indices for c in chunks] == [(0, 1, 2), (3, 4), (5, 6), (7, 8)]
    assert [c.pages for c in chunks] == [(0, 1), (1,), (2,), (3,)]
    assert [c.heading_path for c in chunks] == [
        ("1 公司概况",),
        ("1 公司概况", "1.1 营收"),
        ("1 公司概况", "1.2 结构"),
        ("2 行业",),
    ]
    for chunk in chunks:
        assert " > ".join(chunk.heading_path) in chunk.search_text
        assert chunk.search_text.endswith(chunk.text)
    assert [c.chunk_id for c in chunks] == ["d:x:0000", "d:x:0001", "d:x:0002", "d:x:0003"]


# Chunks the sample in a fresh interpreter and prints them as JSON: set and dict orders of
# strings follow PYTHONHASHSEED, so a run under another seed is what could come out different.
_CHUNK_THE_SAMPLE = textwrap.dedent(
    """
    import dataclasses, json, sys
    from pathlib import Path
    from rag_app.ingest import chunk_document, load_path
    from rag_app.text.tokens import get_token_counter

    doc = load_path(Path(sys.argv[1]), 10**9)[0].document
    chunks = chunk_document(doc, get_token_counter())
    print(json.dumps([dataclasses.asdict(c) for c in chunks], ensure_ascii=False))
    """
)


def test_chunking_is_deterministic_across_processes(counter) -> None:  # type: ignore[no-untyped-def]
    """Chunk ids are stable (``{doc_id}:{sha256[:8]}:{n}``) and the chunks are the same in every
    process, whatever the hash seed: re-ingesting a file must find the same chunks."""
    doc = load_path(SAMPLE_CONTENT_LIST, 10**9)[0].document
    chunks = chunk_document(doc, counter)
    digest = hashlib.sha256(SAMPLE_CONTENT_LIST.read_bytes()).hexdigest()[:8]
    assert [c.chunk_id for c in chunks] == [
        f"smic_report:{digest}:{n:04d}" for n in range(len(chunks))
    ]
    here = json.loads(json.dumps([dataclasses.asdict(c) for c in chunks], ensure_ascii=False))
    for seed in ("1", "2"):
        done = subprocess.run(
            [sys.executable, "-c", _CHUNK_THE_SAMPLE, str(SAMPLE_CONTENT_LIST)],
            env={**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(REPO_ROOT)},
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout) == here, f"chunks differ under PYTHONHASHSEED={seed}"


def test_short_paragraphs_fill_chunks_up_to_the_limit(counter) -> None:  # type: ignore[no-untyped-def]
    sentence = "公司坚持逆周期投资，产能扩张稳步推进。"
    items = [_heading(0, "3 产能扩张", 1)] + [
        _text(n, f"{n}号段落。{sentence}") for n in range(1, 31)
    ]
    limit = 60
    chunks = chunk_document(_doc(items), counter, ChunkingOptions(text_chunk_tokens=limit))
    assert len(chunks) > 3
    covered = [i for c in chunks for i in c.item_indices]
    assert covered == list(range(31))  # each item once, in order
    for chunk in chunks:
        assert counter.count(chunk.text) <= limit + 1  # +1: the joining newline
        assert chunk.heading_path == ("3 产能扩张",)


def test_chinese_text_merges_to_a_longer_limit_than_english(counter) -> None:  # type: ignore[no-untyped-def]
    """The limit is what the embedder reads whole: e5 reads about twice as many cl100k tokens of
    Chinese as of English, so Chinese paragraphs merge up to ``text_chunk_tokens`` and English
    ones only up to ``latin_text_chunk_tokens``."""
    options = ChunkingOptions(text_chunk_tokens=200, latin_text_chunk_tokens=100)
    zh = [
        _text(n, f"第{n}段：公司坚持逆周期投资，产能扩张稳步推进，利用率回升。") for n in range(40)
    ]
    en = [
        _text(n, f"Paragraph {n}: capacity expansion continued and utilisation recovered.")
        for n in range(40)
    ]
    zh_chunks = chunk_document(_doc(zh), counter, options)
    en_chunks = chunk_document(_doc(en), counter, options)
    assert max(counter.count(c.text) for c in zh_chunks) > 150
    assert all(counter.count(c.text) <= 201 for c in zh_chunks)
    assert all(counter.count(c.text) <= 101 for c in en_chunks)
    assert max(counter.count(c.text) for c in en_chunks) > 75
    # an English limit above the Chinese one is not used
    wide = ChunkingOptions(text_chunk_tokens=100, latin_text_chunk_tokens=300)
    assert all(counter.count(c.text) <= 101 for c in chunk_document(_doc(en), counter, wide))


def test_long_paragraph_is_split_at_sentences_within_the_limit(counter) -> None:  # type: ignore[no-untyped-def]
    sentences = [f"第{n}句话讨论了晶圆代工行业的产能利用率变化。" for n in range(40)]
    long = "".join(sentences)
    items = [_heading(0, "长段落", 1, page=3), _text(1, long, page=3)]
    limit = 80
    chunks = chunk_document(_doc(items), counter, ChunkingOptions(text_chunk_tokens=limit))
    assert len(chunks) > 2
    assert all(counter.count(c.text) <= limit for c in chunks)
    assert all(counter.count(c.text) > limit // 2 for c in chunks[:-1])  # sentences are packed
    assert "".join(c.text for c in chunks) == long  # nothing lost or repeated
    assert all(1 in c.item_indices and c.pages == (3,) for c in chunks)
    assert chunks[0].item_indices == (0, 1)  # the heading goes with the first piece
    # pieces end at sentence ends
    assert all(c.text.endswith("。") for c in chunks)


def test_unbreakable_text_is_cut_hard(counter) -> None:  # type: ignore[no-untyped-def]
    blob = "x" * 5000
    chunks = chunk_document(_doc([_text(0, blob)]), counter, ChunkingOptions(text_chunk_tokens=100))
    assert len(chunks) > 1
    assert all(counter.count(c.text) <= 100 for c in chunks)
    assert "".join(c.text for c in chunks) == blob


def test_image_chunk_carries_caption_description_footnote(counter) -> None:  # type: ignore[no-untyped-def]
    items = [
        _heading(0, "4 先进制程", 1, page=4),
        _text(1, "公司特色工艺多点开花。", page=4),
        Item(
            index=2,
            kind="image",
            page=4,
            caption=("图3：季度营收及增速",),
            footnote=("数据来源：Wind",),
            description="柱状图为2023Q1至2024Q4季度营收。",
            image_path="images/c.png",
        ),
    ]
    chunks = chunk_document(_doc(items), counter)
    image = chunks[-1]
    assert image.type == "image" and image.item_indices == (2,) and image.pages == (4,)
    assert image.text == "图3：季度营收及增速\n柱状图为2023Q1至2024Q4季度营收。\n数据来源：Wind"
    assert image.caption == "图3：季度营收及增速" and image.footnote == "数据来源：Wind"
    assert image.description == "柱状图为2023Q1至2024Q4季度营收。"
    assert image.image_path == "images/c.png" and image.context == "公司特色工艺多点开花。"
    assert "4 先进制程" in image.search_text and "柱状图" in image.search_text


def test_untitled_image_is_found_by_the_paragraph_before_it(counter) -> None:  # type: ignore[no-untyped-def]
    items = [
        _text(0, "下图展示了公司产线分布。"),
        Item(index=1, kind="image", image_path="images/x.png"),
    ]
    image = chunk_document(_doc(items), counter)[-1]
    assert image.text == "(图片，无标题)"
    assert "下图展示了公司产线分布。" in image.search_text


def test_qa_chunk(counter) -> None:  # type: ignore[no-untyped-def]
    item = Item(
        index=0,
        kind="qa",
        text="血压多少算高？",
        description="收缩压≥140即偏高。",
        fields=(
            ("category", "qa_examples"),
            ("tags", "健康咨询,高血压"),
            ("quality_grade", "优秀"),
            ("row", "2"),
        ),
    )
    (chunk,) = chunk_document(_doc([item]), counter)
    assert chunk.type == "qa" and chunk.item_indices == (0,)
    assert chunk.text == "问：血压多少算高？\n答：收缩压≥140即偏高。"
    assert "血压多少算高？" in chunk.search_text and "收缩压≥140即偏高。" in chunk.search_text
    assert "健康咨询,高血压" in chunk.search_text
    assert chunk.field("quality_grade") == "优秀" and chunk.heading_path == ("qa_examples",)


def test_tatqa_like_fixture(counter) -> None:  # type: ignore[no-untyped-def]
    path = TEST_DATA / "tatqa_like_content_list.json"
    raw = json.loads(path.read_text(encoding="utf-8"))
    loaded = load_path(path, 10**9)[0]
    assert loaded.document.doc_id == "tatqa_like"
    chunks = chunk_document(loaded.document, counter)
    by_type = {t: [c for c in chunks if c.type == t] for t in ("text", "table", "image")}
    assert [c.item_indices for c in by_type["text"]] == [(1, 2), (4,), (7, 8)]
    assert [c.item_indices for c in by_type["table"]] == [(3,)]
    assert [c.item_indices for c in by_type["image"]] == [(11,)]
    cash = by_type["text"][2]
    assert cash.heading_path == ("Item 7. Management's Discussion and Analysis", "Liquidity")
    assert cash.pages == (1,)
    image = by_type["image"][0]
    assert image.caption == "Figure 2: Revenue mix 2019"
    assert image.description == raw[11]["content"]
    assert image.footnote == "Source: internal management accounts"
    furniture = {i for i, e in enumerate(raw) if e["type"] in FURNITURE_TYPES}
    assert furniture == {0, 5, 6, 9, 10, 12}
    for chunk in chunks:
        assert not furniture & set(chunk.item_indices)
        for i in furniture - {5}:  # "12", the page number, is also part of a table value
            assert raw[i]["text"] not in chunk.search_text
    assert 13 not in {i for c in chunks for i in c.item_indices}  # empty text item


# -- invariants over every document we have -----------------------------------------------------

_DOCS = [
    ("sample", SAMPLE_CONTENT_LIST),
    ("tatqa_like", TEST_DATA / "tatqa_like_content_list.json"),
    ("demo1", MINERU_FIXTURES / "demo1_hydrology_paper_v0.10" / "demo1_content_list.json"),
    ("svolt", MINERU_FIXTURES / "svolt_battery_datasheet_zh_en" / "svolt_content_list.json"),
    ("aaai26", MINERU_FIXTURES / "aaai26_paper_en" / "aaai26_content_list.json"),
] + [(p.stem, p) for p in sorted((REPO_ROOT / "assets" / "broker_eval" / "docs").glob("*.json"))]


@pytest.mark.parametrize("path", [p for _, p in _DOCS], ids=[n for n, _ in _DOCS])
def test_chunk_invariants(path: Path, counter) -> None:  # type: ignore[no-untyped-def]
    if not path.exists():
        pytest.skip(f"{path} not found (shared eval fixtures absent)")
    raw = json.loads(path.read_text(encoding="utf-8"))
    doc = load_path(path, 10**9)[0].document
    options = ChunkingOptions()
    chunks = chunk_document(doc, counter, options)
    assert chunks
    assert len({c.chunk_id for c in chunks}) == len(chunks)
    covered: set[int] = set()
    for chunk in chunks:
        assert chunk.doc_id == doc.doc_id and chunk.chunk_id.startswith(doc.doc_id + ":")
        assert chunk.item_indices == tuple(sorted(set(chunk.item_indices)))
        for i in chunk.item_indices:
            assert raw[i]["type"] not in FURNITURE_TYPES
        # a chunk's pages are exactly the pages of the items it was built from
        assert chunk.pages == tuple(sorted({raw[i]["page_idx"] for i in chunk.item_indices}))
        if chunk.type == "text":
            assert counter.count(chunk.text) <= options.text_chunk_tokens + 8
        assert chunk.text.strip()
        covered.update(chunk.item_indices)
    # every item with content reaches some chunk (headings via the chunk that follows them)
    content = {
        i
        for i, e in enumerate(raw)
        if e["type"] not in FURNITURE_TYPES
        and not (e["type"] == "text" and not str(e.get("text", "")).strip())
    }
    assert content - covered == set()


def _table(
    index: int, rows: list[list[str]], page: int | None = 0, footnote: tuple[str, ...] = ()
) -> Item:
    body = (
        "<table>"
        + "".join("<tr>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>" for row in rows)
        + "</table>"
    )
    return Item(index=index, kind="table", table_body=body, page=page, footnote=footnote)


def test_a_tables_notes_join_it_and_other_paragraphs_do_not(counter) -> None:  # type: ignore[no-untyped-def]
    rows = [
        ["", "2019", "2018"],
        ["Recorded investment (1)", "$22,446", "$31,182"],
        ["Other(2)", "(3)", "(1)"],
        ["Total", "22,443", "31,181"],
    ]
    items = [
        _text(0, "The following table presents financing receivables:"),
        _table(1, rows, footnote=("Source: company filings",)),
        _text(2, "(1) Includes deferred initial direct costs."),
        _text(3, "(2) Represents the write-off of certain spare parts."),
        _text(4, "(3) Not a note: the table has no such mark, only a negative number."),
        _text(5, "Receivables fell in 2019."),
    ]
    chunks = chunk_document(_doc(items), counter)
    table = next(c for c in chunks if c.type == "table")
    assert table.item_indices == (1, 2, 3)
    assert table.footnote.split("\n") == [
        "Source: company filings",
        "(1) Includes deferred initial direct costs.",
        "(2) Represents the write-off of certain spare parts.",
    ]
    assert "write-off of certain spare parts" in table.search_text  # found by "What is Other?"
    rest = [c for c in chunks if c.type == "text"]
    assert [c.item_indices for c in rest] == [(0,), (4, 5)]

    # A note word joins without a mark; a note on another page, or after other text, does not.
    items = [
        _table(0, [["指标", "2024A"], ["营业收入", "4.6"]]),
        _text(1, "注：2024A为公司公告数据。"),
        _table(2, [["", "2019"], ["Other (1)", "5"]]),
        _text(3, "(1) Represents other items.", page=1),
    ]
    chunks = chunk_document(_doc(items), counter)
    assert [c.item_indices for c in chunks] == [(0, 1), (2,), (3,)]
    assert chunks[0].footnote == "注：2024A为公司公告数据。"


def test_table_notes_are_capped_and_follow_every_part_of_a_split_table(counter) -> None:  # type: ignore[no-untyped-def]
    rows = [["Item", "2019"]] + [[f"Segment {n} revenue (1)", str(n)] for n in range(60)]
    items = [
        _table(0, rows),
        _text(1, "(1) Restated for the adoption of the new standard."),
        _text(2, "Note: " + "long explanation " * 300),
    ]
    options = ChunkingOptions(table_chunk_tokens=150)
    chunks = chunk_document(_doc(items), counter, options)
    parts = [c for c in chunks if c.type == "table"]
    assert len(parts) > 1
    assert all(p.footnote == "(1) Restated for the adoption of the new standard." for p in parts)
    assert all(p.item_indices == (0, 1) for p in parts)
    assert chunks[-1].type == "text" and chunks[-1].item_indices == (2,)  # over the cap


def test_the_text_chunk_limit_follows_the_documents_language() -> None:
    # One language rule for the house (rag_app.text.language.cjk_share): kana count as CJK and
    # "company's" is one word, so a Japanese note is chunked like Chinese, not like English.
    from rag_app.ingest.chunking import _text_limit

    options = ChunkingOptions(text_chunk_tokens=700, latin_text_chunk_tokens=400)
    japanese = _doc([Item(index=0, kind="text", text="これは日本語のテキストです。" * 3)])
    english = _doc([Item(index=0, kind="text", text="The company's revenue grew. " * 3)])
    mixed = _doc([Item(index=0, kind="text", text="营业收入增长 it's the company's fab's")])
    assert _text_limit(japanese, options) == 700
    assert _text_limit(english, options) == 400
    assert _text_limit(mixed, options) == 700  # 6 CJK characters against 4 Latin words
