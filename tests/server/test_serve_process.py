"""End to end: a real ``rag-app serve`` process on a free loopback port, with the real model."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from openai import OpenAI

from rag_app.evaluation.bench_serve import run_load
from tests.conftest import SAMPLE_CONTENT_LIST
from tests.server.conftest import QUESTION

pytestmark = pytest.mark.slow
RAG_APP = Path(sys.executable).with_name("rag-app")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[str, str]]:
    port, token = free_port(), "e2e-token"
    env = {**os.environ, "RAG_APP_DATA_DIR": str(tmp_path / "data"), "RAG_APP_SERVER_TOKEN": token}
    env.pop("RAG_APP_MODEL", None)  # the offline answerer: no network in tests
    log = open(tmp_path / "serve.log", "wb")
    proc = subprocess.Popen(
        [str(RAG_APP), "serve", "--host", "127.0.0.1", "--port", str(port)],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(120):
            try:
                if httpx.get(base + "/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.5)
        else:
            pytest.fail((tmp_path / "serve.log").read_text()[-2000:])
        yield base, token
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()
    assert token not in (tmp_path / "serve.log").read_text()


def test_upload_then_ask_over_sse_and_the_openai_client(server: tuple[str, str]) -> None:
    base, token = server
    auth = {"Authorization": f"Bearer {token}"}
    assert httpx.get(base + "/v1/kbs").status_code == 401
    files = [("files", (SAMPLE_CONTENT_LIST.name, SAMPLE_CONTENT_LIST.read_bytes()))]
    r = httpx.post(base + "/v1/kbs/api/documents", files=files, headers=auth, timeout=600)
    assert r.status_code == 200 and r.json()["files"][0]["reports"][0]["status"] == "ingested"

    events = []
    with httpx.stream(
        "POST",
        base + "/v1/ask",
        json={"question": QUESTION, "kb": "api", "mode": "smart"},
        headers={**auth, "Accept": "text/event-stream"},
        timeout=120,
    ) as response:
        assert response.status_code == 200
        for line in response.iter_lines():
            if line.startswith("data:"):
                events.append(json.loads(line[5:]))
    assert events[0] == {"type": "stage", "stage": "retrieving"}
    answer = events[-1]["answer"]
    assert "106.2" in answer["text"] and answer["citations"]["cited_sources"]

    client = OpenAI(base_url=base + "/v1", api_key=token)
    stream = client.chat.completions.create(
        model="api", stream=True, messages=[{"role": "user", "content": QUESTION}]
    )
    assert "106.2" in "".join(c.choices[0].delta.content or "" for c in stream if c.choices)
    plain = client.chat.completions.create(
        model="api", messages=[{"role": "user", "content": QUESTION}]
    )
    assert "106.2" in (plain.choices[0].message.content or "")

    metrics = httpx.get(base + "/metrics", headers=auth).text
    assert 'rag_api_documents_total{kb="api",status="ingested"} 1.0' in metrics
    assert "rag_api_stage_seconds_bucket" in metrics

    load = run_load([base], concurrency=4, asks=8, kb="api", token=token, time_limit_s=120)
    assert len(load.timings) == 8 and not load.errors(), load.errors()
    assert all(t.first_token_s is not None and t.first_token_s <= t.end_s for t in load.timings)
    assert load.row().startswith("| 4 | 8 |")
