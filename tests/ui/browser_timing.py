"""How fast the app is, measured in a real browser (headless Chromium), not a test.

    .venv/bin/python tests/ui/browser_timing.py [--runs 3] [--json]

Per run, on a fresh data folder:

- cold start: ``streamlit run`` launched -> ``/_stcore/health`` answers -> the first page's
  first script run has finished (on a fresh folder that run imports the sample report into
  示例, so it includes loading the embedding model and indexing);
- a question right after that, with the offline answerer: from the Enter key to the first
  streamed character in the assistant message, and to the end of the script run that draws
  the finished answer (state back to ``notRunning`` for good; the answer is drawn twice:
  streamed, then with its sources after ``st.rerun``);
- warm restart: the server stopped and started again on the same folder (sample present; the
  model loads in a background thread), the first page, then two questions: the first may wait
  for that model load, the second is the steady state.

Question timings come from the page's own clock (``performance.now()`` recorded by
``tests/ui/browser_support.RECORDER_JS``): the Enter key, every change of the assistant message's
text length, every change of the script state. Prints each run and the median of all runs.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from playwright.sync_api import sync_playwright  # noqa: E402

from rag_app.config import load_settings  # noqa: E402
from tests.ui.browser_support import (  # noqa: E402
    StreamlitServer,
    launch_browser,
    mark,
    new_page,
    wait_idle,
)

QUESTIONS = (
    "中芯国际2026年预测市盈率是多少？",
    "2024年第二季度中芯国际的产能利用率是多少？",
)


def first_page(server: StreamlitServer, browser: Any) -> tuple[Any, float]:
    """Open the app; returns the page and the seconds from launch to its first finished run."""
    page = new_page(browser)
    page.goto(server.url, timeout=300_000)
    page.get_by_text("💡").wait_for(timeout=300_000)  # the sample's examples: a usable page
    wait_idle(page, timeout=300_000)
    # The page's clock: when did the state last become notRunning (epoch seconds)?
    ready_epoch = page.evaluate(
        """() => {
          const log = window.__st.log;
          for (let i = log.length - 1; i >= 0; i--)
            if (log[i][1] === 'notRunning' && (i === 0 || log[i - 1][1] !== 'notRunning'))
              return (performance.timeOrigin + log[i][0]) / 1000;
          return null;
        }"""
    )
    return page, ready_epoch - server.started_epoch


def ask(page: Any, question: str) -> dict[str, float]:
    """Ask and return ms from Enter to the first streamed character and to the final idle."""
    turn = page.evaluate("window.__st.measure()[0]") + 1
    box = page.get_by_test_id("stChatInputTextArea")
    box.fill(question)
    before = mark(page)
    box.press("Enter")
    page.get_by_test_id("stChatMessage").nth(2 * turn - 1).get_by_test_id("stExpander").filter(
        has=page.locator("summary", has_text="提示词检查")
    ).wait_for(timeout=120_000)
    wait_idle(page, before, timeout=120_000)
    rec = page.evaluate("window.__st")
    asked = rec["question"]
    first = min(t for t, count, length in rec["answer"] if t >= asked and count == turn and length)
    idle = [t for t, state in rec["log"] if t >= asked and state == "notRunning"]
    return {"first_token_ms": first - asked, "answer_done_ms": idle[-1] - asked}


def one_run(browser: Any, cache_dir: Path) -> dict[str, float]:
    out: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="rag-timing-") as tmp:
        data = Path(tmp) / "data"
        server = StreamlitServer(data, cache_dir=cache_dir, log_path=Path(tmp) / "server.log")
        try:
            server.start(timeout=120)
            out["cold_health_s"] = server.healthy_at - server.started_at
            page, out["cold_first_page_s"] = first_page(server, browser)
            timing = ask(page, QUESTIONS[0])
            out["cold_q1_first_token_ms"] = timing["first_token_ms"]
            out["cold_q1_answer_done_ms"] = timing["answer_done_ms"]
            page.context.close()
            server.stop()

            server.start(timeout=120)
            out["warm_health_s"] = server.healthy_at - server.started_at
            page, out["warm_first_page_s"] = first_page(server, browser)
            for i, question in enumerate(QUESTIONS, start=1):
                timing = ask(page, question)
                out[f"warm_q{i}_first_token_ms"] = timing["first_token_ms"]
                out[f"warm_q{i}_answer_done_ms"] = timing["answer_done_ms"]
            page.context.close()
        except Exception:
            print(server.log(), file=sys.stderr)
            raise
        finally:
            server.stop()
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--json", action="store_true", help="also print the numbers as JSON")
    args = parser.parse_args(argv)
    cache_dir = load_settings().cache_dir
    runs: list[dict[str, float]] = []
    with sync_playwright() as playwright:
        browser = launch_browser(playwright)
        try:
            for n in range(1, args.runs + 1):
                started = time.monotonic()
                result = one_run(browser, cache_dir)
                runs.append(result)
                took = time.monotonic() - started
                print(
                    f"run {n} ({took:.0f} s): " + ", ".join(_fmt(k, v) for k, v in result.items())
                )
                sys.stdout.flush()
        finally:
            browser.close()
    print(f"\nmedian of {len(runs)} runs:")
    for key in runs[0]:
        values = [r[key] for r in runs]
        print(
            f"  {key:26s} {_fmt_value(key, statistics.median(values)):>10s}   "
            f"(runs: {', '.join(_fmt_value(key, v) for v in values)})"
        )
    if args.json:
        print(json.dumps({"runs": runs}, indent=2))
    return 0


def _fmt(key: str, value: float) -> str:
    return f"{key}={_fmt_value(key, value)}"


def _fmt_value(key: str, value: float) -> str:
    return f"{value:.1f} s" if key.endswith("_s") else f"{value:.0f} ms"


if __name__ == "__main__":
    raise SystemExit(main())
