"""The whole shared setup of issue 28 for tests: one PostgreSQL (tests/postgres_support.py: a
throwaway cluster on loopback), one `chroma run` on a free loopback port, and N `rag-app serve`
processes, each with its own data dir and the same ``RAG_APP_DATABASE_URL``,
``RAG_APP_CHROMA_URL`` and tokens file naming users A (a@example.com) and B (b@example.com).

The processes are started by ``rag_app.evaluation.shared_stack`` (which the load benchmark uses
too); they embed with the real model (`rag-app setup` builds it under the cache dir; a
subprocess has no stand-in embedder), answer offline, and are stopped afterwards. When the block
fails, or a process does not come up, the processes' log tails are printed (pytest shows them
with the failure).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from rag_app.config import Settings
from rag_app.evaluation.shared_stack import BIN, SharedStack, StackError, shared_stack
from tests.conftest import REAL_CACHE_DIR
from tests.postgres_support import fresh_database, postgres_server

A, B = "a@example.com", "b@example.com"


def require_parts() -> None:
    """Skip unless chroma's server command and the real embedding model are here."""
    from rag_app.index.embedder import ModelMissingError, resolve_model

    if not (BIN / "chroma").exists():
        pytest.skip("no `chroma` server command in the venv")
    try:
        resolve_model(Settings(cache_dir=REAL_CACHE_DIR))
    except ModelMissingError as exc:
        pytest.skip(f"real embedding model not available (rag-app setup): {exc}")


@contextmanager
def shared_setup(
    root: Path, apis: int = 2, postgres: str | None = None, **extra_env: str
) -> Iterator[SharedStack]:
    """PostgreSQL, Chroma and ``apis`` API processes (P1, P2...) under ``root``; yields the
    running stack, stops everything after it. ``postgres``: the base URL of a running cluster
    (the session's, ``postgres_base``) to make the stack's database on; without it a cluster of
    its own is started and removed after."""
    require_parts()
    env = {"RAG_APP_CACHE_DIR": str(REAL_CACHE_DIR), **extra_env}
    with ExitStack() as cleanup:
        base = postgres if postgres else cleanup.enter_context(postgres_server())
        database_url = fresh_database(base)
        try:
            with shared_stack(root, database_url, apis, extra_env=env) as stack:
                try:
                    yield stack
                except BaseException:
                    print(stack.logs(80))
                    raise
        except StackError as exc:
            pytest.fail(f"the shared setup did not start:\n{exc}")


def show_logs_if_failed(request: pytest.FixtureRequest, stack: SharedStack, before: int) -> None:
    """After a test over a stack shared by a module: when it failed (the session counts more
    failures than ``before``), the processes' log tails on the terminal (a module's fixture
    does not see its tests' exceptions)."""
    if request.session.testsfailed <= before:
        return
    text = f"\nthe shared setup's logs after {request.node.name}:\n{stack.logs(80)}"
    reporter = request.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.write_line(text)
    else:
        print(text)


# requests ---------------------------------------------------------------------------------------
def upload(
    stack: SharedStack, api: int, user: str, kb: str, files: list[tuple[str, bytes]], **params: Any
) -> httpx.Response:
    """Files (name, bytes) uploaded to ``kb`` through ``stack.apis[api]`` as ``user``."""
    return httpx.post(
        f"{stack.apis[api].url}/v1/kbs/{kb}/documents",
        files=[("files", f) for f in files],
        params=params,
        headers=stack.headers(user),
        timeout=900,
    )


def call(stack: SharedStack, api: int, user: str, method: str, path: str, **kw: Any) -> Any:
    kw.setdefault("timeout", 300)
    url = stack.apis[api].url + path
    return httpx.request(
        method, url, headers={**stack.headers(user), **kw.pop("headers", {})}, **kw
    )


def kbs(stack: SharedStack, api: int, user: str) -> dict[str, int]:
    """The knowledge bases ``user`` sees through process ``api``, with their document counts."""
    r = call(stack, api, user, "GET", "/v1/kbs")
    assert r.status_code == 200, r.text
    return {k["name"]: k["documents"] for k in r.json()["data"]}


def doc_names(stack: SharedStack, api: int, user: str, kb: str) -> list[str]:
    r = call(stack, api, user, "GET", f"/v1/kbs/{kb}/documents")
    assert r.status_code == 200, r.text
    return sorted(d["name"] for d in r.json()["data"])


def eventually(check: Callable[[], Any], seconds: float = 15.0, pause: float = 0.3) -> Any:
    """``check()``'s value once it is truthy (a replica catches up within its sync interval);
    the last value when time runs out."""
    deadline = time.monotonic() + seconds
    while True:
        value = check()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(pause)


def sse_answer(stack: SharedStack, api: int, user: str, body: dict[str, Any]) -> dict[str, Any]:
    """An ask over SSE; its last event's answer."""
    events = []
    headers = {**stack.headers(user), "Accept": "text/event-stream"}
    with httpx.stream(
        "POST", stack.apis[api].url + "/v1/ask", json=body, headers=headers, timeout=300
    ) as response:
        assert response.status_code == 200, response.read()
        for line in response.iter_lines():
            if line.startswith("data:"):
                events.append(json.loads(line[5:]))
    assert events and events[-1]["type"] == "answer", events[-3:]
    return events[-1]["answer"]
