"""The HTTP API in-process: health, knowledge bases and uploads, search, ask (JSON and SSE),
batch, bad input, limits, metrics, the audit records."""

from __future__ import annotations

import json
import time

from rag_app.answer import ScriptedLLM
from rag_app.chat.audit import open_audit_log
from tests.conftest import SAMPLE_CONTENT_LIST, TEST_DATA
from tests.server.conftest import QUESTION, sse_payloads


def test_health_says_the_answerer_and_warms_up(client) -> None:
    client.app.state.rag.warm.wait(30)  # type: ignore[attr-defined]
    r = client.get("/health")
    assert r.status_code == 200
    body = r.json()
    assert (body["status"], body["code"], body["warm"]) == ("ok", "ready", True)
    assert body["answerer"] and body["max_answers"] == 16 and body["warm_error"] is None


def test_health_without_the_token_says_status_and_code_only(make_client) -> None:
    """A failed warm-up's text (paths, exception) is for the token holder and the log."""
    client = make_client(token="tok")
    state = client.app.state.rag  # type: ignore[attr-defined]
    state.warm.wait(30)
    state.warm_error = "OSError: /secret/path/model.onnx is missing"
    body = client.get("/health").json()
    assert body == {"status": "degraded", "code": "warm_up_failed", "warm": False}
    full = client.get("/health", headers={"Authorization": "Bearer tok"}).json()
    assert "/secret/path" in full["warm_error"] and full["answerer"]
    assert client.get("/health", headers={"Authorization": "Bearer nope"}).json() == body


def test_kbs_and_documents_are_listed(client) -> None:
    kbs = client.get("/v1/kbs").json()["data"]
    assert {"name": "api", "documents": 1} in kbs
    docs = client.get("/v1/kbs/api/documents").json()["data"]
    assert [d["doc_id"] for d in docs] == ["smic_report"]
    assert docs[0]["n_chunks"] > 0 and isinstance(docs[0]["type_counts"], dict)
    r = client.get("/v1/kbs/nope/documents")
    assert r.status_code == 404 and "nope" in r.json()["error"]["message"]


def test_a_documents_table_cells_are_listed_as_facts(client) -> None:
    doc_id = client.get("/v1/kbs/api/documents").json()["data"][0]["doc_id"]
    r = client.get(f"/v1/kbs/api/documents/{doc_id}/facts")
    assert r.status_code == 200, r.text
    facts = r.json()["data"]
    assert facts and all(f["chunk_id"].startswith(doc_id) for f in facts)
    margins = [f for f in facts if "毛利率" in f["metric"] and f["period"].startswith("2026")]
    assert margins and margins[0]["unit"] == "%" and margins[0]["number"] is not None
    missing = client.get("/v1/kbs/api/documents/nope/facts")
    assert missing.status_code == 404 and missing.json()["error"]["param"] == "doc_id"
    assert client.get(f"/v1/kbs/nope/documents/{doc_id}/facts").status_code == 404


def test_several_files_uploaded_at_once_get_a_report_each(client) -> None:
    files = [
        ("files", ("qa_examples.csv", (TEST_DATA / "qa_examples.csv").read_bytes())),
        ("files", (SAMPLE_CONTENT_LIST.name, SAMPLE_CONTENT_LIST.read_bytes())),
        ("files", ("broken_content_list.json", b'[{"type": "text"')),
    ]
    r = client.post("/v1/kbs/new-kb/documents", files=files)
    assert r.status_code == 207, r.text
    statuses = [f["reports"][0]["status"] for f in r.json()["files"]]
    assert statuses == ["ingested", "ingested", "rejected"]
    rejected = r.json()["files"][2]["reports"][0]
    assert rejected["message"]
    assert "new-kb" in [k["name"] for k in client.get("/v1/kbs").json()["data"]]
    # the same file again is a duplicate, not an error
    again = client.post("/v1/kbs/new-kb/documents", files=files[1:2])
    assert again.status_code == 200
    assert again.json()["files"][0]["reports"][0]["status"] == "duplicate"


def test_a_rejected_file_alone_is_a_207_naming_it(client) -> None:
    """A well-formed upload whose file is refused for its content: each file has its own status
    (207 Multi-Status), the error names the first; a malformed request is the 4xx."""
    r = client.post("/v1/kbs/api/documents", files=[("files", ("broken_content_list.json", b"[{"))])
    assert r.status_code == 207
    body = r.json()
    assert "broken_content_list.json" in body["error"]["message"]
    assert [f["reports"][0]["status"] for f in body["files"]] == ["rejected"]
    assert client.post("/v1/kbs/api/documents", data={"on_conflict": "ask"}).status_code == 415
    r = client.post(
        "/v1/kbs/api/documents",
        files=[("files", ("a.md", b"# a"))],
        data={"on_conflict": "sometimes"},
    )
    assert r.status_code == 422 and r.json()["error"]["param"] == "on_conflict"
    r = client.post(
        "/v1/kbs/api/documents", files=[("files", ("a.md", b"# a"))], data={"colour": "red"}
    )
    assert r.status_code == 422 and r.json()["error"]["param"] == "colour"
    r = client.post("/v1/kbs/api/documents?replace=perhaps", files=[("files", ("a.md", b"# a"))])
    assert r.status_code == 422


def test_a_file_over_the_limit_is_refused_without_being_read(make_client, monkeypatch) -> None:
    from dataclasses import replace

    client = make_client()
    state = client.app.state.rag  # type: ignore[attr-defined]
    state.settings = replace(state.settings, max_file_bytes=1000)
    library = state.library
    read: list[str] = []
    real = library.ingest_bytes
    monkeypatch.setattr(
        library,
        "ingest_bytes",
        lambda files, *a, **k: read.extend(n for n, _ in files) or real(files, *a, **k),
    )
    big = b"# big\n" + b"x" * 5000
    r = client.post(
        "/v1/kbs/api/documents",
        files=[("files", ("big.md", big)), ("files", ("small.md", b"# small\n\nfits."))],
    )
    assert r.status_code == 207, r.text
    reports = {f["name"]: f["reports"][0] for f in r.json()["files"]}
    assert (
        reports["big.md"]["status"] == "rejected"
        and "over the limit" in reports["big.md"]["message"]
    )
    assert reports["small.md"]["status"] == "ingested"
    assert read == ["small.md"]


def test_uploads_beyond_the_limit_at_once_get_429_before_their_body_is_read(make_client) -> None:
    client = make_client(max_uploads=1)
    slots = client.app.state.rag.upload_slots  # type: ignore[attr-defined]
    assert slots.take()  # one upload in progress
    try:
        r = client.post("/v1/kbs/api/documents", files=[("files", ("a.md", b"# a"))])
        assert r.status_code == 429 and r.headers["Retry-After"]
        assert r.json()["error"]["type"] == "rate_limit_error"
    finally:
        slots.give_back()
    r = client.post("/v1/kbs/api/documents", files=[("files", ("a.md", b"# a\n\ntext."))])
    assert r.status_code == 200 and slots.used == 0


def test_a_method_not_allowed_names_every_method_of_the_path(client) -> None:
    r = client.put("/v1/kbs/api/documents")
    assert r.status_code == 405
    assert set(r.headers["Allow"].split(", ")) >= {"GET", "POST"}
    assert r.json()["error"]["type"] == "invalid_request_error"


def test_a_conflict_is_reported_and_resolved_like_the_cli(client) -> None:
    changed = json.loads(SAMPLE_CONTENT_LIST.read_text())
    changed.append({"type": "text", "text": "A line added later.", "page_idx": 0})
    data = json.dumps(changed, ensure_ascii=False).encode()
    upload = [("files", (SAMPLE_CONTENT_LIST.name, data))]
    r = client.post("/v1/kbs/api/documents", files=upload)
    assert r.status_code == 409
    report = r.json()["files"][0]["reports"][0]
    assert report["status"] == "conflict" and report["options"] == ["replace", "keep_both"]
    r = client.post("/v1/kbs/api/documents?on_conflict=keep_both", files=upload)
    assert r.status_code == 200 and r.json()["files"][0]["reports"][0]["doc_id"] != "smic_report"
    # listed under the name it was kept as, as the CLI and the Library page list it
    kept = r.json()["files"][0]["reports"][0]["doc_id"]
    listed = {d["doc_id"]: d["name"] for d in client.get("/v1/kbs/api/documents").json()["data"]}
    assert listed[kept] == kept and listed["smic_report"] == SAMPLE_CONTENT_LIST.name
    r = client.post("/v1/kbs/api/documents", files=upload, data={"on_conflict": "bogus"})
    assert r.status_code == 422 and r.json()["error"]["param"] == "on_conflict"


def test_delete_a_document(client) -> None:
    sheet = TEST_DATA / "qa_examples.csv"
    client.post("/v1/kbs/api/documents", files=[("files", (sheet.name, sheet.read_bytes()))])
    docs = [d["doc_id"] for d in client.get("/v1/kbs/api/documents").json()["data"]]
    extra = next(d for d in docs if d != "smic_report")
    assert client.delete(f"/v1/kbs/api/documents/{extra}").status_code == 200
    r = client.delete(f"/v1/kbs/api/documents/{extra}")
    assert r.status_code == 404 and r.json()["error"]["param"] == "doc_id"


def test_search_returns_hits_with_their_trace(client) -> None:
    r = client.post("/v1/search", json={"query": QUESTION, "kb": "api", "mode": "smart", "k": 5})
    assert r.status_code == 200, r.text
    body = r.json()
    assert 0 < len(body["hits"]) <= 5
    assert body["hits"][0]["signals"] and body["trace"]["routing"]["detected_type"]
    r = client.post("/v1/search", json={"query": "市盈率", "kb": "api", "mode": "bm25", "k": 3})
    assert r.status_code == 200 and 1 <= len(r.json()["hits"]) <= 3


def test_ask_as_json_carries_what_the_app_shows(client) -> None:
    r = client.post("/v1/ask", json={"question": QUESTION, "kb": "api", "mode": "smart"})
    assert r.status_code == 200, r.text
    a = r.json()
    assert "106.2" in a["text"] and "[Source" in a["text"]
    assert a["citations"]["cited_sources"] and a["citations"]["sentences"]
    assert {"supported", "cited", "flagged"} <= set(a["citations"]["sentences"][0])
    assert a["citations"]["untraced_numbers"] == []  # the offline answer quotes its sources
    assert a["sources"][0]["number"] == 1 and a["sources"][0]["doc_id"] == "smic_report"
    assert a["prompt"]["report"]["prompt_tokens"] > 0
    assert a["routing"]["detected_type"] and "total_ms" in a["timings"]
    assert a["finding"] == "" and a["declined"] is False and a["understood"] is None
    # the answer in a few words: the value line's value, with its source
    assert a["short"]["value"].startswith("106.2") and a["short"]["source"] >= 1
    assert a["short"]["scale"] in ("", "thousand", "million", "billion", "percent")


def test_ask_says_where_each_number_was_traced_and_the_schema_describes_it(client) -> None:
    """Issue 25 item 3: beside the untraced numbers, the traced ones with their places (the
    offline answer quotes 表1's 市盈率 row: 106.2 is its 2026E cell)."""
    a = client.post("/v1/ask", json={"question": QUESTION, "kb": "api"}).json()
    traced = a["citations"]["traced_numbers"]
    cell = next(n for n in traced if n["raw"] == "106.2")
    assert a["text"][cell["start"] : cell["end"]] == "106.2"
    place = cell["place"]
    assert place["kind"] == "cell" and place["text"] == "106.2" and place["row"] >= 0
    assert place["row_label"].startswith("市盈率") and "2026E" in place["col_label"]
    assert place["source"] in a["citations"]["cited_sources"]
    per_sentence = [n for s in a["citations"]["sentences"] for n in s["traced"]]
    assert per_sentence == traced
    schemas = client.get("/openapi.json").json()["components"]["schemas"]
    citations = schemas["CitationsJson"]["properties"]
    assert citations["traced_numbers"]["items"] == {"$ref": "#/components/schemas/TracedNumberJson"}
    assert "untraced_numbers" in citations
    assert {"raw", "start", "end", "place", "working", "operands"} <= set(
        schemas["TracedNumberJson"]["properties"]
    )
    assert {"row", "col", "row_label", "col_label", "text"} <= set(
        schemas["PlaceJson"]["properties"]
    )


def test_ask_over_sse_streams_stages_and_tokens_then_the_answer(client) -> None:
    r = client.post(
        "/v1/ask",
        json={"question": QUESTION, "kb": "api"},
        headers={"Accept": "text/event-stream"},
    )
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
    events = [json.loads(p) for p in sse_payloads(r.text)]
    kinds = [e["type"] for e in events]
    assert kinds[0] == "stage" and "token" in kinds and kinds[-1] == "answer"
    stages = [e["stage"] for e in events if e["type"] == "stage"]
    assert stages[:1] == ["retrieving"] and "generating" in stages
    tokens = "".join(e["text"] for e in events if e["type"] == "token")
    assert tokens == events[-1]["answer"]["text"]
    assert events[-1]["answer"]["citations"]["cited_sources"]


def test_a_follow_up_is_understood_from_its_history(client) -> None:
    r = client.post(
        "/v1/ask",
        json={
            "question": "2025年呢？",
            "kb": "api",
            "history": [{"user": QUESTION, "assistant": "106.2倍 [Source 1]"}],
        },
    )
    assert r.status_code == 200, r.text
    understood = r.json()["understood"]
    assert understood is not None and "2025" in understood["text"]


def test_the_library_check_and_its_decline_come_back(client) -> None:
    r = client.post("/v1/ask", json={"question": "贵州茅台2026年的营业收入是多少？", "kb": "api"})
    a = r.json()
    assert r.status_code == 200 and a["finding"] and a["declined"] is True
    assert a["short"] == {"value": "", "scale": "", "source": 0}  # declined: nothing short


def test_batch_answers_each_question(client) -> None:
    qs = [QUESTION, "中芯国际的产线有哪些？", "What is SMIC's forecast P/E for 2026?"]
    r = client.post("/v1/ask/batch", json={"questions": qs, "kb": "api"})
    assert r.status_code == 200, r.text
    results = r.json()["results"]
    assert [x["question"] for x in results] == qs and all(x["text"] for x in results)
    r = client.post("/v1/ask/batch", json={"questions": [QUESTION, " "], "kb": "api"})
    assert r.status_code == 422 and r.json()["error"]["param"] == "questions.1"


def test_bad_input_is_a_4xx_naming_what_is_wrong(client) -> None:
    cases = [
        ({"question": "", "kb": "api"}, 422, "question"),
        ({"question": "x" * 4001, "kb": "api"}, 422, "question"),
        ({"question": QUESTION, "kb": "nope"}, 404, "kb"),
        ({"question": QUESTION, "kb": "api", "mode": "fast"}, 422, "mode"),
        ({"question": QUESTION, "kb": "api", "prompt_mode": "x"}, 422, "prompt_mode"),
        ({"kb": "api"}, 422, "question"),
        ({"question": QUESTION, "kb": "api", "k": 3}, 422, "k"),
    ]
    for body, status, param in cases:
        r = client.post("/v1/ask", json=body)
        assert r.status_code == status, (body, r.text)
        assert r.json()["error"]["param"] == param, r.json()
        assert "Traceback" not in r.text
    r = client.post("/v1/ask", content=b"{not json", headers={"Content-Type": "application/json"})
    assert r.status_code == 400 and "JSON" in r.json()["error"]["message"]
    r = client.get("/v1/nothing-here")
    assert r.status_code == 404 and r.json()["error"]["type"] == "not_found_error"
    r = client.post("/v1/kbs/api/documents", json={"files": []})
    assert r.status_code == 415


def test_bodies_over_the_limits_are_refused(make_client) -> None:
    client = make_client(max_upload_mb=1, max_json_kb=2)
    r = client.post("/v1/ask", json={"question": "x" * 3000, "kb": "api"})
    assert r.status_code == 413 and "limit" in r.json()["error"]["message"]
    big = [("files", ("big_content_list.json", b"[" + b" " * (1024 * 1024 + 10) + b"]"))]
    r = client.post("/v1/kbs/api/documents", files=big)
    assert r.status_code == 413
    # no Content-Length (chunked): counted as it is read
    body = json.dumps({"question": "x" * 3000, "kb": "api"}).encode()
    r = client.post(
        "/v1/ask",
        content=iter([body[:1000], body[1000:]]),
        headers={"Content-Type": "application/json"},
    )
    assert r.status_code == 413 and "limit" in r.json()["error"]["message"]


def test_answers_past_the_stream_limit_get_a_429_with_retry_after(make_client) -> None:
    client = make_client(max_streams=1)
    state = client.app.state.rag  # type: ignore[attr-defined]
    assert state.slots.take()  # one answer already running
    r = client.post("/v1/ask", json={"question": QUESTION, "kb": "api"})
    assert r.status_code == 429 and int(r.headers["Retry-After"]) > 0
    state.slots.give_back()
    assert client.post("/v1/ask", json={"question": QUESTION, "kb": "api"}).status_code == 200
    for _ in range(100):  # the worker gives its slot back as it ends, just after the answer
        if state.slots.used == 0:
            break
        time.sleep(0.02)
    assert state.slots.used == 0


def test_an_unexpected_error_is_a_json_500_without_traceback(make_client) -> None:
    client = make_client()
    client.app.state.rag.pipeline.stream = None  # type: ignore[attr-defined]
    from fastapi.testclient import TestClient

    quiet = TestClient(client.app, raise_server_exceptions=False)
    r = quiet.post("/v1/ask", json={"question": QUESTION, "kb": "api"})
    assert r.status_code == 500
    assert r.json()["error"]["type"] == "server_error" and "Traceback" not in r.text


def test_metrics_count_requests_stages_and_documents(client) -> None:
    client.post("/v1/ask", json={"question": QUESTION, "kb": "api"})
    client.post("/v1/ask", json={"question": "", "kb": "api"})
    client.post("/v1/kbs/api/documents", files=[("files", ("b.json", b"[{"))])
    text = client.get("/metrics").text
    assert 'rag_api_requests_total{method="POST",route="/v1/ask",status="200"} 1.0' in text
    assert 'rag_api_stage_seconds_count{stage="retrieve"} 1.0' in text
    assert 'rag_api_errors_total{kind="http_4xx"}' in text
    assert 'rag_api_documents_total{kb="api",status="rejected"} 1.0' in text


def test_answers_are_audited_as_the_api(make_client) -> None:
    client = make_client(llm=ScriptedLLM(default="106.2倍 [Source 1]"))
    client.post("/v1/ask", json={"question": QUESTION, "kb": "api"})
    settings = client.app.state.rag.settings  # type: ignore[attr-defined]
    log = open_audit_log(settings.data_dir)
    assert log is not None
    (record,) = log.records()
    assert record.client == "api" and record.user == "api" and record.answerer == "scripted"
