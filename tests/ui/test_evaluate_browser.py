"""The Evaluate page in a real browser (issue 27): a 20-question set uploaded on the sample, run
with smart and with hybrid retrieval in the background, a question opened with its hits, prompt,
answer and citation check, the two runs compared, and a run exported as CSV and JSON; a reload
keeps the runs.

Run: ``.venv/bin/python -m pytest tests/ui/test_evaluate_browser.py -q -m browser``.
"""

from __future__ import annotations

import csv
import io
import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.ui.browser_support import (
    REPO_ROOT,
    StreamlitServer,
    act,
    expander,
    goto_page,
    new_page,
    open_app,
    sample_server,
    wait_idle,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]
pytest.importorskip("playwright.sync_api")

SET = REPO_ROOT / "assets" / "sample_report" / "eval_set.csv"
SHOTS = Path(os.environ.get("RAG_APP_SHOTS") or REPO_ROOT / "test-artifacts" / "browser")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StreamlitServer]:
    yield from sample_server(tmp_path_factory, "evaluate-browser")


def selectbox(page: Any, label: str) -> Any:
    return page.get_by_test_id("stSelectbox").filter(has_text=label).first


def chosen(page: Any, label: str) -> str:
    """What the selectbox labelled ``label`` shows."""
    return selectbox(page, label).get_by_role("combobox").input_value()


def pick(page: Any, label: str, option: str) -> None:
    """Choose the option containing ``option`` in the selectbox labelled ``label``."""
    box = selectbox(page, label)
    box.scroll_into_view_if_needed()
    box.get_by_role("button", name="Open").click()
    page.get_by_role("listbox").wait_for()
    act(page, page.get_by_role("option").filter(has_text=option).first.click)


def wait_for_runs(page: Any, timeout: float = 240) -> None:
    """Until no run's progress bar is drawn (the page polls while one is active)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if page.get_by_test_id("stProgress").count() == 0:
            wait_idle(page, timeout=60_000)
            if page.get_by_test_id("stProgress").count() == 0:
                return
        time.sleep(0.5)
    raise AssertionError("the runs did not finish")


def download(page: Any, label: str, path: Path) -> Path:
    with page.expect_download() as got:
        page.get_by_role("button", name=label).first.click()
    got.value.save_as(str(path))
    return path


def test_a_set_run_smart_against_hybrid_opened_compared_and_exported(
    browser: Any, server: StreamlitServer, tmp_path: Path
) -> None:
    page = new_page(browser)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    SHOTS.mkdir(parents=True, exist_ok=True)
    try:
        open_app(page, server.url)
        page.get_by_text("💡").wait_for(timeout=240_000)  # the sample is in
        goto_page(page, "评测")
        upload = page.locator('input[type="file"]')
        act(page, lambda: upload.set_input_files(str(SET)))
        selectbox(page, "问题集").wait_for(timeout=60_000)
        assert chosen(page, "问题集") == "#1 eval_set.csv（20 题）"
        act(page, page.get_by_role("button", name="智能与混合各跑一次").click)
        wait_for_runs(page)
        page.screenshot(path=str(SHOTS / "evaluate_runs.png"), full_page=True)
        # the open run (the newest: hybrid) is done, its metrics drawn
        run = chosen(page, "打开一次运行")
        assert run.startswith("#2") and "已完成" in run
        assert page.get_by_test_id("stMetric").filter(has_text="通过率").count() >= 1

        # one question opened: its answer, its check, its hits and its prompt
        pick(page, "打开一道题", "e06")
        page.get_by_text("题目 e06").wait_for(timeout=30_000)
        assert expander(page, "检索详情").count() >= 1
        assert expander(page, "提示词检查").count() >= 1
        assert page.get_by_text("85.2").count() >= 1
        page.screenshot(path=str(SHOTS / "evaluate_question.png"), full_page=True)

        # exported: every question, as a spreadsheet and as JSON
        rows = list(
            csv.DictReader(
                io.StringIO(download(page, "导出 CSV", tmp_path / "run.csv").read_text("utf-8-sig"))
            )
        )
        assert len(rows) == 20 and {r["id"] for r in rows} >= {"e01", "e20"}
        exported = json.loads(download(page, "导出 JSON", tmp_path / "run.json").read_text())
        assert exported["settings"]["mode"] == "hybrid" and exported["status"] == "done"
        assert len(exported["questions"]) == 20 and exported["metrics"]["n"] == 20

        # the two runs compared: the counts, the metric deltas, a changed question opened
        act(page, page.get_by_role("tab", name="比较两次运行").click)
        page.get_by_text("退步").first.wait_for(timeout=30_000)
        assert "智能" in chosen(page, "之前（基线）") and "混合" in chosen(page, "之后")
        page.screenshot(path=str(SHOTS / "evaluate_compare.png"), full_page=True)

        # a reload (a new session) keeps the set and the runs
        open_app(page, server.url + "/evaluate")
        selectbox(page, "打开一次运行").wait_for(timeout=60_000)
        assert chosen(page, "问题集") == "#1 eval_set.csv（20 题）"
        assert "已完成" in chosen(page, "打开一次运行")
        assert not errors, errors
    finally:
        page.context.close()


def test_the_page_in_english(browser: Any, server: StreamlitServer) -> None:
    page = new_page(browser)
    try:
        open_app(page, server.url + "/evaluate")
        act(page, page.get_by_test_id("stSidebar").get_by_text("English").click)
        page.get_by_text("🧪 Evaluate").first.wait_for(timeout=30_000)
        for label in ("Sets and runs", "Compare two runs", "Run settings", "Run smart and hybrid"):
            assert page.get_by_text(label).count() >= 1, label
        page.screenshot(path=str(SHOTS / "evaluate_en.png"), full_page=True)
    finally:
        page.context.close()
