"""The bearer token, the loopback rule of ``rag-app serve``, and the OpenAI-compatible chat API
driven by the ``openai`` client itself (in-process through the TestClient)."""

from __future__ import annotations

import logging

import pytest
from openai import NotFoundError, OpenAI

from rag_app.chat.audit import open_audit_log
from rag_app.cli.main import main
from rag_app.cli.serve import is_loopback
from rag_app.server.auth import TokenConfigError, load_tokens
from tests.server.conftest import QUESTION

TOKEN = "s3cret-token-value"


def test_a_set_token_is_required_everywhere_but_health(make_client, caplog) -> None:
    caplog.set_level(logging.DEBUG)
    client = make_client(token=TOKEN)
    assert client.get("/health").status_code == 200
    for method, path in [
        ("GET", "/v1/kbs"),
        ("GET", "/metrics"),
        ("POST", "/v1/ask"),
        ("POST", "/v1/chat/completions"),
        ("GET", "/v1/models"),
        ("DELETE", "/v1/kbs/api/documents/smic_report"),
    ]:
        r = client.request(method, path, json={"question": "x", "kb": "api"})
        assert r.status_code == 401, (path, r.text)
        assert r.headers["WWW-Authenticate"] == "Bearer"
    wrong = client.get("/v1/kbs", headers={"Authorization": "Bearer nope"})
    assert wrong.status_code == 401 and wrong.json()["error"]["type"] == "authentication_error"
    good = {"Authorization": f"Bearer {TOKEN}"}
    assert client.get("/v1/kbs", headers=good).status_code == 200
    r = client.post("/v1/ask", json={"question": QUESTION, "kb": "api"}, headers=good)
    assert r.status_code == 200
    assert TOKEN not in caplog.text
    settings = client.app.state.rag.settings  # type: ignore[attr-defined]
    assert TOKEN not in repr(settings)
    log = open_audit_log(settings.data_dir)
    assert log is not None
    records = log.records()
    assert [r.user for r in records] == ["api"]
    assert all(TOKEN not in str(r.to_json()) for r in records)


# What `openssl rand -base64 32` prints: "=" padding at the end, "+" and "/" inside.
B64_TOKEN = "q8Xv0Jp9mZk3Lr7+b2Nc4Wy6Ha1Ue5Sd/0kLmN3pQrs="


def test_a_base64_token_is_taken_whole(make_client, caplog) -> None:
    """The whole token opens; "=", its halves, other cases and the token with a character more
    or less do not (the token used to be split at its first "=" as ``name=token``)."""
    caplog.set_level(logging.DEBUG)
    client = make_client(token=B64_TOKEN)
    near = [
        "=",
        "==",
        "s=",
        B64_TOKEN[:-1],
        B64_TOKEN + "=",
        B64_TOKEN.lower(),
        B64_TOKEN[1:],
        B64_TOKEN.split("+")[0],
        B64_TOKEN.split("+")[1],
        f"api={B64_TOKEN}",
        " ",
    ]
    for bad in near:
        r = client.get("/v1/kbs", headers={"Authorization": f"Bearer {bad}"})
        assert r.status_code == 401, bad
        assert B64_TOKEN not in r.text and "q8Xv" not in r.text
    assert (
        client.get("/v1/kbs", headers={"Authorization": f"Bearer {B64_TOKEN}"}).status_code == 200
    )
    assert (
        client.get("/v1/kbs", headers={"Authorization": f"bearer {B64_TOKEN}"}).status_code == 200
    )
    assert B64_TOKEN not in caplog.text


def test_named_tokens_come_from_a_file_by_token_or_its_sha256(make_client, tmp_path) -> None:
    import hashlib

    bob = "t2+/x=="
    tokens = tmp_path / "tokens"
    tokens.write_text(
        "# name token, or name sha256:<hex>\n"
        f"alice {B64_TOKEN}\n\n"
        f"bob sha256:{hashlib.sha256(bob.encode()).hexdigest()}\n",
        encoding="utf-8",
    )
    client = make_client(tokens_file=str(tokens))
    for token in (bob, B64_TOKEN):
        r = client.post(
            "/v1/ask",
            json={"question": QUESTION, "kb": "api"},
            headers={"Authorization": f"Bearer {token}"},
        )
        assert r.status_code == 200, r.text
    r = client.get(
        "/v1/kbs",
        headers={"Authorization": f"Bearer sha256:{hashlib.sha256(bob.encode()).hexdigest()}"},
    )
    assert r.status_code == 401  # the digest itself is no token
    log = open_audit_log(client.app.state.rag.settings.data_dir)  # type: ignore[attr-defined]
    assert log is not None and sorted(r.user for r in log.records()) == ["alice", "bob"]


@pytest.mark.parametrize(
    "content, problem",
    [
        ("alice", "line 1: expected"),
        ("alice t1 t2", "line 1: expected"),
        ("alice t1\nalice t2", "a name is given twice"),
        ("# only a comment\nbob a,b", "line 2: a bearer token holds"),
        ("carol =abc", "line 1: a bearer token holds"),
    ],
)
def test_a_tokens_file_that_cannot_be_used_is_named_without_its_tokens(
    tmp_path, content, problem
) -> None:
    path = tmp_path / "tokens"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(TokenConfigError) as err:
        load_tokens("", str(path))
    assert problem in str(err.value)
    for secret in ("t1", "t2", "a,b", "=abc"):
        assert f" {secret}" not in str(err.value)


def test_serve_refuses_a_token_it_could_never_match(capsys, monkeypatch) -> None:
    monkeypatch.setenv("RAG_APP_SERVER_TOKEN", "two words")
    assert main(["serve", "--port", "1"]) == 2
    err = capsys.readouterr().err
    assert "RAG_APP_SERVER_TOKEN" in err and "two words" not in err


def test_serve_refuses_a_remote_host_without_a_token(capsys, monkeypatch) -> None:
    monkeypatch.delenv("RAG_APP_SERVER_TOKEN", raising=False)
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.168.1.5")
    assert main(["serve", "--host", "0.0.0.0", "--port", "1"]) == 2
    assert "RAG_APP_SERVER_TOKEN" in capsys.readouterr().err


@pytest.fixture
def openai_client(make_client) -> OpenAI:  # type: ignore[no-untyped-def]
    client = make_client(token=TOKEN)
    # The TestClient is an httpx.Client: the openai client talks to the app in-process.
    return OpenAI(base_url="http://testserver/v1", api_key=TOKEN, http_client=client)


def test_models_list_the_knowledge_bases(openai_client: OpenAI) -> None:
    assert [m.id for m in openai_client.models.list()] == ["api"]


def test_chat_without_streaming_keeps_markers_and_returns_sources(openai_client) -> None:
    completion = openai_client.chat.completions.create(
        model="api", messages=[{"role": "user", "content": QUESTION}]
    )
    text = completion.choices[0].message.content or ""
    assert "106.2" in text and "[Source" in text
    extra = completion.model_extra or {}
    assert extra["sources"][0]["doc_id"] == "smic_report"
    assert extra["rag"]["citations"]["cited_sources"]


def test_chat_streams_chunks_and_ends_with_the_sources(openai_client) -> None:
    chunks = list(
        openai_client.chat.completions.create(
            model="api",
            stream=True,
            messages=[
                {"role": "system", "content": "be brief"},
                {"role": "user", "content": "中芯国际2025年的预测市盈率是多少？"},
                {"role": "assistant", "content": "…"},
                {"role": "user", "content": QUESTION},
            ],
        )
    )
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert "106.2" in text and "[Source" in text
    last = chunks[-1]
    assert last.choices[0].finish_reason == "stop"
    assert (last.model_extra or {})["sources"]


def test_chat_errors_come_back_as_openai_errors(openai_client) -> None:
    with pytest.raises(NotFoundError) as err:
        openai_client.chat.completions.create(
            model="nope", messages=[{"role": "user", "content": QUESTION}]
        )
    assert "nope" in str(err.value)
    from openai import UnprocessableEntityError

    with pytest.raises(UnprocessableEntityError):
        openai_client.chat.completions.create(
            model="api", messages=[{"role": "system", "content": "no question"}]
        )
