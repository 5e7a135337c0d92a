"""A table's source card in a real browser (issue 26 item 3): after a question the sample's
表1 answers, its card draws the header as the document does ("项目" once over two rows,
"实际值" once over three years), marks the cited rows only, and says nothing of sub-tables.

Run: ``.venv/bin/python -m pytest tests/ui/test_table_card_browser.py -q -m browser``.
The card's screenshot goes to ``test-artifacts/browser/`` (or ``RAG_APP_SHOTS``, a folder).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.ui.browser_support import (
    REPO_ROOT,
    StreamlitServer,
    ask,
    expander,
    new_page,
    open_app,
    sample_server,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]
pytest.importorskip("playwright.sync_api")

QUESTION = "中芯国际2024年的营业收入是多少？"
SHOTS = Path(os.environ.get("RAG_APP_SHOTS") or REPO_ROOT / "test-artifacts" / "browser")
# Each header cell of the card's table: its text, colspan and rowspan as drawn.
HEADER_JS = """(table) => [...table.querySelectorAll('tr')].slice(0, 2).map((tr) =>
  [...tr.querySelectorAll('th, td')].map((c) => [c.textContent.trim(), c.colSpan, c.rowSpan]))"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StreamlitServer]:
    yield from sample_server(tmp_path_factory, "table-card-browser")


def test_the_earnings_card_draws_the_documents_header_and_marks_the_cited_row(
    browser: Any, server: StreamlitServer
) -> None:
    page = new_page(browser)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        open_app(page, server.url)  # the sample is in 示例 already (sample_data)
        page.get_by_text("💡").wait_for(timeout=240_000)
        message = ask(page, QUESTION, timeout=180_000, idle=180_000)

        card = expander(message, "表1：盈利预测与估值")
        card.locator("summary").click()
        body = card.get_by_test_id("stExpanderDetails")
        body.wait_for(state="visible")
        table = body.locator(".rag-table table")
        table.scroll_into_view_if_needed()
        SHOTS.mkdir(parents=True, exist_ok=True)
        card.screenshot(path=str(SHOTS / "table1_card.png"))

        assert table.evaluate(HEADER_JS) == [
            [["项目", 1, 2], ["实际值", 3, 1], ["预测值", 2, 1]],
            [["2022A", 1, 1], ["2023A", 1, 1], ["2024A", 1, 1], ["2025E", 1, 1], ["2026E", 1, 1]],
        ]
        text = body.inner_text()
        assert "子表合并" not in text and "Merged from" not in text  # the document's one table
        hits = table.locator(".rag-hit").all_inner_texts()
        assert "57,796" in hits  # the cited 营业收入 row is marked
        labels = table.locator("tr td:first-child.rag-hit").all_inner_texts()
        assert labels.count("增长率（%）") <= 1  # never both 增长率 rows for one cited one
        assert all(hits.count(v) == 1 for v in ("营业收入（百万元）", "49,516"))
        assert not errors, errors
    finally:
        page.context.close()


def test_a_metric_over_years_is_drawn_as_a_cited_series(
    browser: Any, server: StreamlitServer
) -> None:
    """Issue 25's series: "中芯国际2022-2026年毛利率" is answered with a table of the five cells,
    each with where it is, a chart that takes no wheel, and a CSV."""
    page = new_page(browser)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        open_app(page, server.url)
        page.get_by_text("💡").wait_for(timeout=240_000)
        message = ask(page, "中芯国际2022-2026年毛利率", timeout=180_000, idle=180_000)
        series = expander(message, "毛利率（%）：各期数据")
        body = series.get_by_test_id("stExpanderDetails")
        body.wait_for(state="visible")
        chart = body.get_by_test_id("stVegaLiteChart")
        chart.wait_for(state="visible", timeout=60_000)
        chart.scroll_into_view_if_needed()
        SHOTS.mkdir(parents=True, exist_ok=True)
        series.screenshot(path=str(SHOTS / "series.png"))
        assert body.get_by_test_id("stDataFrame").count() == 1
        assert body.get_by_test_id("stDownloadButton").count() == 1
        scroller = page.get_by_test_id("stMain")
        top = scroller.evaluate("(e) => e.scrollTop")
        box_ = chart.bounding_box()
        assert box_ is not None
        page.mouse.move(box_["x"] + box_["width"] / 2, box_["y"] + box_["height"] / 2)
        page.mouse.wheel(0, 200)
        page.wait_for_timeout(500)
        assert scroller.evaluate("(e) => e.scrollTop") != top  # the page scrolled, no zoom
        assert not errors, errors
    finally:
        page.context.close()
