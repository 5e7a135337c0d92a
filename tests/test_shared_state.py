"""The shared state on one PostgreSQL database (``RAG_APP_DATABASE_URL``, issue 28): what one
process writes another reads and continues (a real second process), and the places the stores
are built take the URL from the settings. The stores' own tests run on both backends
(tests/backends.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from rag_app.access import Access, AccessStore, Principal
from rag_app.chat.audit import AuditLog, AuditRecord
from rag_app.chat.conversations import ConversationStore, SavedTurn
from rag_app.config import load_settings
from rag_app.database import is_postgres
from rag_app.evals.question_sets import EvalQuestion
from rag_app.evals.store import EvalStore
from rag_app.models import AskOptions

OPTIONS = AskOptions(kb="研报", mode="hybrid")
OWNER, READER = Principal("a@example.com"), Principal("b@example.com")

# The second process: continues the conversation, rates the answer, checks and grants a member,
# queues a run of the set; prints what it found.
CHILD = """
import json, sys
from pathlib import Path
from rag_app.access import Access, AccessStore, Principal
from rag_app.chat.audit import AuditLog
from rag_app.chat.conversations import ConversationStore, SavedTurn
from rag_app.evals.store import EvalStore, RunSettings
from rag_app.models import AskOptions

url, conversation_id, record_id, set_id = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
folder = Path(sys.argv[5])
conversations = ConversationStore.in_dir(folder, url)
log = AuditLog.in_dir(folder, 90, url)
access = Access(AccessStore.in_dir(folder, url), audit=log)
evals = EvalStore.in_dir(folder, url)
found = conversations.get("a@example.com", conversation_id)
ok = conversations.append(
    "a@example.com", conversation_id, SavedTurn("second", AskOptions(kb="研报"), answer="b")
)
rated = log.give_feedback(record_id, -1, "wrong", user="b@example.com")
role = access.role("研报", Principal("b@example.com"))
access.grant("研报", Principal("a@example.com"), "c@example.com", "editor")
run_id = evals.add_run(set_id, RunSettings(kb="研报"), 1, "b@example.com")
print(json.dumps({
    "turns": [t.question for t in found.turns], "appended": ok, "rated": rated,
    "role": role, "records": [r.question for r in log.records()], "run": run_id,
}))
"""


def test_a_second_process_continues_what_this_one_began(database_url: str, tmp_path: Path) -> None:
    conversations = ConversationStore.in_dir(tmp_path, database_url)
    log = AuditLog.in_dir(tmp_path, 90, database_url)
    access = Access(AccessStore.in_dir(tmp_path, database_url), audit=log)
    evals = EvalStore.in_dir(tmp_path, database_url)
    info = conversations.create(OWNER.name, "first", "研报")
    conversations.append(OWNER.name, info.id, SavedTurn("first", OPTIONS, answer="a"))
    record_id = log.add(_record("first"))
    access.created("研报", OWNER)
    access.grant("研报", OWNER, READER.name, "reader")
    set_id = evals.add_set("set", [EvalQuestion("1", "q?")], OWNER.name)

    child = subprocess.run(
        [sys.executable, "-c", CHILD, database_url, info.id, str(record_id), str(set_id),
         str(tmp_path / "other")],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert child.returncode == 0, child.stderr
    seen: dict[str, Any] = json.loads(child.stdout.strip().splitlines()[-1])
    assert seen == {
        "turns": ["first"],
        "appended": True,
        "rated": True,
        "role": "reader",
        "records": ["first"],
        "run": seen["run"],
    }
    # and this process sees what the other wrote
    again = conversations.get(OWNER.name, info.id)
    assert again is not None and [t.question for t in again.turns] == ["first", "second"]
    (record,) = log.records(rated=-1)
    assert record.feedback is not None and record.feedback.user == READER.name
    assert access.role("研报", Principal("c@example.com")) == "editor"
    run = evals.run(int(seen["run"]))
    assert run is not None and (run.set_name, run.user, run.status) == (
        "set",
        READER.name,
        "queued",
    )
    assert not list((tmp_path / "other").glob("*.sqlite"))  # nothing went to a file
    assert not list(tmp_path.glob("*.sqlite"))


def test_the_servers_stores_are_the_databases_url_when_set(
    database_url: str, tmp_path: Path
) -> None:
    from rag_app.server.state import ServerState

    settings = load_settings(env={}, data_dir=tmp_path / "data", database_url=database_url)
    state = ServerState(settings, library=object(), llm=None)  # type: ignore[arg-type]
    try:
        assert state.audit is not None and is_postgres(state.audit._db)
        assert state.access.store is not None and is_postgres(state.access.store._db)
        assert is_postgres(state.evals._db) and state.evals.where == "the shared database"
        state.access.created("研报", OWNER)
        assert AccessStore.in_dir(tmp_path, database_url).owner("研报") == OWNER.name
    finally:
        state.close()
    assert not list((tmp_path / "data").glob("*.sqlite"))
    plain = ServerState(
        load_settings(env={}, data_dir=tmp_path / "plain"),
        library=object(),  # type: ignore[arg-type]
        llm=None,
    )
    plain.close()
    assert {p.name for p in (tmp_path / "plain").glob("*.sqlite")} == {
        "audit.sqlite",
        "access.sqlite",
        "evals.sqlite",
    }


def _record(question: str) -> AuditRecord:
    return AuditRecord(
        time=datetime.now(UTC).isoformat(timespec="milliseconds"),
        user=OWNER.name,
        kb="研报",
        client="api",
        mode="hybrid",
        question=question,
        standalone_question=question,
        detected_type="",
        hits=(),
        prompt_tokens=0,
        answerer="offline",
        model="",
        timings={},
    )
