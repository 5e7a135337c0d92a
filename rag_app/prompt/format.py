"""How one retrieved chunk reads in the prompt, and how the sources are laid out together.

A source block is a label line, ``[Source N] (文件: name, 页: p)``, then a body that depends on
the chunk type: text with its heading path; a table as seed 000's enhanced table block (title,
shape, HTML content, data source, context, sub-table note); a figure with its title,
description and path. Blocks are grouped by type under 文本信息 / 表格数据 / 图片信息
(English: Text / Tables / Figures) and numbered in that final order.
"""

from __future__ import annotations

import functools
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from rag_app.models import Chunk, Hit
from rag_app.stage_settings import Language
from rag_app.text.language import is_plural
from rag_app.text.notes import note_mark, says_what_it_is, table_marks
from rag_app.text.table_rows import keep_rows, split_rows, table_shape

SEPARATOR = "\n\n---\n\n"  # between sources of one group (seed 001: "\n\n---\n\n")
GROUP_ORDER = ("text", "table", "image", "qa")  # seed 000: text, then tables, then figures


@dataclass(frozen=True)
class Labels:
    """Every fixed word of a source block, in one language."""

    file: str
    page: str
    pages: str
    section: str
    groups: Mapping[str, str]
    group_suffix: str
    table_title: str
    table_shape: str
    table_shape_value: str  # format with rows=, cols=
    table_header_rows: str  # header=, plural=
    table_content: str
    table_footnote: str
    table_notes: str
    table_context: str
    subtable: str
    subtable_one: str  # index=, count=
    subtable_merged: str  # indices=, count=
    subtable_all: str  # count=
    subtable_missing: str  # missing=
    list_sep: str
    figure_title: str
    figure_description: str
    figure_path: str
    text_cut: str
    table_cut: str  # shown=, total=
    table_excerpt: str  # shown=, total=
    text_excerpt: str  # shown=, total=


LABELS: dict[Language, Labels] = {
    "zh": Labels(
        file="文件",
        page="页",
        pages="页",
        section="章节",
        groups={"text": "文本信息", "table": "表格数据", "image": "图片信息", "qa": "问答资料"},
        group_suffix="：",
        table_title="表格标题",
        table_shape="表格结构",
        table_shape_value="{rows} 行 {cols} 列",
        table_header_rows="（含表头 {header} 行）",
        table_content="表格内容",
        table_footnote="数据来源",
        table_notes="表注",
        table_context="表格上下文",
        subtable="子表信息",
        subtable_one="这是原表（共 {count} 个子表）的第 {index} 个子表，其余子表未检索到",
        subtable_merged="由原表（共 {count} 个子表）的第 {indices} 个子表合并而成",
        subtable_all="由原表全部 {count} 个子表合并而成，是完整表格",
        subtable_missing="；第 {missing} 个子表未检索到",
        list_sep="、",
        figure_title="图片标题",
        figure_description="图片描述",
        figure_path="图片路径",
        text_cut="……（内容过长，以下已截断）",
        table_cut="（表格过长，仅列出前 {shown} 行，共 {total} 行）",
        table_excerpt="（节选：与问题相关的 {shown} 行，共 {total} 行）",
        text_excerpt="（节选：与问题相关的 {shown} 句，共 {total} 句）",
    ),
    "en": Labels(
        file="file",
        page="page",
        pages="pages",
        section="Section",
        groups={"text": "Text", "table": "Tables", "image": "Figures", "qa": "Q&A"},
        group_suffix=":",
        table_title="Table title",
        table_shape="Table structure",
        table_shape_value="{rows} rows × {cols} columns",
        table_header_rows=" (incl. {header} header row{plural})",
        table_content="Table content",
        table_footnote="Data source",
        table_notes="Notes",
        table_context="Table context",
        subtable="Sub-table",
        subtable_one="part {index} of {count} of a longer table; the other parts were not retrieved",
        subtable_merged="parts {indices} of {count} of one table, merged",
        subtable_all="all {count} parts of the table, merged into the complete table",
        subtable_missing="; parts {missing} were not retrieved",
        list_sep=", ",
        figure_title="Figure title",
        figure_description="Figure description",
        figure_path="Image path",
        text_cut="… (truncated)",
        table_cut="(Table truncated: the first {shown} of {total} rows are shown.)",
        table_excerpt="(Excerpt: {shown} of {total} rows, those related to the question.)",
        text_excerpt="(Excerpt: {shown} of {total} sentences, those related to the question.)",
    ),
}


@dataclass(frozen=True)
class Candidate:
    """A source that may enter the context: one hit, or the sub-tables of one table merged.

    ``hit.chunk`` is what is shown (the merged table for merged sub-tables); ``parts`` are the
    retrieved hits it stands for, in ``subtable_index`` order.
    """

    hit: Hit
    parts: tuple[Hit, ...]

    @property
    def chunk(self) -> Chunk:
        return self.hit.chunk


@dataclass(frozen=True)
class ContextEntry:
    """A candidate chosen for the context with the body it will show (cut or whole)."""

    candidate: Candidate
    body: str
    doc_name: str


@dataclass(frozen=True)
class ContextLayout:
    """The sources as they appear in the prompt: ``entries[i]`` is ``[Source i+1]``."""

    text: str
    entries: tuple[ContextEntry, ...]
    blocks: tuple[str, ...]  # each entry's block (label line + body), same order


def format_pages(pages: Sequence[int]) -> str:
    """Pages as a reader counts them: chunks keep MinerU's 0-based ``page_idx``, shown + 1."""
    ordered = sorted({p + 1 for p in pages})
    if not ordered:
        return ""
    if len(ordered) > 1 and ordered == list(range(ordered[0], ordered[-1] + 1)):
        return f"{ordered[0]}-{ordered[-1]}"
    return ", ".join(str(p) for p in ordered)


def source_label(number: int, chunk: Chunk, doc_name: str, lang: Language) -> str:
    """``[Source N] (文件: name, 页: p)``; the page part is left out when pages are unknown."""
    labels = LABELS[lang]
    parts = [f"{labels.file}: {doc_name}"]
    if chunk.pages:
        page_label = labels.pages if len(set(chunk.pages)) > 1 else labels.page
        parts.append(f"{page_label}: {format_pages(chunk.pages)}")
    return f"[Source {number}] ({', '.join(parts)})"


def _numbers(values: Sequence[int], sep: str) -> str:
    return sep.join(str(v) for v in values)


def subtable_note(candidate: Candidate, lang: Language) -> str:
    """What the model should know about a partial or merged table ("" for a whole table)."""
    labels = LABELS[lang]
    chunk = candidate.chunk
    indices = sorted({p.chunk.subtable_index for p in candidate.parts if p.chunk.subtable_index})
    count = max([chunk.subtable_count] + [p.chunk.subtable_count for p in candidate.parts])
    if not indices:
        return ""
    if len(indices) == 1:
        return labels.subtable_one.format(index=indices[0], count=count or "?")
    if count and indices == list(range(1, count + 1)):
        return labels.subtable_all.format(count=count)
    note = labels.subtable_merged.format(
        indices=_numbers(indices, labels.list_sep), count=count or "?"
    )
    missing = [i for i in range(1, count + 1) if i not in indices] if count else []
    if missing:
        note += labels.subtable_missing.format(missing=_numbers(missing, labels.list_sep))
    return note


def _heading_line(chunk: Chunk, labels: Labels) -> list[str]:
    path = [h for h in chunk.heading_path if h.strip()]
    return [f"{labels.section}: {' > '.join(path)}"] if path else []


@functools.lru_cache(maxsize=1024)  # the budget renders a table several times per prompt
def html_table_to_markdown(table_html: str) -> str:
    """A pipe table of an HTML table: spans expanded, multi-row headers joined per column.

    About 40% fewer tokens than the HTML for the same cells, so more evidence fits the budget
    (measured on tatqa_dev: answer_in_context@3000 rises with it; see docs/EVALUATION.md).
    """
    from rag_app.text.tables import column_labels, parse_table

    grid = parse_table(table_html)
    if not grid.rows:
        return ""

    def cell(text: str) -> str:
        return " ".join(text.split()).replace("|", "\\|")

    labels = column_labels(grid) if grid.header_rows else [""] * grid.n_cols
    lines = ["| " + " | ".join(cell(label) for label in labels) + " |", "|" + "---|" * grid.n_cols]
    lines += ["| " + " | ".join(cell(c) for c in row) + " |" for row in grid.data_rows]
    return "\n".join(lines)


def format_table_body(
    candidate: Candidate,
    lang: Language,
    max_rows: int | None = None,
    table_format: str = "markdown",
    with_context: bool = True,
    excerpt_rows: Collection[int] | None = None,
) -> str:
    """Seed 000's enhanced table block; with ``max_rows``, only the first rows and a note.

    ``table_format`` "markdown" renders the body as a pipe table, "html" as the parser's HTML
    (the seed's form). ``excerpt_rows`` makes it a question-focused excerpt: the header rows and the
    row segments with those indices (see ``prompt.excerpt``), and a note saying so.
    """
    labels = LABELS[lang]
    chunk = candidate.chunk
    lines = _heading_line(chunk, labels)
    if chunk.caption:
        lines.append(f"{labels.table_title}: {chunk.caption}")
    rows, cols = table_shape(chunk.table_html) if chunk.table_html else (0, 0)
    rows, cols = rows or chunk.n_rows, cols or chunk.n_cols
    if rows and cols and excerpt_rows is None:  # an excerpt's note says what it shows
        shape = labels.table_shape_value.format(rows=rows, cols=cols)
        if 0 < chunk.header_rows < rows:
            shape += labels.table_header_rows.format(
                header=chunk.header_rows, plural="s" if is_plural(chunk.header_rows) else ""
            )
        lines.append(f"{labels.table_shape}: {shape}")
    content = chunk.table_html.strip() or chunk.text.strip()
    cut_note = ""
    if max_rows is not None and chunk.table_html:
        parsed = split_rows(chunk.table_html)
        if parsed is not None and max_rows < len(parsed.segments):
            content = parsed.html(max_rows).strip()
            cut_note = labels.table_cut.format(shown=max_rows, total=len(parsed.segments))
    elif excerpt_rows is not None and chunk.table_html:
        header = min(max(1, chunk.header_rows), rows)
        content = keep_rows(chunk.table_html, header, set(excerpt_rows)).strip()
        shown = len([r for r in excerpt_rows if r >= header])
        cut_note = labels.table_excerpt.format(shown=shown, total=rows - header)
    if table_format == "markdown" and chunk.table_html:
        content = html_table_to_markdown(content) or content
    lines.append(f"{labels.table_content}:\n{content}")
    if cut_note:
        lines.append(cut_note)
    if chunk.footnote:
        # an excerpt keeps the notes of the rows it shows ("(2) ..." for "Customer costs(2)")
        body = content if excerpt_rows is not None else None
        lines.extend(footnote_lines(chunk.footnote, labels, body))
    if chunk.context and with_context:
        lines.append(f"{labels.table_context}: {chunk.context}")
    note = subtable_note(candidate, lang) if excerpt_rows is None else ""
    if note:
        lines.append(f"{labels.subtable}: {note}")
    return "\n".join(lines)


def footnote_lines(footnote: str, labels: Labels, shown: str | None = None) -> list[str]:
    """A table's footnote for the prompt: a line naming itself ("资料来源：Wind", "注：...") as it
    is, marked notes ("(1) Includes ...") under one notes label, anything else as the data
    source (what MinerU's ``table_footnote`` usually is). With ``shown`` (an excerpt's body),
    marked notes whose mark it does not carry are left out."""
    marks = table_marks(shown) if shown is not None else None
    named, marked, other = [], [], []
    for line in (part.strip() for part in footnote.split("\n")):
        if not line:
            continue
        mark = note_mark(line)
        if says_what_it_is(line):
            named.append(line)
        elif mark:
            if marks is None or mark in marks:
                marked.append(line)
        else:
            other.append(line)
    out = [f"{labels.table_footnote}: {line}" for line in other]
    if marked:
        out.append(f"{labels.table_notes}: " + "\n".join(marked))
    return out + named


def format_text_excerpt(
    chunk: Chunk, lang: Language, parts: Sequence[str], kept: Sequence[int]
) -> str:
    """A text source cut to the sentences ``parts[i]`` for ``i`` in ``kept`` (ascending): next
    sentences joined as they were, an ellipsis where sentences were left out."""
    labels = LABELS[lang]
    lines = _heading_line(chunk, labels)
    shown = ""
    for n, index in enumerate(kept):
        if n:
            shown += " " if index == kept[n - 1] + 1 else " … "
        shown += parts[index]
    lines.append(shown)
    lines.append(labels.text_excerpt.format(shown=len(kept), total=len(parts)))
    return "\n".join(lines)


def format_image_body(chunk: Chunk, lang: Language) -> str:
    labels = LABELS[lang]
    lines = _heading_line(chunk, labels)
    if chunk.caption:
        lines.append(f"{labels.figure_title}: {chunk.caption}")
    description = chunk.description.strip()
    if not description and chunk.text.strip() != chunk.caption.strip():
        description = chunk.text.strip()
    if description:
        lines.append(f"{labels.figure_description}: {description}")
    if chunk.image_path:
        lines.append(f"{labels.figure_path}: {chunk.image_path}")
    return "\n".join(lines)


def format_body(
    candidate: Candidate,
    lang: Language,
    table_format: str = "markdown",
    with_context: bool = True,
) -> str:
    """The block's body, without its ``[Source N]`` label line.

    ``with_context=False`` leaves out a table's introducing paragraph (used when that paragraph
    is already in the prompt as a source of its own)."""
    chunk = candidate.chunk
    if chunk.type == "table":
        return format_table_body(
            candidate, lang, table_format=table_format, with_context=with_context
        )
    if chunk.type == "image":
        return format_image_body(chunk, lang)
    lines = _heading_line(chunk, LABELS[lang]) if chunk.type == "text" else []
    lines.append(chunk.text.strip())
    return "\n".join(lines)


def format_source(number: int, entry: ContextEntry, lang: Language) -> str:
    label = source_label(number, entry.candidate.chunk, entry.doc_name, lang)
    return f"{label}\n{entry.body}"


def group_of(chunk: Chunk) -> str:
    return chunk.type if chunk.type in GROUP_ORDER else "text"


def layout_context(entries: Sequence[ContextEntry], lang: Language) -> ContextLayout:
    """Group entries by type (text, tables, figures, Q&A), keep their order within a group, and
    number them 1..N in the resulting order. ``entries`` come in score order."""
    labels = LABELS[lang]
    ordered: list[ContextEntry] = []
    groups: list[tuple[str, list[ContextEntry]]] = []
    for group in GROUP_ORDER:
        members = [e for e in entries if group_of(e.candidate.chunk) == group]
        if members:
            groups.append((group, members))
            ordered.extend(members)
    blocks = [format_source(i + 1, entry, lang) for i, entry in enumerate(ordered)]
    parts, start = [], 0
    for group, members in groups:
        heading = labels.groups[group] + labels.group_suffix
        parts.append(heading + "\n\n" + SEPARATOR.join(blocks[start : start + len(members)]))
        start += len(members)
    return ContextLayout("\n\n".join(parts), tuple(ordered), tuple(blocks))
