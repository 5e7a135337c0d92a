"""Knowledge-base permissions over HTTP: with named tokens (users A and B, C in a group) a
knowledge base A's upload makes is A's alone: B does not see it in lists, gets 404s on its
documents, search, answers, chat and evaluations; a reader B asks but cannot upload (a 403,
audited); revoking takes it back; a shared knowledge base (made before, nobody's) is everyone's
until claimed; with the one unnamed token or none, nothing changes from before permissions."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from rag_app.chat.audit import AuditLog
from rag_app.server.auth import TokenConfigError, load_tokens
from tests.conftest import SAMPLE_CONTENT_LIST
from tests.server.conftest import QUESTION
from tests.server.test_evals_api import wait_done

A = {"Authorization": "Bearer token-a"}
B = {"Authorization": "Bearer token-b"}
C = {"Authorization": "Bearer token-c"}
KB = "a-kb"
SAMPLE = [("files", (SAMPLE_CONTENT_LIST.name, SAMPLE_CONTENT_LIST.read_bytes()))]
ROW = {"question": QUESTION, "answer": "106.2"}


@pytest.fixture
def client(make_client, tmp_path: Path) -> Any:  # type: ignore[no-untyped-def]
    """A server with named tokens over the sample in the shared knowledge base ``api``, and
    A's own knowledge base ``a-kb`` (its upload made it)."""
    tokens = tmp_path / "tokens"
    tokens.write_text(
        "# name token [groups=...]\n"
        "a@example.com token-a\n"
        "b@example.com token-b\n"
        "c@example.com token-c groups=analysts,sales\n",
        encoding="utf-8",
    )
    client = make_client(tokens_file=str(tokens))
    r = client.post(f"/v1/kbs/{KB}/documents", files=SAMPLE, headers=A)
    assert r.status_code == 200, r.text
    return client


def kbs(client: Any, headers: dict[str, str]) -> dict[str, str]:
    """The knowledge bases ``headers``' caller sees, with its role on each."""
    names = [k["name"] for k in client.get("/v1/kbs", headers=headers).json()["data"]]
    return {kb: client.get(f"/v1/kbs/{kb}/members", headers=headers).json()["role"] for kb in names}


def audit_of(client: Any) -> AuditLog:
    return AuditLog.in_dir(client.app.state.rag.settings.data_dir)


def ask(client: Any, headers: dict[str, str], kb: str = KB) -> Any:
    return client.post("/v1/ask", json={"question": QUESTION, "kb": kb}, headers=headers)


def test_a_knowledge_base_made_by_an_upload_is_invisible_to_others(client) -> None:  # type: ignore[no-untyped-def]
    assert kbs(client, A) == {"api": "editor", KB: "admin"}
    assert kbs(client, B) == {"api": "editor"}
    models = client.get("/v1/models", headers=B).json()["data"]
    assert [m["id"] for m in models] == ["api"]
    members = client.get(f"/v1/kbs/{KB}/members", headers=A).json()
    assert (members["owner"], members["role"], members["data"]) == ("a@example.com", "admin", [])

    doc_id = client.get(f"/v1/kbs/{KB}/documents", headers=A).json()["data"][0]["doc_id"]
    refused = [
        client.get(f"/v1/kbs/{KB}/documents", headers=B),
        client.post("/v1/search", json={"query": "市盈率", "kb": KB}, headers=B),
        ask(client, B),
        client.post(
            "/v1/ask",
            json={"question": QUESTION, "kb": KB},
            headers={**B, "Accept": "text/event-stream"},
        ),
        client.post("/v1/ask/batch", json={"questions": [QUESTION], "kb": KB}, headers=B),
        client.post(
            "/v1/chat/completions",
            json={"model": KB, "messages": [{"role": "user", "content": QUESTION}]},
            headers=B,
        ),
        client.post(f"/v1/kbs/{KB}/documents", files=SAMPLE, headers=B),
        client.delete(f"/v1/kbs/{KB}/documents/{doc_id}", headers=B),
        client.get(f"/v1/kbs/{KB}/members", headers=B),
        client.put(
            f"/v1/kbs/{KB}/members", json={"name": "b@example.com", "role": "admin"}, headers=B
        ),
        client.post(f"/v1/kbs/{KB}/claim", headers=B),
        client.post("/v1/evals", json={"questions": [ROW], "kb": KB}, headers=B),
    ]
    for r in refused:
        assert r.status_code == 404, (r.request.url, r.text)
        error = r.json()["error"]
        # as for a name nobody has: the known ones listed are B's only
        assert error["type"] == "not_found_error" and error["message"].endswith("known: api)")
    assert refused[5].json()["error"]["param"] == "model"
    unknown = client.get("/v1/kbs/nobodys/documents", headers=B).json()["error"]["message"]
    assert unknown == "no knowledge base 'nobodys' (known: api)"
    # every refusal on A's knowledge base is in the audit log, as who tried what
    denied = [r for r in audit_of(client).records() if r.error_kind == "denied"]
    assert len(denied) == len(refused)
    assert {(r.user, r.kb, r.client) for r in denied} == {("b@example.com", KB, "api")}


def test_evaluation_runs_and_sets_of_another_are_not_seen(client) -> None:  # type: ignore[no-untyped-def]
    started = client.post("/v1/evals", json={"questions": [ROW], "kb": KB}, headers=A)
    assert started.status_code == 202, started.text
    run_id, set_id = started.json()["id"], started.json()["set"]["id"]
    assert wait_done(_As(client, A), run_id)["status"] == "done"
    mine = client.post("/v1/evals", json={"questions": [ROW], "kb": "api"}, headers=B).json()
    wait_done(_As(client, B), mine["id"])

    assert [r["id"] for r in client.get("/v1/evals", headers=B).json()["data"]] == [mine["id"]]
    assert client.get(f"/v1/evals?kb={KB}", headers=B).json()["data"] == []
    assert {r["id"] for r in client.get("/v1/evals", headers=A).json()["data"]} == {
        run_id,
        mine["id"],  # the shared knowledge base's runs are everyone's to see
    }
    for path in (
        f"/v1/evals/{run_id}",
        f"/v1/evals/{run_id}/results",
        f"/v1/evals/{run_id}/results?format=csv",
        f"/v1/evals/compare?before={mine['id']}&after={run_id}",
        f"/v1/evals/sets/{set_id}",
    ):
        r = client.get(path, headers=B)
        assert r.status_code == 404 and "no " in r.json()["error"]["message"], path
    assert client.delete(f"/v1/evals/{run_id}", headers=B).status_code == 404
    r = client.post("/v1/evals", json={"set_id": set_id, "kb": "api"}, headers=B)
    assert r.status_code == 404 and r.json()["error"]["param"] == "set_id"
    sets = client.get("/v1/evals/sets", headers=B).json()["data"]
    assert [s["id"] for s in sets] == [mine["set"]["id"]]

    # a reader sees A's run, but deletes only its own: an editor's or the maker's to change
    client.put(f"/v1/kbs/{KB}/members", json={"name": "b@example.com", "role": "reader"}, headers=A)
    assert client.get(f"/v1/evals/{run_id}/results", headers=B).status_code == 200
    r = client.delete(f"/v1/evals/{run_id}", headers=B)
    assert r.status_code == 403 and r.json()["error"]["code"] == "access_denied"
    assert client.delete(f"/v1/evals/{run_id}", headers=A).status_code == 200


class _As:
    """A client whose GETs carry ``headers`` (for ``wait_done``)."""

    def __init__(self, client: Any, headers: dict[str, str]) -> None:
        self.client, self.headers = client, headers

    def get(self, path: str) -> Any:
        return self.client.get(path, headers=self.headers)


def test_a_reader_asks_but_may_not_upload_and_the_denial_is_audited(client) -> None:  # type: ignore[no-untyped-def]
    r = client.put(
        f"/v1/kbs/{KB}/members", json={"name": "b@example.com", "role": "reader"}, headers=A
    )
    assert r.status_code == 200, r.text
    assert r.json()["data"] == [{"name": "b@example.com", "kind": "user", "role": "reader"}]
    assert kbs(client, B) == {"api": "editor", KB: "reader"}
    assert ask(client, B).status_code == 200
    assert client.get(f"/v1/kbs/{KB}/members", headers=B).json()["role"] == "reader"

    r = client.post(f"/v1/kbs/{KB}/documents", files=SAMPLE, headers=B)
    assert r.status_code == 403
    error = r.json()["error"]
    assert (error["type"], error["code"], error["param"]) == (
        "permission_error",
        "access_denied",
        "kb",
    )
    assert "needs editor" in error["message"] and "your role is reader" in error["message"]
    r = client.put(f"/v1/kbs/{KB}/members", json={"name": "x", "role": "admin"}, headers=B)
    assert r.status_code == 403
    (upload, manage) = [r for r in audit_of(client).records() if r.error_kind == "denied"][::-1]
    assert (upload.user, upload.kb, upload.error) == (
        "b@example.com",
        KB,
        "access denied: upload documents needs editor",
    )
    assert manage.error == "access denied: manage members needs admin"

    r = client.delete(f"/v1/kbs/{KB}/members/user/b@example.com", headers=A)
    assert r.status_code == 200 and r.json()["data"] == []
    assert ask(client, B).status_code == 404 and KB not in kbs(client, B)
    assert client.delete(f"/v1/kbs/{KB}/members/user/b@example.com", headers=A).status_code == 404
    assert client.delete(f"/v1/kbs/{KB}/members/team/x", headers=A).status_code == 422


def test_a_group_member_holds_its_groups_role(client) -> None:  # type: ignore[no-untyped-def]
    assert KB not in kbs(client, C)
    r = client.put(
        f"/v1/kbs/{KB}/members",
        json={"name": "analysts", "kind": "group", "role": "editor"},
        headers=A,
    )
    assert r.status_code == 200
    assert kbs(client, C)[KB] == "editor" and KB not in kbs(client, B)
    files = [("files", ("note.md", "# 笔记\n\n中芯国际的产能利用率。".encode()))]
    assert client.post(f"/v1/kbs/{KB}/documents", files=files, headers=C).status_code == 200
    r = client.put(f"/v1/kbs/{KB}/members", json={"name": "x", "role": "reader"}, headers=C)
    assert r.status_code == 403  # an editor, not an admin


def test_a_shared_knowledge_base_is_everyones_until_claimed(client) -> None:  # type: ignore[no-untyped-def]
    for who in (A, B):
        assert kbs(client, who)["api"] == "editor"
        assert ask(client, who, "api").status_code == 200
    members = client.get("/v1/kbs/api/members", headers=B).json()
    assert (members["owner"], members["role"]) == (None, "editor")
    r = client.put("/v1/kbs/api/members", json={"name": "x", "role": "reader"}, headers=B)
    assert r.status_code == 403  # a shared one's members are managed once it is claimed

    r = client.post("/v1/kbs/api/claim", headers=B)
    assert r.status_code == 200 and r.json()["owner"] == "b@example.com"
    assert "api" not in kbs(client, A) and kbs(client, B)["api"] == "admin"
    r = client.post("/v1/kbs/api/claim", headers=B)
    assert r.status_code == 409 and "b@example.com" in r.json()["error"]["message"]


def test_an_upload_that_makes_no_knowledge_base_leaves_its_name_nobodys(client) -> None:  # type: ignore[no-untyped-def]
    r = client.post("/v1/kbs/b-kb/documents", files=[("other", ("x.md", b"# x"))], headers=B)
    assert r.status_code == 422
    assert client.app.state.rag.access.store.owner("b-kb") is None
    assert client.post("/v1/kbs/b-kb/documents", files=SAMPLE, headers=A).status_code == 200
    assert kbs(client, A)["b-kb"] == "admin" and "b-kb" not in kbs(client, B)
    # a rejected file still makes its (empty) knowledge base, as before: the uploader's
    r = client.post("/v1/kbs/c-kb/documents", files=[("files", ("x.json", b"[{"))], headers=B)
    assert r.status_code == 207 and kbs(client, B)["c-kb"] == "admin"


@pytest.mark.parametrize("token", ["tok", None])
def test_with_one_unnamed_token_or_none_nothing_changes(make_client, token) -> None:  # type: ignore[no-untyped-def]
    client = make_client(**({"token": token} if token else {}))
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    r = client.post(f"/v1/kbs/{KB}/documents", files=SAMPLE, headers=headers)
    assert r.status_code == 200
    assert kbs(client, headers) == {"api": "admin", KB: "admin"}
    members = client.get(f"/v1/kbs/{KB}/members", headers=headers).json()
    assert (members["owner"], members["role"]) == (None, "admin")  # nobody's: shared
    assert ask(client, headers).status_code == 200
    r = client.post(f"/v1/kbs/{KB}/claim", headers=headers)
    assert r.status_code == 409  # the local user owns everything already
    r = client.put(f"/v1/kbs/{KB}/members", json={"name": "b", "role": "reader"}, headers=headers)
    assert r.status_code == 200  # kept for when named tokens come


def test_a_tokens_file_line_may_name_groups(tmp_path: Path) -> None:
    path = tmp_path / "tokens"
    path.write_text("alice t1 groups=analysts,sales\nbob t2\n", encoding="utf-8")
    tokens = load_tokens("t0", str(path))
    alice, bob = tokens.entry_of("t1"), tokens.entry_of("t2")
    assert alice is not None and alice.caller.principal.groups == ("analysts", "sales")
    assert bob is not None and bob.caller.enforced and bob.caller.principal.groups == ()
    unnamed = tokens.entry_of("t0")
    assert unnamed is not None and not unnamed.caller.enforced
    for line in ("alice t1 analysts", "alice t1 groups=", "alice t1 groups=a b"):
        path.write_text(line, encoding="utf-8")
        with pytest.raises(TokenConfigError):
            load_tokens("", str(path))
