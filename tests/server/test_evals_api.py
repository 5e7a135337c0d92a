"""``/v1/evals`` in-process over the sample: a question set kept, a run of it polled to the end,
its results as JSON and CSV, two runs compared, cancel and resume (a model held at a gate keeps
a run busy), bad sets refused with the set's reason, the token's user on the run."""

from __future__ import annotations

import csv
import io
import threading
import time
from pathlib import Path
from typing import Any

from rag_app.answer import ScriptedLLM
from rag_app.evals.export import CSV_COLUMNS
from rag_app.evals.question_sets import question_rows, read_question_set
from rag_app.evals.runner import WORKERS
from tests.conftest import SAMPLE_DIR

SAMPLE_SET = SAMPLE_DIR / "eval_set.csv"
ROWS = [
    {"id": "pe", "question": "中芯国际2026年预测市盈率是多少？", "answer": "106.2",
     "document": "smic_report", "gold_item_indices": [9]},
    {"id": "node", "question": "中芯南方（SN1）采用什么工艺节点？", "answer": "14nmFinFET",
     "document": "smic_report", "pages": [5]},
    {"id": "none", "question": "台积电2024年的资本开支是多少？", "answerable": False},
]  # fmt: skip


def sample_rows() -> list[dict[str, object]]:
    return question_rows(read_question_set(SAMPLE_SET.read_bytes(), SAMPLE_SET.name))


def wait_done(client: Any, run_id: int, timeout_s: float = 120) -> dict[str, Any]:
    """Poll the run as a client would, until it stops."""
    deadline = time.monotonic() + timeout_s
    while True:
        run = client.get(f"/v1/evals/{run_id}").json()
        if run["status"] not in ("queued", "running"):
            return run
        assert time.monotonic() < deadline, run
        time.sleep(0.1)


class GatedLLM(ScriptedLLM):
    """A model that holds each answer until ``gate`` opens, so a run stays busy."""

    def __init__(self) -> None:
        super().__init__(default="中芯国际2026年预测市盈率为106.2倍 [Source 1]")
        self.gate = threading.Event()
        self.entered = threading.Event()

    def stream(self, request):  # type: ignore[no-untyped-def]
        self.entered.set()
        assert self.gate.wait(60), "the test never opened the gate"
        return super().stream(request)


def test_the_sample_set_is_kept_run_polled_and_read(client) -> None:  # type: ignore[no-untyped-def]
    kept = client.post("/v1/evals/sets", json={"name": "sample", "questions": sample_rows()})
    assert kept.status_code == 201, kept.text
    set_id = kept.json()["id"]
    assert (kept.json()["n"], kept.json()["user"]) == (20, "api")
    listed = client.get("/v1/evals/sets").json()["data"]
    assert listed[0] == {k: kept.json()[k] for k in ("id", "name", "n", "created")}
    assert client.get(f"/v1/evals/sets/{set_id}").json()["questions"] == sample_rows()

    started = client.post("/v1/evals", json={"set_id": set_id, "kb": "api", "mode": "smart"})
    assert started.status_code == 202, started.text
    body = started.json()
    assert body["status"] in ("queued", "running") and body["n_total"] == 20
    assert body["unknown_documents"] == [] and body["settings"]["answerer"] == "offline"
    run = wait_done(client, body["id"])
    assert (run["status"], run["n_done"], run["error"]) == ("done", 20, "")
    metrics = run["metrics"]
    assert metrics["n"] == 20 and metrics["n_unanswerable"] == 3
    assert metrics["passed"] >= 0.5 and metrics["recall_at_k"] is not None

    results = client.get(f"/v1/evals/{run['id']}/results").json()
    assert [q["id"] for q in results["questions"]] == [f"e{n:02}" for n in range(1, 21)]
    first = results["questions"][0]
    assert first["passed"] and first["rank"] is not None and "106.2" in first["answer"]
    assert sum(q["passed"] for q in results["questions"]) == round(metrics["passed"] * 20)

    exported = client.get(f"/v1/evals/{run['id']}/results", params={"format": "csv"})
    assert exported.status_code == 200 and exported.headers["content-type"].startswith("text/csv")
    assert "attachment" in exported.headers["content-disposition"]
    table = list(csv.reader(io.StringIO(exported.content.decode("utf-8-sig"))))
    assert tuple(table[0]) == CSV_COLUMNS and len(table) == 21
    assert client.get(f"/v1/evals/{run['id']}/results?format=xml").status_code == 422

    assert [r["id"] for r in client.get("/v1/evals", params={"kb": "api"}).json()["data"]] == [
        run["id"]
    ]
    assert client.get("/v1/evals", params={"kb": "other"}).json()["data"] == []


def test_two_runs_of_inline_rows_compared(client) -> None:  # type: ignore[no-untyped-def]
    ids = []
    for mode in ("smart", "hybrid"):
        r = client.post("/v1/evals", json={"questions": ROWS, "kb": "api", "mode": mode})
        assert r.status_code == 202, r.text
        ids.append(r.json()["id"])
    client.app.state.rag.eval_runner.wait()  # type: ignore[attr-defined]
    assert [wait_done(client, i)["status"] for i in ids] == ["done", "done"]
    sets = client.get("/v1/evals/sets").json()["data"]
    assert [(s["name"], s["n"]) for s in sets] == [("inline", 3), ("inline", 3)]

    r = client.get("/v1/evals/compare", params={"before": ids[0], "after": ids[1]})
    assert r.status_code == 200, r.text
    comparison = r.json()
    assert comparison["before"]["settings"]["mode"] == "smart"
    assert comparison["after"]["settings"]["mode"] == "hybrid"
    assert sum(comparison["counts"].values()) == 3 == len(comparison["changes"])
    order = ["regressed", "improved", "changed", "same"]
    kinds = [order.index(c["change"]) for c in comparison["changes"]]
    assert kinds == sorted(kinds)  # regressions first
    change = comparison["changes"][0]
    assert {"passed", "rank", "answer", "position"} <= set(change["before"])
    by_name = {m["name"]: m for m in comparison["metrics"]}
    assert by_name["n"] == {"name": "n", "before": 3, "after": 3, "delta": 0, "better": None}
    assert "passed" in by_name and "latency_ms_p50" in by_name
    same = client.get("/v1/evals/compare", params={"before": ids[0], "after": ids[0]}).json()
    assert same["counts"]["same"] == 3
    missing = client.get("/v1/evals/compare", params={"before": ids[0], "after": 999})
    assert missing.status_code == 404 and missing.json()["error"]["param"] == "after"


def test_a_run_is_cancelled_resumed_and_deleted(make_client) -> None:  # type: ignore[no-untyped-def]
    llm = GatedLLM()
    client = make_client(llm=llm)
    runner = client.app.state.rag.eval_runner  # type: ignore[attr-defined]
    doc = client.get("/openapi.json").json()
    body = doc["paths"]["/v1/evals"]["post"]["requestBody"]["content"]["application/json"]
    assert body["schema"]["properties"]["answerer"]["enum"] == ["offline", "model"]

    busy = client.post("/v1/evals", json={"questions": ROWS[:3], "kb": "api", "answerer": "model"})
    assert busy.status_code == 202 and busy.json()["settings"]["answerer"] == "scripted"
    assert llm.entered.wait(30)  # the worker is inside the first question
    queued = client.post("/v1/evals", json={"questions": ROWS, "kb": "api"}).json()
    assert client.post(f"/v1/evals/{queued['id']}/cancel").status_code == 200
    r = client.post(f"/v1/evals/{busy.json()['id']}/cancel")
    assert r.status_code == 200 and r.json()["status"] == "running"
    deleting = client.delete(f"/v1/evals/{busy.json()['id']}")
    assert deleting.status_code == 409 and "cancel it first" in deleting.json()["error"]["message"]
    llm.gate.set()
    runner.wait()

    run = wait_done(client, busy.json()["id"])
    # stopped after the questions at hand (a run answers WORKERS at once), scored over them
    assert (run["status"], run["n_done"], run["metrics"]["n"]) == ("cancelled", WORKERS, WORKERS)
    assert wait_done(client, queued["id"])["n_done"] == 0
    assert wait_done(client, queued["id"])["status"] == "cancelled"
    again = client.post(f"/v1/evals/{run['id']}/cancel")
    assert again.status_code == 409 and "cancelled" in again.json()["error"]["message"]

    resumed = client.post(f"/v1/evals/{run['id']}/resume")
    assert resumed.status_code == 202, resumed.text
    runner.wait()
    done = wait_done(client, run["id"])
    assert (done["status"], done["n_done"], done["metrics"]["n"]) == ("done", 3, 3)
    assert client.post(f"/v1/evals/{run['id']}/resume").status_code == 409

    gone = client.delete(f"/v1/evals/{run['id']}")
    assert gone.status_code == 200 and gone.json()["id"] == run["id"]
    assert client.get(f"/v1/evals/{run['id']}").status_code == 404
    assert client.get(f"/v1/evals/{run['id']}/results").status_code == 404
    assert client.delete(f"/v1/evals/{run['id']}").status_code == 404


def test_bad_sets_and_runs_get_a_clear_4xx(client) -> None:  # type: ignore[no-untyped-def]
    twice = [{"id": "x", "question": "a"}, {"id": "x", "question": "b"}]
    r = client.post("/v1/evals/sets", json={"name": "s", "questions": twice})
    assert r.status_code == 422
    assert r.json()["error"] == {
        "message": "the id x is given twice",
        "type": "invalid_request_error",
        "param": "questions",
        "code": "set_duplicate_id",
    }
    r = client.post("/v1/evals/sets", json={"name": "s", "questions": [{"question": " "}]})
    assert r.status_code == 422 and r.json()["error"]["param"] == "questions.0.question"
    r = client.post(
        "/v1/evals/sets", json={"name": "s", "questions": [{"question": "a", "问题": 1}]}
    )
    assert r.status_code == 422 and r.json()["error"]["param"] == "questions.0.问题"
    r = client.post("/v1/evals/sets", json={"name": "s", "questions": []})
    assert r.status_code == 422 and r.json()["error"]["param"] == "questions"
    r = client.post(
        "/v1/evals/sets", json={"name": "s", "questions": [{"question": "a", "pages": [0]}]}
    )
    assert r.status_code == 422 and r.json()["error"]["param"] == "questions.0.pages.0"
    r = client.post(
        "/v1/evals/sets", content=b'{"name": ', headers={"content-type": "application/json"}
    )
    assert r.status_code == 400 and "not valid JSON" in r.json()["error"]["message"]
    r = client.post(
        "/v1/evals/sets", content=b"question\na\n", headers={"content-type": "text/csv"}
    )
    assert r.status_code == 415
    assert client.get("/v1/evals/sets/42").status_code == 404

    r = client.post("/v1/evals", json={"kb": "api"})
    assert r.status_code == 422 and "set_id or questions" in r.json()["error"]["message"]
    r = client.post("/v1/evals", json={"kb": "api", "set_id": 1, "questions": ROWS})
    assert r.status_code == 422
    r = client.post("/v1/evals", json={"kb": "api", "set_id": 42})
    assert r.status_code == 404 and r.json()["error"]["param"] == "set_id"
    r = client.post("/v1/evals", json={"kb": "nope", "questions": ROWS})
    assert r.status_code == 404 and r.json()["error"]["param"] == "kb"
    r = client.post("/v1/evals", json={"kb": "api", "questions": ROWS, "answerer": "model"})
    assert r.status_code == 400 and "no model" in r.json()["error"]["message"]
    doc = client.get("/openapi.json").json()
    body = doc["paths"]["/v1/evals"]["post"]["requestBody"]["content"]["application/json"]
    assert body["schema"]["properties"]["answerer"]["enum"] == ["offline"]
    r = client.post("/v1/evals", json={"kb": "api", "questions": ROWS, "mode": "dense"})
    assert r.status_code == 422 and r.json()["error"]["param"] == "mode"
    r = client.post("/v1/evals", json={"kb": "api", "questions": ROWS, "top_k": 0})
    assert r.status_code == 422 and r.json()["error"]["param"] == "top_k"
    many = [{"question": f"问题{n}"} for n in range(65)]  # inline rows are a batch, at most 64
    r = client.post("/v1/evals", json={"kb": "api", "questions": many})
    assert r.status_code == 422 and r.json()["error"]["param"] == "questions"
    r = client.post("/v1/evals/sets", json={"name": "many", "questions": many})
    assert r.status_code == 201 and r.json()["n"] == 65  # a kept set may be larger
    assert client.get("/v1/evals/7").status_code == 404
    assert client.get("/v1/evals/0").status_code == 422
    assert client.post("/v1/evals/7/cancel").status_code == 404
    assert client.put("/v1/evals/sets").headers["allow"] == "GET, POST"
    # a row naming a document the knowledge base lacks is run, and said
    r = client.post("/v1/evals", json={"kb": "api", "questions": [{**ROWS[0], "document": "x"}]})
    assert r.status_code == 202 and r.json()["unknown_documents"] == ["x"]
    client.app.state.rag.eval_runner.wait()  # type: ignore[attr-defined]


def test_the_token_is_required_and_names_the_runs_user(make_client, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    tokens = tmp_path / "tokens"
    tokens.write_text("alice tok-alice\n", encoding="utf-8")
    client = make_client(tokens_file=str(tokens))
    for method, path in [
        ("GET", "/v1/evals"),
        ("GET", "/v1/evals/sets"),
        ("POST", "/v1/evals"),
        ("GET", "/v1/evals/1/results"),
        ("GET", "/v1/evals/compare?before=1&after=2"),
    ]:
        r = client.request(method, path, json={"kb": "api", "questions": ROWS})
        assert r.status_code == 401, (method, path)
        assert r.headers["www-authenticate"] == "Bearer"
    wrong = client.get("/v1/evals", headers={"Authorization": "Bearer tok-bob"})
    assert wrong.status_code == 401
    alice = {"Authorization": "Bearer tok-alice"}
    r = client.post("/v1/evals", json={"kb": "api", "questions": ROWS}, headers=alice)
    assert r.status_code == 202 and r.json()["user"] == "alice"
    client.app.state.rag.eval_runner.wait()  # type: ignore[attr-defined]
    run = client.get(f"/v1/evals/{r.json()['id']}", headers=alice).json()
    assert run["user"] == "alice" and run["status"] == "done"
    assert client.get(f"/v1/evals/sets/{run['set']['id']}", headers=alice).json()["user"] == "alice"
