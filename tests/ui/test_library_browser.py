"""The Library page's uploads in a real browser, in the Chinese UI: an import empties the
uploader (its files and its import button are gone), a bad file's reason is worded in Chinese,
a duplicate names the document as the list does, and a deletion takes the import's results
with it (issue 26).

Screenshots go to ``$LIBRARY_SCREENSHOTS`` (default ``test-artifacts/browser/``).

Run: ``.venv/bin/python -m pytest tests/ui/test_library_browser.py -q -m browser``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import TEST_DATA
from tests.ui.browser_support import (
    REPO_ROOT,
    StreamlitServer,
    act,
    goto_page,
    new_page,
    open_app,
    sample_server,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]
pytest.importorskip("playwright.sync_api")

KB = "上传清空"
GOOD = TEST_DATA / "browser" / "huahong_content_list.json"
SHOTS = Path(os.environ.get("LIBRARY_SCREENSHOTS", REPO_ROOT / "test-artifacts" / "browser"))
# A content list cut off inside a string: json says "Unterminated string starting at", line 13,
# column 77 (the audit's file).
BAD_LINES = [
    "[",
    *(f'  {{"type": "text", "text": "第 {i} 段", "page_idx": 0}},' for i in range(11)),
    " " * 67 + '{"text": "一段被截断的文字',
]
BAD_REASON = "bad_content_list.json：未导入，不是有效的 JSON（第 13 行第 77 列：字符串未结束）"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StreamlitServer]:
    yield from sample_server(tmp_path_factory, "library-browser")


def main_area(page: Any) -> Any:
    return page.get_by_test_id("stMainBlockContainer")


def upload(page: Any, paths: list[Path]) -> None:
    """Choose files, press the import button and wait for the results."""
    act(page, lambda: page.get_by_test_id("stFileUploaderDropzoneInput").set_input_files(paths))
    label = f"导入 1 个文件到「{KB}」" if len(paths) == 1 else f"导入 {len(paths)} 个文件到「{KB}」"
    act(page, page.get_by_role("button", name=label).click, timeout=240_000)
    main_area(page).get_by_text("导入结果").wait_for()


def uploader_is_empty(page: Any) -> bool:
    main = main_area(page)
    chips = (
        main.get_by_test_id("stFileChip").count()
        + main.get_by_test_id("stFileChipDeleteBtn").count()
    )
    import_buttons = main.get_by_role("button", name="导入 ").count()
    return chips == 0 and import_buttons == 0


def test_an_import_empties_the_uploader_and_a_deletion_its_results(
    browser: Any, server: StreamlitServer, tmp_path: Path
) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    bad = tmp_path / "bad_content_list.json"
    bad.write_text("\n".join(BAD_LINES), encoding="utf-8")
    page = new_page(browser, {"width": 1400, "height": 1400})
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        open_app(page, server.url)
        goto_page(page, "文档库")
        main = main_area(page)
        box = page.locator(".st-key-new_kb_name input")
        box.fill(KB)
        act(page, lambda: box.press("Enter"))
        act(page, main.get_by_role("button", name="创建").click)
        main.get_by_test_id("stAlertContentSuccess").filter(has_text=KB).wait_for()
        # our limits in the user's language, under Streamlit's own (English) drop zone
        main.get_by_text("大小上限：.zip 每个 200 MB，其他文件每个 32 MB。").wait_for()

        upload(page, [GOOD, bad])
        page.screenshot(path=str(SHOTS / "01_after_import.png"), full_page=True)
        assert uploader_is_empty(page)
        failures = main.get_by_test_id("stAlertContentError").all_inner_texts()
        assert any(BAD_REASON in text for text in failures), failures
        assert not any("not valid JSON" in text for text in failures), failures
        successes = main.get_by_test_id("stAlertContentSuccess").all_inner_texts()
        assert any("huahong_content_list.json：已导入" in s for s in successes), successes

        # the emptied uploader takes the next files; a duplicate is named as the list names it
        upload(page, [GOOD])
        page.screenshot(path=str(SHOTS / "02_duplicate.png"), full_page=True)
        assert uploader_is_empty(page)
        notes = main.get_by_test_id("stAlertContentInfo").all_inner_texts()
        assert any("与已有文档「huahong_content_list.json」相同" in n for n in notes), notes

        act(page, main.get_by_role("button", name="删除该文档").click)
        act(page, main.get_by_role("button", name="确认删除").click)
        main.get_by_test_id("stAlertContentSuccess").filter(has_text="已删除文档").wait_for()
        page.screenshot(path=str(SHOTS / "03_after_delete.png"), full_page=True)
        assert main.get_by_text("导入结果").count() == 0
        assert main.get_by_test_id("stAlertContentInfo").filter(has_text="相同").count() == 0
        assert errors == [], errors
    finally:
        page.context.close()
