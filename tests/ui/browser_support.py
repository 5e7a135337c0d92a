"""Driving the real app in headless Chromium: a Streamlit server on a free loopback port, the
browser, and waits keyed to Streamlit's own script state.

Used by ``tests/ui/test_browser.py`` and ``tests/ui/browser_timing.py``. Chromium is Debian's package
(``make browser-deps``), launched through playwright's ``executable_path``; playwright never
downloads a browser here.

Waiting: ``stApp`` carries ``data-test-script-state`` (``initial``, ``running``,
``notRunning``...). An init script records every change of it with ``performance.now()``, so a
wait can ask "has a run started since my click, and has the app been idle for a moment since"
(a question ends with ``st.rerun()``: the state is ``notRunning`` for a few milliseconds between
the two runs, so idleness must last a little before it counts). The same script records the
text length of the newest assistant message and the label of its status box whenever they
change, with timestamps: how the tests see an answer stream and how the timing script measures.
It also records what the sidebar's navigation showed, from the first paint: Streamlit's own
(``stSidebarNav``, drawn from the ``pages/`` folder) and the app's (``.st-key-nav``).
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[2]
APP = REPO_ROOT / "app.py"
CHROMIUM = Path(os.environ.get("RAG_APP_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
VIEWPORT = {"width": 1400, "height": 1000}
IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"]'
SOON = 30_000  # ms an assertion on the page waits for it to hold (two busy cores)
# Provider variables the server must not inherit (the tests choose the answerer themselves).
PROVIDER_ENV = (
    "RAG_APP_API_KEY",
    "OPENAI_API_KEY",
    "RAG_APP_BASE_URL",
    "OPENAI_BASE_URL",
    "RAG_APP_MODEL",
)

# Installed before any page script runs. window.__st = {log: [[t, state]...], answer: [[t,
# assistant messages, text length of the newest]...], status: [[t, label of the newest
# message's first expander]...], nav: [[t, Streamlit's navigation text, the app's]...],
# question: t of the last Enter in the chat input, measure()}.
RECORDER_JS = r"""
(() => {
  const st = (window.__st = {log: [], answer: [], status: [], nav: [], question: null});
  const text = (selector) => {
    const e = document.querySelector(selector);
    return e ? e.textContent.replace(/\s+/g, ' ').trim() : '';
  };
  const assistants = () => [...document.querySelectorAll('[data-testid="stChatMessage"]')]
      .filter((m) => m.querySelector('[data-testid="stChatMessageAvatarAssistant"]'));
  const answerLength = (message) => {
    let n = 0;
    for (const e of message.querySelectorAll('[data-testid="stMarkdownContainer"]')) {
      if (!e.closest('[data-testid="stExpander"]')) n += e.textContent.length;
    }
    return n;
  };
  st.measure = () => {  // [assistant messages, text length of the newest one]
    const all = assistants();
    const message = all[all.length - 1];
    return [all.length, message ? answerLength(message) : 0];
  };
  const sample = () => {
    const now = performance.now();
    const [count, length] = st.measure();
    const last = st.answer[st.answer.length - 1];
    if (!last || last[1] !== count || last[2] !== length) st.answer.push([now, count, length]);
    const all = assistants();
    const message = all[all.length - 1];
    const summary = message && message.querySelector('[data-testid="stExpander"] summary');
    const label = summary ? summary.textContent.trim() : '';
    const lastLabel = st.status[st.status.length - 1];
    if (label && (!lastLabel || lastLabel[1] !== label)) st.status.push([now, label]);
    const nav = [text('[data-testid="stSidebarNav"]'), text('.st-key-nav')];
    const lastNav = st.nav[st.nav.length - 1];
    if (!lastNav || lastNav[1] !== nav[0] || lastNav[2] !== nav[1]) st.nav.push([now, ...nav]);
  };
  const watch = () => {
    const app = document.querySelector('[data-testid="stApp"]');
    if (!app) { requestAnimationFrame(watch); return; }
    const state = () => st.log.push([performance.now(), app.getAttribute('data-test-script-state')]);
    state();
    new MutationObserver(state).observe(app, {attributes: true, attributeFilter: ['data-test-script-state']});
    new MutationObserver(sample).observe(app, {subtree: true, childList: true, characterData: true});
  };
  document.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && event.target && event.target.closest &&
        event.target.closest('[data-testid="stChatInput"]')) st.question = performance.now();
  }, true);
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', watch);
  else watch();
})();
"""

# True once a run has started after log index `mark` (or `grace` ms passed without one: some
# runs are too quick to be drawn) and the app has been idle for `settle` ms.
_IDLE_SINCE_JS = """
([mark, since, grace, settle]) => {
  const st = window.__st;
  if (!st || !st.log.length) return false;
  const now = performance.now();
  const last = st.log[st.log.length - 1];
  if (last[1] !== 'notRunning' || now - last[0] < settle) return false;
  return st.log.slice(mark).some((e) => e[1] === 'running') || now - since > grace;
}
"""


# -- the server ---------------------------------------------------------------------------------
def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class StreamlitServer:
    """``streamlit run app.py`` on a free loopback port with its own data folder.

    Started in its own process group so stopping it also stops anything it spawned; only this
    process (by its id) is ever signalled. ``extra_args`` go after the usual options (e.g.
    ``["--secrets.files", path]``: a secrets file of the test's own, instead of the repo's
    ``.streamlit/``).
    """

    def __init__(
        self,
        data_dir: Path,
        *,
        cache_dir: Path | None = None,
        log_path: Path | None = None,
        extra_env: Mapping[str, str] | None = None,
        extra_args: Sequence[str] = (),
    ) -> None:
        self.data_dir = Path(data_dir)
        self.cache_dir = cache_dir
        self.log_path = log_path or self.data_dir.parent / f"{self.data_dir.name}-streamlit.log"
        self.extra_env = dict(extra_env or {})
        self.extra_args = list(extra_args)
        self.port = 0
        self.process: subprocess.Popen[bytes] | None = None
        self.started_at = 0.0  # time.monotonic() when the process was launched
        self.started_epoch = 0.0  # and time.time(), to compare with the browser's clock
        self.healthy_at = 0.0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 60.0) -> StreamlitServer:
        env = {k: v for k, v in os.environ.items() if k not in PROVIDER_ENV}
        env["RAG_APP_DATA_DIR"] = str(self.data_dir)
        if self.cache_dir is not None:
            env["RAG_APP_CACHE_DIR"] = str(self.cache_dir)
        env.update(self.extra_env)
        self.port = free_port()
        command = [
            sys.executable,
            "-m",
            "streamlit",
            "run",
            str(APP),
            "--server.port",
            str(self.port),
            "--server.address",
            "127.0.0.1",
            "--server.headless",
            "true",
            "--browser.gatherUsageStats",
            "false",
            *self.extra_args,
        ]
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        log = self.log_path.open("wb")
        self.started_at, self.started_epoch = time.monotonic(), time.time()
        self.process = subprocess.Popen(
            command,
            cwd=REPO_ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        log.close()
        self.wait_healthy(timeout)
        return self

    def wait_healthy(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.process is not None
            if self.process.poll() is not None:
                raise RuntimeError(f"streamlit exited ({self.process.returncode}):\n{self.log()}")
            try:
                with urllib.request.urlopen(f"{self.url}/_stcore/health", timeout=2) as reply:
                    if reply.status == 200:
                        self.healthy_at = time.monotonic()
                        return
            except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
                pass
            time.sleep(0.1)
        raise TimeoutError(f"streamlit not healthy after {timeout:.0f} s:\n{self.log()}")

    def log(self, tail: int = 60) -> str:
        try:
            lines = self.log_path.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            return ""
        return "\n".join(lines[-tail:])

    def stop(self) -> None:
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)

    def __enter__(self) -> StreamlitServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


# -- the sample, imported once a session -------------------------------------------------------
# The app's own start-up work (ui.startup.Startup, as ui.resources runs it in the server) on a fresh
# data dir, without Streamlit: the sample report imported into 示例 with the real model, then the
# caches warmed; run in a process of its own, which exits when it is done, as a stopped server
# does. The import itself, from the first page, is tested by tests/ui/test_cold_start.py.
_IMPORT_SAMPLE = """
import sys
from rag_app.config import load_settings
from rag_app.index.embedder import load_embedder
from rag_app.index.library import Library
from ui.resources import SAMPLE_KB, SAMPLE_ZIP
from ui.startup import Startup

settings = load_settings()
startup = Startup(SAMPLE_ZIP, SAMPLE_KB)
embedder = load_embedder(settings)
startup.load_model(embedder)
library = Library(settings, embedder=embedder)
startup.start(library)
for thread in startup.threads:
    thread.join()
status = startup.status()
docs = [d.name for d in library.documents(SAMPLE_KB)]
if status.state != "in" or docs != [SAMPLE_ZIP.name]:
    sys.exit(f"the sample was not imported: {status}, {docs}")
"""
_sample_templates: dict[Path, Path] = {}


def sample_data(tmp_path_factory: Any, target: Path, cache_dir: Path | None = None) -> Path:
    """Make ``target`` a data dir that holds the sample report in 示例 as a server's first start
    imports it (and nothing else): a copy of one imported once per test session, so that every
    browser module's server starts as after a restart instead of spending its first page on the
    import (seconds of the real model each time). Returns ``target``."""
    if cache_dir is None:
        from tests.conftest import REAL_CACHE_DIR

        cache_dir = REAL_CACHE_DIR
    base = Path(tmp_path_factory.getbasetemp())
    template = _sample_templates.get(base)
    if template is None:
        template = Path(tmp_path_factory.mktemp("sample-template")) / "data"
        env = {k: v for k, v in os.environ.items() if k not in PROVIDER_ENV}
        env["RAG_APP_DATA_DIR"] = str(template)
        env["RAG_APP_CACHE_DIR"] = str(cache_dir)
        done = subprocess.run(
            [sys.executable, "-c", _IMPORT_SAMPLE],
            cwd=REPO_ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        if done.returncode != 0:
            raise RuntimeError(f"importing the sample failed:\n{done.stdout}\n{done.stderr}")
        _sample_templates[base] = template
    shutil.copytree(template, target)
    return Path(target)


# -- the browser ---------------------------------------------------------------------------------
def launch_browser(playwright: Any) -> Any:
    return playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)


def new_page(browser: Any, viewport: Mapping[str, int] | None = None) -> Any:
    """A page in its own context (a fresh Streamlit session) with the recorder installed."""
    context = browser.new_context(viewport=dict(viewport or VIEWPORT), locale="zh-CN")
    context.add_init_script(RECORDER_JS)
    page = context.new_page()
    page.set_default_timeout(30_000)
    return page


def mark(page: Any) -> tuple[int, float]:
    """Where the state log is now: pass it to ``wait_idle`` to wait for a run after it."""
    return page.evaluate("[window.__st.log.length, performance.now()]")


def wait_idle(
    page: Any,
    since: tuple[int, float] | None = None,
    *,
    timeout: float = 60_000,
    grace: float = 2_000,
    settle: float = 250,
) -> None:
    """Wait until the app is idle (``notRunning`` for ``settle`` ms); with ``since`` (a
    ``mark``), also until a script run has started after that mark (or ``grace`` ms passed)."""
    page.wait_for_selector(IDLE, timeout=timeout)
    index, started = since if since is not None else (0, 0.0)
    page.wait_for_function(
        _IDLE_SINCE_JS, arg=[index, started, grace if since else 0, settle], timeout=timeout
    )


def act(page: Any, action: Callable[[], Any], *, timeout: float = 60_000) -> None:
    """Do ``action`` (a click, a key press...) and wait for the script run it causes to end."""
    before = mark(page)
    action()
    wait_idle(page, before, timeout=timeout)


def open_app(page: Any, url: str, *, timeout: float = 240_000) -> None:
    """Load the app and wait for its first script run to finish (the title is drawn)."""
    page.goto(url, timeout=timeout)
    page.wait_for_selector('[data-testid="stHeading"], h2', timeout=timeout)
    wait_idle(page, timeout=timeout)


def expect(locator: Any) -> Any:
    """playwright's ``expect``, waiting up to ``SOON`` ms: for what a run draws after the element
    a test waited for (the navigation after a page's heading, the rows after a table's first
    cell, the second message after the first), an assertion that waits until the page shows it
    instead of a list read once, which may be read before it is drawn."""
    from playwright.sync_api import expect as playwright_expect

    playwright_expect.set_options(timeout=SOON)
    return playwright_expect(locator)


def recorder(page: Any) -> dict[str, Any]:
    return page.evaluate("window.__st")


def navigation(page: Any) -> Any:
    """The app's navigation in the sidebar (app.py draws it with st.page_link)."""
    return page.get_by_test_id("stSidebar").locator(".st-key-nav")


def goto_page(page: Any, label: str) -> None:
    """Switch pages the way a user does (the sidebar's navigation), keeping the session."""
    link = navigation(page).get_by_role("link", name=label)
    act(page, link.click)


def expander(scope: Any, label: str | re.Pattern[str]) -> Any:
    """The ``st.expander`` (or ``st.status``) whose header contains ``label``."""
    page = getattr(scope, "page", scope)  # a Locator knows its page; a Page is its own
    return scope.get_by_test_id("stExpander").filter(has=page.locator("summary", has_text=label))


def in_viewport(page: Any, box: Mapping[str, float] | None) -> bool:
    """Whether a box's top edge is inside the visible window (2 px of sub-pixel slack: a jump
    to an anchor leaves it at y = -0.3)."""
    if box is None:
        return False
    return -2 <= box["y"] < page.viewport_size["height"]


def use_stub_llm(page: Any, base_url: str) -> None:
    """Settings: point this session at the stub OpenAI-compatible server and save."""
    goto_page(page, "设置")
    page.get_by_role("textbox", name="Base URL").fill(base_url)
    page.get_by_role("textbox", name="模型名称").fill("stub-model")
    act(page, page.get_by_role("button", name="保存").click)
    page.get_by_text("stub-model").first.wait_for()
    goto_page(page, "问答")


def sample_server(tmp_path_factory: Any, name: str, oidc: Any = None) -> Iterator[StreamlitServer]:
    """A module's own app over a fresh data dir holding only the sample in 示例
    (``sample_data``), with the real model, stopped after; the tests skip when the model is not
    built.
    With ``oidc`` (a ``tests.oidc_stub_server.OIDCStubServer``) sign-in goes through it, set by
    a secrets file of the test's own (``--secrets.files``; the repo's ``.streamlit/`` is not
    touched)."""
    import secrets

    from rag_app.config import Settings
    from rag_app.index.embedder import ModelMissingError, resolve_model
    from tests.conftest import REAL_CACHE_DIR

    try:
        resolve_model(Settings(cache_dir=REAL_CACHE_DIR))
    except ModelMissingError as exc:
        import pytest

        pytest.skip(f"real embedding model not available: {exc}")
    root = tmp_path_factory.mktemp(name)
    extra: list[str] = []
    if oidc is not None:
        # The browser uses 127.0.0.1 throughout (StreamlitServer.url): the callback must come
        # back to the host the sign-in started from, or Streamlit's session cookie (the OAuth
        # state) is not sent with it. Streamlit fills in {port} with its own port.
        secrets_file = root / "secrets.toml"
        secrets_file.write_text(
            "[auth]\n"
            'redirect_uri = "http://127.0.0.1:{port}/oauth2callback"\n'
            f'cookie_secret = "{secrets.token_hex(32)}"\n'
            f'client_id = "{oidc.client_id}"\n'
            f'client_secret = "{oidc.client_secret}"\n'
            f'server_metadata_url = "{oidc.metadata_url}"\n',
            encoding="utf-8",
        )
        extra = ["--secrets.files", str(secrets_file)]
    app = StreamlitServer(
        sample_data(tmp_path_factory, root / "data"),
        cache_dir=REAL_CACHE_DIR,
        log_path=root / "server.log",
        extra_args=extra,
    )
    app.start(timeout=120)
    yield app
    app.stop()


def last_assistant(page: Any) -> Any:
    return (
        page.get_by_test_id("stChatMessage")
        .filter(has=page.get_by_test_id("stChatMessageAvatarAssistant"))
        .last
    )


def ask(page: Any, question: str, timeout: float = 120_000, idle: float = 60_000) -> Any:
    """Ask on the Ask page and wait for the final render; returns the answer's chat message."""
    box = page.get_by_test_id("stChatInputTextArea")
    box.fill(question)
    before = mark(page)
    box.press("Enter")
    message = last_assistant(page)
    # The prompt inspector is drawn only by the run after the answer (st.rerun).
    expander(message, "提示词检查").or_(expander(message, "Prompt inspector")).wait_for(
        timeout=timeout
    )
    wait_idle(page, before, timeout=idle)
    return message
