"""Document HTML and text are made inert before the UI renders them with unsafe_allow_html."""

from __future__ import annotations

import pytest

from ui.render_citations import answer_markdown
from ui.render_sources import highlight_html, highlight_table
from ui.sanitize import escape_markdown_text, escape_text, sanitize_table_html

SPANNED = (
    '<table><tr><td rowspan="2">项目</td><td colspan="3">实际值</td></tr>'
    "<tr><td>2022A</td><td>2023A</td><td>2024A</td></tr></table>"
)


def test_colspan_and_rowspan_are_kept() -> None:
    clean = sanitize_table_html(SPANNED)
    assert '<td rowspan="2">项目</td>' in clean
    assert '<td colspan="3">实际值</td>' in clean
    assert clean.startswith("<table>") and "<td>2024A</td>" in clean


@pytest.mark.parametrize(
    "dirty, forbidden, kept",
    [
        (
            "<table><tr><td>1<script>alert(1)</script></td></tr></table>",
            ["<script", "alert(1)"],
            "<td>1</td>",
        ),
        (
            '<table><tr><td><img src=x onerror="alert(1)">x</td></tr></table>',
            ["onerror", "<img"],
            "<td>x</td>",
        ),
        (
            '<table><tr><td onclick="steal()">x</td></tr></table>',
            ["onclick", "steal"],
            "<td>x</td>",
        ),
        (
            '<table><tr><td><a href="javascript:alert(1)">go</a></td></tr></table>',
            ["javascript:", "href", "<a"],
            "<td>go</td>",
        ),
        (
            '<table style="background:url(javascript:alert(1))"><tr><td>x</td></tr></table>',
            ["style", "javascript:"],
            "<td>x</td>",
        ),
        (
            "<table><tr><td><style>body{display:none}</style>x</td></tr></table>",
            ["<style", "display:none"],
            "<td>x</td>",
        ),
        (
            '<table><tr><td><iframe src="https://evil.example"></iframe>x</td></tr></table>',
            ["<iframe", "evil.example"],
            "<td>x</td>",
        ),
        (
            '<table><tr><td colspan="2" onmouseover="x()" class="c" id="i">x</td></tr></table>',
            ["onmouseover", "class=", "id="],
            '<td colspan="2">x</td>',
        ),
        (
            '<svg onload="alert(1)"><table><tr><td>x</td></tr></table></svg>',
            ["<svg", "onload"],
            "<td>x</td>",
        ),
    ],
)
def test_active_content_is_removed(dirty: str, forbidden: list[str], kept: str) -> None:
    clean = sanitize_table_html(dirty)
    for fragment in forbidden:
        assert fragment not in clean
    # ... and only that: the table and its cell's text stay
    assert clean.startswith("<table>") and kept in clean


def test_span_values_must_be_small_numbers() -> None:
    clean = sanitize_table_html(
        '<table><tr><td colspan="2; x" rowspan="999999">a</td><td colspan=" 3 ">b</td></tr></table>'
    )
    assert 'colspan="2; x"' not in clean and "999999" not in clean
    assert "<td>a</td>" in clean  # the cell stays, without the spans it cannot have
    assert '<td colspan="3">b</td>' in clean


def test_table_html_stays_on_one_line() -> None:
    # a blank line would end the HTML block and let Markdown resume inside the table
    clean = sanitize_table_html("<table>\n\n<tr>\n<td>a</td>\n</tr>\n\n</table>")
    assert "\n" not in clean


def test_text_is_escaped_not_rendered() -> None:
    out = escape_text('<script>alert("x")</script> 营收 US$5 与 US$6\n\n第二段 <b>粗</b>')
    assert "<script" not in out and "&lt;script&gt;" in out
    assert "<b>" not in out
    assert "$" not in out  # never typeset as math
    assert "\n" not in out and "<br>" in out


def test_highlight_escapes_everything_but_its_marks() -> None:
    out = highlight_html("<img src=x onerror=alert(1)> 营收增长20%。", ["营收增长20%"])
    assert "<img" not in out and "&lt;img" in out
    assert "<mark>营收增长20%</mark>" in out


def test_highlighted_tables_are_still_sanitised() -> None:
    dirty = '<table><tr><td onclick="x()">市盈率（倍）</td><td>106.2<script>1</script></td></tr></table>'
    out = highlight_table(dirty, ["项目: 市盈率（倍）;", "预测值 / 2026E: 106.2"])
    assert "onclick" not in out and "<script" not in out
    assert out.count('class="rag-hit"') == 2


def test_answer_markdown_escapes_html_and_dollars() -> None:
    out = escape_markdown_text("价格 US$5 <script>x</script> `a<b`")
    assert "<script" not in out and "&lt;script>" in out
    assert "\\$5" in out
    assert "`a<b`" in out  # code spans are shown as written


def test_answer_citations_become_links() -> None:
    text = "营收增长20% [Source 1]。毛利率18.6%【来源2】。见[Source 9]。"
    out = answer_markdown(text, None, prefix="", max_number=2)
    assert "[\\[来源 1\\]](#source-1)" in out
    assert "[\\[来源 2\\]](#source-2)" in out  # normalised from 【来源2】
    assert "(#source-9)" not in out  # dangling: there is no card to open
    prefixed = answer_markdown(text, None, prefix="t1", max_number=2)
    assert "(#t1-source-1)" in prefixed
