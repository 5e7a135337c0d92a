"""Items -> Chunks: the units that are embedded, keyword-indexed, retrieved and cited.

Rules, and why:
- Text: consecutive paragraphs under one heading merge up to ``text_chunk_tokens``, never across
  a heading, because a heading change is a topic change and a chunk should answer one thing. The
  heading path goes into the searched text: a paragraph under "风险提示" is about risks even when
  it does not say so. The limit is as much text as the embedder reads whole: e5's window is 512
  of its own tokens, which is about 880 cl100k tokens of Chinese (e5/cl100k = 0.57 on crud_zh)
  but only about 440 of English (1.14 on tatqa), so Chinese text merges up to 700 and other
  text up to ``latin_text_chunk_tokens`` (400). Passages that long keep a question's topic and
  its answer together: in Chinese news, half of the top-1 misses with 350-token chunks were the
  right article's neighbouring paragraph (crud_zh_dev recall@1 0.735 -> 0.84 at 700, and the
  budget-bound answer_in_context rose too, 0.975 -> 0.98; tatqa and broker unchanged).
- Tables: one chunk per table, carrying caption, size, HTML body (display), a linearised form
  (each value next to its column header: what embeddings and keywords can use), footnote
  (数据来源) and the paragraph that introduces it (seed 000's enhanced table info). A table over
  ``table_chunk_tokens`` is split by rows into sub-tables that repeat the header rows as drawn
  (spans kept) and carry ``parent_table_id``/``subtable_index`` so the prompt can merge them back.
- Table notes travel with their table: paragraphs right after a table, on its page, that are its
  notes ("(1) Includes deferred costs ..." for a row "Recorded investment (1)", "注：...",
  "资料来源：...") join the table's footnote, searched text and items. Apart, the table says
  "Other (1)" and the paragraph "(1) Represents the write-off of spare parts", and neither is
  found for "What do Other items represent?"; a numbered note joins only a table that carries
  its mark.
- Images: caption, footnote, the parser's description, heading path and image path; a figure is
  often known only by its caption and description, so those are what is searched.
- Q&A rows: question and answer embedded together (seed 003: user_input + agent_response).
Every chunk keeps the indices of the items it was built from (evaluation and citations).

Cost: a document is refused (IngestError) when it would make more than ``max_chunks_per_document``
chunks, estimated from its size before any chunking and counted after; chunking itself is linear
in the text (an over-long paragraph is cut in windows, never re-counted whole).
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any

from rag_app.config import Settings
from rag_app.ingest.cost import estimate_chunks, too_many
from rag_app.ingest.errors import IngestError
from rag_app.models import Chunk, Document, Item
from rag_app.protocols import TokenCounter
from rag_app.text.language import cjk_share
from rag_app.text.notes import is_table_note, table_marks
from rag_app.text.sentences import sentence_pieces
from rag_app.text.subjects import PATH_SEPARATOR
from rag_app.text.tables import (
    Grid,
    TableTooLarge,
    column_labels,
    grid_to_html,
    linearise,
    linearise_row,
    parse_table,
)

_TEXTUAL = frozenset({"text", "list", "equation", "code"})


@dataclass(frozen=True)
class ChunkingOptions:
    """The chunker's knobs: the fields of ``Settings`` of the same names, whose defaults (and
    notes on where they come from) these are; ``from_settings`` takes a Settings' values."""

    text_chunk_tokens: int = Settings.text_chunk_tokens
    latin_text_chunk_tokens: int = Settings.latin_text_chunk_tokens
    table_chunk_tokens: int = Settings.table_chunk_tokens
    context_chars: int = Settings.context_chars
    table_note_tokens: int = Settings.table_note_tokens
    # Past it a document is refused before it is embedded; 0: no limit.
    max_chunks_per_document: int = Settings.max_chunks_per_document

    @classmethod
    def from_settings(cls, settings: Settings) -> ChunkingOptions:
        return cls(**{f.name: getattr(settings, f.name) for f in fields(cls)})


def chunk_document(
    doc: Document, counter: TokenCounter, options: ChunkingOptions = ChunkingOptions()
) -> list[Chunk]:
    """Chunk a Document's items in reading order; ids ``{doc_id}:{hash8}:{n}`` are stable.

    Raises IngestError naming the document when it would make more than
    ``options.max_chunks_per_document`` chunks (estimated first from its size, so a file far over
    the limit costs no chunking; counted after chunking otherwise) or holds a table too large to
    read (naming the item).
    """
    builder = _Builder(doc, counter, options)
    limit = options.max_chunks_per_document
    if limit > 0:
        estimate = estimate_chunks(doc, builder.text_limit, options.table_chunk_tokens)
        # Refused unchunked only when clearly over: near the limit, the count after decides.
        if estimate > limit * 1.25:
            raise too_many(doc, estimate, limit, estimated=True)
    for item in doc.items:
        builder.add(item)
    builder.flush()
    if 0 < limit < len(builder.chunks):
        raise too_many(doc, len(builder.chunks), limit, estimated=False)
    return builder.chunks


def _text_limit(doc: Document, options: ChunkingOptions) -> int:
    """The document's text chunk limit: Chinese when its CJK characters outnumber Latin words."""
    text = " ".join(item.text for item in doc.items if item.kind in _TEXTUAL)
    share = cjk_share(text)
    if share is None or share >= 0.5:
        return options.text_chunk_tokens
    return min(options.text_chunk_tokens, options.latin_text_chunk_tokens)


class _Builder:
    def __init__(self, doc: Document, counter: TokenCounter, options: ChunkingOptions) -> None:
        self.doc = doc
        self.counter = counter
        self.options = options
        self.chunks: list[Chunk] = []
        self.path: list[tuple[int, str]] = []  # (level, heading text)
        self.pending_headings: list[Item] = []  # heading items not yet in any chunk
        self.buffer: list[Item] = []
        self.buffer_tokens = 0
        self.last_paragraph = ""
        self.title = document_title(doc)
        self.text_limit = _text_limit(doc, options)
        self.open_table: _OpenTable | None = None  # the table notes may still join

    # -- helpers ---------------------------------------------------------------------------------
    def _next_id(self) -> str:
        # The content hash makes a new version's ids differ from the old one's, so replacing a
        # document can write the new vectors before the old ones go (no overwrite, no gap).
        return f"{self.doc.doc_id}:{self.doc.content_hash[:8]}:{len(self.chunks):04d}"

    def _heading_path(self) -> tuple[str, ...]:
        return tuple(text for _, text in self.path)

    def _take_headings(self) -> tuple[tuple[int, ...], tuple[int, ...]]:
        indices = tuple(h.index for h in self.pending_headings)
        pages = tuple(h.page for h in self.pending_headings if h.page is not None)
        self.pending_headings = []
        return indices, pages

    def _search_prefix(self) -> str:
        """Document title and heading path: look-alike tables (every report has a 盈利预测)
        differ by the company the report is about, which only the title says."""
        path = self._heading_path()
        if self.title and (not path or path[0] != self.title):
            path = (self.title, *path)
        return PATH_SEPARATOR.join(path) + "\n" if path else ""

    # -- items -----------------------------------------------------------------------------------
    def add(self, item: Item) -> None:
        if self.open_table is not None:
            if item.kind in _TEXTUAL and self._take_note(item):
                return
            self.open_table = None
        if item.kind == "heading":
            self.flush()
            while self.path and self.path[-1][0] >= item.level:
                self.path.pop()
            self.path.append((item.level, item.text))
            self.pending_headings.append(item)
            self.last_paragraph = ""
        elif item.kind in _TEXTUAL:
            self._add_text(item)
        elif item.kind == "table":
            self.flush()
            self._add_table(item)
        elif item.kind == "image":
            self.flush()
            self._add_image(item)
        elif item.kind == "qa":
            self.flush()
            self._add_qa(item)

    def _add_text(self, item: Item) -> None:
        tokens = self.counter.count(item.text)
        limit = self.text_limit
        if tokens > limit:
            self.flush()
            for piece in _split_long(item.text, self.counter, limit):
                self.buffer, self.buffer_tokens = [Item(**{**item.__dict__, "text": piece})], 0
                self.flush()
        else:
            if self.buffer and self.buffer_tokens + tokens > limit:
                self.flush()
            self.buffer.append(item)
            self.buffer_tokens += tokens
        self.last_paragraph = item.text

    def flush(self) -> None:
        if not self.buffer:
            return
        heading_indices, heading_pages = self._take_headings()
        body = "\n".join(item.text for item in self.buffer)
        indices = tuple(sorted(set(heading_indices + tuple(i.index for i in self.buffer))))
        pages = _pages(heading_pages + tuple(i.page for i in self.buffer if i.page is not None))
        self.chunks.append(
            Chunk(
                chunk_id=self._next_id(),
                doc_id=self.doc.doc_id,
                type="text",
                text=body,
                search_text=self._search_prefix() + body,
                item_indices=indices,
                pages=pages,
                heading_path=self._heading_path(),
            )
        )
        self.buffer, self.buffer_tokens = [], 0

    def _context(self) -> str:
        text = self.last_paragraph.strip()
        limit = self.options.context_chars
        return text if len(text) <= limit else text[:limit] + "…"

    def _add_table(self, item: Item) -> None:
        first = len(self.chunks)
        self._add_table_chunks(item)
        self.open_table = _OpenTable(
            first=first,
            page=item.page,
            marks=table_marks(item.table_body or item.text),
            tokens=self.counter.count(" ".join(item.footnote)),
        )

    def _take_note(self, item: Item) -> bool:
        """Join ``item`` to the open table's chunks when it is one of the table's notes."""
        table = self.open_table
        assert table is not None
        text = item.text.strip()
        if (item.page is not None and table.page is not None and item.page != table.page) or (
            not is_table_note(text, table.marks)
        ):
            return False
        tokens = self.counter.count(text)
        if table.tokens + tokens > self.options.table_note_tokens:
            return False
        table.tokens += tokens
        for n in range(table.first, len(self.chunks)):
            chunk = self.chunks[n]
            footnote = f"{chunk.footnote}\n{text}" if chunk.footnote else text
            self.chunks[n] = replace(
                chunk,
                footnote=footnote,
                search_text=f"{chunk.search_text}\n{text}",
                item_indices=tuple(sorted({*chunk.item_indices, item.index})),
            )
        return True

    def _add_table_chunks(self, item: Item) -> None:
        heading_indices, heading_pages = self._take_headings()
        caption = " ".join(item.caption)
        footnote = " ".join(item.footnote)
        try:
            grid = parse_table(item.table_body, strict=True)
        except TableTooLarge as exc:
            raise IngestError(f"{self.doc.name}: item {item.index}: {exc}") from None
        pages = _pages(heading_pages + ((item.page,) if item.page is not None else ()))
        indices = tuple(sorted(set(heading_indices + (item.index,))))
        base: dict[str, Any] = dict(
            doc_id=self.doc.doc_id,
            type="table",
            item_indices=indices,
            pages=pages,
            heading_path=self._heading_path(),
            caption=caption,
            footnote=footnote,
            context=self._context(),
            image_path=item.image_path,
            n_rows=grid.n_rows,
            n_cols=grid.n_cols,
            header_rows=grid.header_rows,
        )
        prefix = self._search_prefix() + (caption + "\n" if caption else "")
        suffix = "\n" + footnote if footnote else ""
        if grid.n_rows == 0:
            # No body (table recognition off, or an image of a table): caption and footnote only.
            text = "\n".join(p for p in (caption, item.text, footnote) if p) or "(表格内容未识别)"
            self.chunks.append(
                Chunk(
                    chunk_id=self._next_id(),
                    text=text,
                    search_text=prefix + text,
                    table_html="",
                    **base,
                )
            )
            return
        linear = linearise(grid)
        groups = _row_groups(grid, self.counter, self.options.table_chunk_tokens)
        if len(groups) == 1:
            self.chunks.append(
                Chunk(
                    chunk_id=self._next_id(),
                    text=linear,
                    search_text=prefix + linear + suffix,
                    table_html=item.table_body,
                    **base,
                )
            )
            return
        parent = f"{self.doc.doc_id}#table{item.index}"
        labels = column_labels(grid)
        head_line = " | ".join(label for label in labels if label)
        for n, rows in enumerate(groups, start=1):
            part = "\n".join([head_line] + [linearise_row(grid.rows[r], labels) for r in rows])
            self.chunks.append(
                Chunk(
                    chunk_id=self._next_id(),
                    text=part,
                    search_text=prefix + part + suffix,
                    # The header as the document draws it (spans kept), then this part's rows.
                    table_html=grid_to_html(grid, rows),
                    parent_table_id=parent,
                    subtable_index=n,
                    subtable_count=len(groups),
                    **{**base, "n_rows": len(rows) + grid.header_rows},
                )
            )

    def _add_image(self, item: Item) -> None:
        heading_indices, heading_pages = self._take_headings()
        caption = " ".join(item.caption)
        footnote = " ".join(item.footnote)
        context = self._context()
        shown = [p for p in (caption, item.description, footnote) if p]
        text = "\n".join(shown) or "(图片，无标题)"
        # A figure with neither caption nor description is found only by what introduces it.
        searched = "\n".join(shown) if caption or item.description else "\n".join([context, *shown])
        self.chunks.append(
            Chunk(
                chunk_id=self._next_id(),
                doc_id=self.doc.doc_id,
                type="image",
                text=text,
                search_text=self._search_prefix() + searched,
                item_indices=tuple(sorted(set(heading_indices + (item.index,)))),
                pages=_pages(heading_pages + ((item.page,) if item.page is not None else ())),
                heading_path=self._heading_path(),
                caption=caption,
                footnote=footnote,
                context=context,
                description=item.description,
                image_path=item.image_path,
            )
        )

    def _add_qa(self, item: Item) -> None:
        text = f"问：{item.text}\n答：{item.description}"
        tags = dict(item.fields).get("tags", "")
        self.chunks.append(
            Chunk(
                chunk_id=self._next_id(),
                doc_id=self.doc.doc_id,
                type="qa",
                text=text,
                search_text=f"{item.text} {item.description}" + (f"\n{tags}" if tags else ""),
                item_indices=(item.index,),
                heading_path=(dict(item.fields).get("category", ""),),
                fields=item.fields,
            )
        )


@dataclass
class _OpenTable:
    """The last table added, while the paragraphs after it may be its notes."""

    first: int  # its first chunk's position
    page: int | None
    marks: frozenset[str]  # note marks its cells carry: "1" for "Other (1)", "*", "a"
    tokens: int  # notes taken in so far


def document_title(doc: Document) -> str:
    """The first top-level heading (else the first heading) of a document, at most 80 chars."""
    headings = [i for i in doc.items if i.kind == "heading" and i.text]
    if not headings:
        return ""
    top = min(h.level for h in headings)
    title = next(h.text for h in headings if h.level == top)
    return title[:80]


def _pages(pages: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(sorted(set(pages)))


def _row_groups(grid: Grid, counter: TokenCounter, limit: int) -> list[tuple[int, ...]]:
    """Data rows (their indices in ``grid.rows``) grouped so that each group's linearised text
    stays within ``limit`` tokens."""
    labels = column_labels(grid)
    header_cost = counter.count(" | ".join(labels))
    groups: list[list[int]] = [[]]
    used = header_cost
    for r in range(grid.header_rows, grid.n_rows):
        cost = counter.count(linearise_row(grid.rows[r], labels)) + 1
        if groups[-1] and used + cost > limit:
            groups.append([])
            used = header_cost
        groups[-1].append(r)
        used += cost
    return [tuple(g) for g in groups if g] or [()]


def _split_long(text: str, counter: TokenCounter, limit: int) -> list[str]:
    """Split an over-long paragraph at sentence ends (then hard cuts) into pieces within limit.

    A sentence over the limit is cut from a window at its start, never counted whole again:
    2 MB without a sentence end took minutes when each cut re-counted all that was left.
    """
    pieces: list[str] = []
    current = ""
    for sentence in sentence_pieces(text):
        start = 0
        while (window := _over_limit(sentence, start, counter, limit)) is not None:
            head = counter.truncate(window, limit)
            if not head:
                break
            if current:
                pieces.append(current)
                current = ""
            pieces.append(head)
            start += len(head)
        rest = sentence[start:]
        if current and counter.count(current + rest) > limit:
            pieces.append(current)
            current = ""
        current += rest
    if current.strip():
        pieces.append(current)
    return [p.strip() for p in pieces if p.strip()]


def _over_limit(sentence: str, start: int, counter: TokenCounter, limit: int) -> str | None:
    """A window of ``sentence`` from ``start`` holding more than ``limit`` tokens, or None when
    all the rest fits. Windows start at 4 characters a token (English prose packs about 3.5,
    Chinese under 1) and double for text that packs more (runs of spaces, a letter repeated);
    small windows matter, as a run of letters is one piece that cl100k merges in quadratic time."""
    size = max(1, limit) * 4
    while True:
        window = sentence[start : start + size]
        if counter.count(window) > limit:
            return window
        if start + size >= len(sentence):
            return None
        size *= 2
