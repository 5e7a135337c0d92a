"""Many users, many processes (issue 28): a real PostgreSQL, a real `chroma run`, two `rag-app
serve` processes P1 and P2 over them (each with its own data dir) and users A and B (named
tokens). A's knowledge base is invisible to B through either process; an answer and a
conversation go on from one process to the other; two uploads to one knowledge base through both
at once both land; a kill -9 mid-upload leaves `rag-app check` consistent; a Streamlit app over
the same database shows B nothing of A's. The real model embeds (`rag-app setup`), the offline
answerer answers."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from rag_app.evaluation.shared_stack import SharedStack
from tests.conftest import SAMPLE_CONTENT_LIST, TEST_DATA
from tests.server.conftest import QUESTION
from tests.shared_support import (
    A,
    B,
    call,
    doc_names,
    eventually,
    kbs,
    shared_setup,
    show_logs_if_failed,
    sse_answer,
    upload,
)

pytestmark = pytest.mark.slow
KB = "a-kb"
SAMPLE = (SAMPLE_CONTENT_LIST.name, SAMPLE_CONTENT_LIST.read_bytes())
TATQA = TEST_DATA / "tatqa_like_content_list.json"
ROW = {"question": QUESTION, "answer": "106.2"}


def variant(name: str, mark: str) -> tuple[str, bytes]:
    """The sample report made a different document by one paragraph, under another name."""
    items = json.loads(SAMPLE_CONTENT_LIST.read_text(encoding="utf-8"))
    items.append({"type": "text", "text": f"附注 {mark}：本副本仅用于测试。", "page_idx": 0})
    return name, json.dumps(items, ensure_ascii=False).encode("utf-8")


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory, postgres_base: str) -> Iterator[SharedStack]:
    """P1 and P2 over one PostgreSQL (a database of their own on the session's cluster) and one
    Chroma; A's knowledge base ``a-kb`` holds the sample, uploaded through P1."""
    root = tmp_path_factory.mktemp("shared")
    with shared_setup(root, apis=2, postgres=postgres_base) as running:
        r = upload(running, 0, A, KB, [SAMPLE])
        assert r.status_code == 200, r.text
        assert r.json()["files"][0]["reports"][0]["status"] == "ingested"
        yield running


@pytest.fixture(autouse=True)
def _logs_on_failure(request: pytest.FixtureRequest, stack: SharedStack) -> Iterator[None]:
    before = request.session.testsfailed
    yield
    show_logs_if_failed(request, stack, before)


def test_as_knowledge_base_is_invisible_to_b_through_either_process(stack: SharedStack) -> None:
    # A sees it through the other process too (its replica pulls it from Chroma)
    assert eventually(lambda: kbs(stack, 1, A).get(KB) == 1), kbs(stack, 1, A)
    for api in (0, 1):
        assert KB not in kbs(stack, api, B)
    models = call(stack, 1, B, "GET", "/v1/models").json()["data"]
    assert KB not in [m["id"] for m in models]
    chat = {"model": KB, "messages": [{"role": "user", "content": QUESTION}]}
    refused = [
        call(stack, 1, B, "GET", f"/v1/kbs/{KB}/documents"),
        call(stack, 1, B, "POST", "/v1/search", json={"query": "市盈率", "kb": KB}),
        call(stack, 1, B, "POST", "/v1/ask", json={"question": QUESTION, "kb": KB}),
        call(stack, 0, B, "POST", "/v1/ask/batch", json={"questions": [QUESTION], "kb": KB}),
        call(stack, 1, B, "POST", "/v1/chat/completions", json=chat),
        call(stack, 1, B, "GET", f"/v1/kbs/{KB}/members"),
        call(stack, 1, B, "POST", f"/v1/kbs/{KB}/documents", files=[("files", SAMPLE)]),
        call(stack, 1, B, "POST", "/v1/evals", json={"questions": [ROW], "kb": KB}),
    ]
    for r in refused:
        assert r.status_code == 404, (r.request.method, r.request.url, r.text)
        assert r.json()["error"]["type"] == "not_found_error"

    # an evaluation run A starts through P1 is A's through P2, and nothing of B's through either
    started = call(stack, 0, A, "POST", "/v1/evals", json={"questions": [ROW], "kb": KB})
    assert started.status_code == 202, started.text
    run_id, set_id = started.json()["id"], started.json()["set"]["id"]
    run = eventually(
        lambda: call(stack, 1, A, "GET", f"/v1/evals/{run_id}").json().get("status") == "done",
        180,
        1.0,
    )
    assert run, call(stack, 1, A, "GET", f"/v1/evals/{run_id}").json()
    assert run_id in [r["id"] for r in call(stack, 1, A, "GET", "/v1/evals").json()["data"]]
    for api in (0, 1):
        assert run_id not in [
            r["id"] for r in call(stack, api, B, "GET", "/v1/evals").json()["data"]
        ]
        assert set_id not in [
            s["id"] for s in call(stack, api, B, "GET", "/v1/evals/sets").json()["data"]
        ]
        assert call(stack, api, B, "GET", f"/v1/evals/{run_id}").status_code == 404

    # the audit log is one, in the database: B's refusals from both processes are in it, as B's
    from rag_app.chat.audit import open_audit_log
    from ui.permissions import visible_records

    log = open_audit_log(stack.root / "reader", database_url=stack.database_url)
    assert log is not None
    denied = [r for r in log.records(kb=KB) if r.error_kind == "denied"]
    assert {(r.user, r.client) for r in denied} == {(B, "api")}
    assert len(denied) >= len(refused)
    # what B may see of it holds none of A's knowledge base's records
    seen_by_b = visible_records(log, list(kbs(stack, 1, B)), kb=None, limit=1000)
    assert all(r.kb != KB for r in seen_by_b)


def test_an_answer_and_a_conversation_go_on_through_the_other_process(stack: SharedStack) -> None:
    first = call(stack, 0, A, "POST", "/v1/ask", json={"question": QUESTION, "kb": KB})
    assert first.status_code == 200, first.text
    answer = first.json()
    assert "106.2" in answer["text"] and answer["citations"]["cited_sources"]

    # the same question through P2, over SSE: P2's replica answers from what P1 ingested
    streamed = sse_answer(stack, 1, A, {"question": QUESTION, "kb": KB})
    assert "106.2" in streamed["text"] and streamed["citations"]["cited_sources"]

    # the conversation goes on through P2: its history is the turn P1 answered
    history = [{"user": QUESTION, "assistant": answer["text"]}]
    follow = call(
        stack,
        1,
        A,
        "POST",
        "/v1/ask",
        json={"question": "2025年呢？", "kb": KB, "history": history},
    )
    assert follow.status_code == 200, follow.text
    body = follow.json()
    assert "2025" in body["understood"]["text"] and "市盈率" in body["understood"]["text"]
    assert "132.0" in body["text"], body["text"]

    # and both asks are in the one audit log, as A's, from both processes' answers
    from rag_app.chat.audit import open_audit_log

    log = open_audit_log(stack.root / "reader", database_url=stack.database_url)
    assert log is not None
    asked = [r for r in log.records(kb=KB, user=A) if not r.error_kind]
    assert {r.question for r in asked} >= {QUESTION, "2025年呢？"}


@pytest.mark.parametrize("kb", [KB, "made-by-both"])
def test_two_uploads_to_one_knowledge_base_at_once_both_land(stack: SharedStack, kb: str) -> None:
    """Into A's knowledge base, and into a new one both uploads make at once (it is A's)."""
    files = [
        (TATQA.name, TATQA.read_bytes()),
        variant(f"smic_copy_{len(kb)}_content_list.json", kb),
    ]
    gate = threading.Barrier(2)
    results: list[Any] = [None, None]

    def send(api: int) -> None:
        gate.wait()
        results[api] = upload(stack, api, A, kb, [files[api]])

    threads = [threading.Thread(target=send, args=(api,)) for api in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=900)
    for r in results:
        assert r is not None and r.status_code == 200, r and r.text
        assert r.json()["files"][0]["reports"][0]["status"] == "ingested", r.text
    want = sorted([*([SAMPLE[0]] if kb == KB else []), *(name for name, _ in files)])
    for api in (0, 1):
        assert eventually(lambda api=api: doc_names(stack, api, A, kb) == want), doc_names(
            stack, api, A, kb
        )
        assert kb not in kbs(stack, api, B)
    members = call(stack, 1, A, "GET", f"/v1/kbs/{kb}/members").json()
    assert (members["owner"], members["role"]) == (A, "admin"), members
    code, out = stack.rag_app(["check"], stack.root / "checker")
    assert code == 0, out


def test_a_kill_9_mid_upload_leaves_check_consistent(stack: SharedStack) -> None:
    """A third process is killed while it ingests six documents; what landed is whole, and
    `rag-app check` from its data dir (the journal settled) and from a fresh one is
    consistent."""
    victim = stack.add_api()
    api = stack.apis.index(victim)
    batch = [variant(f"crash_{n}_content_list.json", f"crash {n}") for n in range(6)]
    errors: list[BaseException] = []

    def send() -> None:
        try:
            upload(stack, api, A, "crash-kb", batch)
        except httpx.HTTPError as exc:  # the process dies under it
            errors.append(exc)

    sender = threading.Thread(target=send)
    sender.start()
    # kill once the first document is in (seen through P2) and the next is being written
    landed = eventually(lambda: kbs(stack, 1, A).get("crash-kb", 0) >= 1, 300, 0.2)
    assert landed, victim.log()
    time.sleep(1.0)
    victim.kill9()
    sender.join(timeout=60)
    assert errors, "the upload should have been cut off"

    assert victim.data_dir is not None
    for data_dir in (victim.data_dir, stack.root / "after-kill"):
        code, out = stack.rag_app(["check", "--json"], data_dir)
        assert code == 0, out
        report = json.loads(out[out.index("{") :])
        assert report["consistent"] and not report["problems"], report
    listed = doc_names(stack, 1, A, "crash-kb")
    assert 1 <= len(listed) < len(batch)
    # the survivors finish the batch: nothing half-written stands in the way
    r = upload(stack, 1, A, "crash-kb", batch, on_conflict="replace")
    assert r.status_code == 200, r.text
    assert eventually(lambda: len(doc_names(stack, 0, A, "crash-kb")) == len(batch))


def test_the_app_over_the_same_database_shows_b_nothing_of_as(
    stack: SharedStack, monkeypatch: pytest.MonkeyPatch
) -> None:
    from streamlit.testing.v1 import AppTest

    from tests.conftest import REPO_ROOT
    from tests.ui.browser_support import StreamlitServer

    app_dir = stack.root / "app" / "data"
    env = {k: v for k, v in stack.env.items() if k.startswith(("RAG_APP_", "HF_", "ANONYM"))}
    with StreamlitServer(app_dir, extra_env=env) as app:
        assert httpx.get(app.url + "/_stcore/health", timeout=10).status_code == 200

    # the app's pages as B and as A (AppTest: st.user signed in), over the same stores
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("RAG_APP_DATA_DIR", str(stack.root / "apptest" / "data"))

    def options(user: dict[str, Any]) -> list[str]:
        at = AppTest.from_file(str(REPO_ROOT / "streamlit_app.py"), default_timeout=300)
        at.user = user
        at.run()
        assert not at.exception, at.exception
        at.switch_page("views/library.py").run()
        assert not at.exception, at.exception
        return list(at.selectbox(key="_w_kb__library").options)

    assert KB not in options({"is_logged_in": True, "email": B, "name": "B"})
    assert KB in options({"is_logged_in": True, "email": A, "name": "A"})
