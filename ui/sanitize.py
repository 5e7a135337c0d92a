"""Making document content safe to render with ``st.markdown(..., unsafe_allow_html=True)``.

Documents come from users' uploads: a table body is HTML written by a parser (or by anyone), and
plain text may contain ``<script>``. Tables go through nh3 with an allowlist of table tags and
only ``colspan``/``rowspan``; everything else is escaped, never trusted.
"""

from __future__ import annotations

import html
import re

import nh3

# Table structure, plus the few inline tags parsers put in cells (units in <sup>/<sub>, line
# breaks, emphasis). No links, no images, no styles, no classes, no ids.
TABLE_TAGS = frozenset(
    {
        "table",
        "caption",
        "colgroup",
        "col",
        "thead",
        "tbody",
        "tfoot",
        "tr",
        "th",
        "td",
        "br",
        "sub",
        "sup",
        "b",
        "strong",
        "i",
        "em",
    }
)
TABLE_ATTRIBUTES = {"td": {"colspan", "rowspan"}, "th": {"colspan", "rowspan"}}
# A span larger than this is a parser error, not a layout; browsers cap spans too (65534 rows).
MAX_SPAN = 1000
_DIGITS = re.compile(r"^\s*(\d{1,4})\s*$")


def _keep_spans(tag: str, attribute: str, value: str) -> str | None:
    match = _DIGITS.match(value)
    if attribute in ("colspan", "rowspan") and match and 1 <= int(match.group(1)) <= MAX_SPAN:
        return match.group(1)
    return None


def sanitize_table_html(table_html: str) -> str:
    """``table_html`` reduced to inert table markup on one line.

    Script and style elements are removed with their content; event handlers, styles, links
    (``javascript:`` or any other) and unknown tags are dropped, their text kept and escaped.
    Newlines become spaces so Markdown never resumes inside the table.
    """
    cleaned = nh3.clean(
        table_html or "",
        tags=set(TABLE_TAGS),
        attributes={tag: set(attrs) for tag, attrs in TABLE_ATTRIBUTES.items()},
        attribute_filter=_keep_spans,
        url_schemes=set(),
        strip_comments=True,
        link_rel=None,
    )
    return re.sub(r"\s*\n\s*", " ", cleaned).strip()


def escape_text(text: str) -> str:
    """Plain text as HTML that renders exactly as written (no tags, no Markdown, no math).

    ``$`` is escaped too, so ``US$5 and US$6`` is not read as LaTeX; lines join with ``<br>``
    so a blank line cannot end the HTML block and let Markdown resume.
    """
    escaped = html.escape(text or "", quote=True).replace("$", "&#36;")
    escaped = escaped.replace("[", "&#91;").replace("]", "&#93;")
    return "<br>".join(escaped.splitlines())


_CODE = re.compile(r"(```.*?(?:```|\Z)|`[^`\n]+`)", re.S)


def escape_markdown_text(text: str) -> str:
    """An answer's Markdown made safe to render: ``<`` escaped (outside code) and ``$`` escaped
    so prices are not typeset as math. Markdown itself (lists, bold, tables) keeps working."""
    parts = _CODE.split(text or "")
    for i in range(0, len(parts), 2):  # even parts are outside code
        parts[i] = parts[i].replace("<", "&lt;").replace("$", "\\$")
    return "".join(parts)


def escape_label(text: str) -> str:
    """Text shown as written inside Markdown (an expander label, a bold heading, a sentence
    quoted from a document): every Markdown-active character backslash-escaped, ``&`` too so
    an entity such as ``&amp;`` is not decoded."""
    return re.sub(r"([\\`*_\[\]<>#|$~&])", r"\\\1", text or "")
