"""Knowledge-base permissions in the Streamlit UI (issue 28): the groups a sign-in's claims name,
a denial in the UI's language, the audit records a user may see, and (AppTest, ``st.user``
faked by ``AppTest.user``) two signed-in users: one's knowledge base is invisible to the other
on every page until made a member, a reader cannot upload or delete, and without sign-in
everyone sees everything as before."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from rag_app.access import AccessDenied
from rag_app.chat.audit import AuditLog
from tests.conftest import REPO_ROOT
from tests.ui.audit_support import answered_record
from ui.permissions import denial_text, groups_from_claims, visible_records

APP = str(REPO_ROOT / "streamlit_app.py")
ALICE = {"is_logged_in": True, "email": "alice@example.com", "name": "Alice"}
BOB = {"is_logged_in": True, "email": "bob@example.com", "groups": "staff, analysts"}
KB = "爱丽丝的库"


# -- the pure helpers -----------------------------------------------------------------------------
def test_groups_come_from_the_named_claim_or_the_usual_ones() -> None:
    claims = {"groups": ["analysts", " sales ", ""], "roles": "admins,analysts", "team": "x, y"}
    assert groups_from_claims(claims) == ("analysts", "sales", "admins")
    assert groups_from_claims(claims, "team") == ("x", "y")
    assert groups_from_claims(claims, "missing") == ()
    assert groups_from_claims({"groups": 3}) == ()


def test_a_denial_is_worded_in_the_uis_language(lang: str) -> None:
    text = denial_text(AccessDenied("研报A", "upload", "editor", "b@example.com"))
    if lang == "zh":
        assert text == "你没有在知识库「研报A」中上传文档的权限（需要编辑角色）。"
    else:
        assert (
            text
            == 'You may not upload documents in knowledge base "研报A" (it needs the editor role).'
        )


def test_the_audit_page_reads_only_the_records_of_visible_knowledge_bases(tmp_path: Path) -> None:
    log = AuditLog.in_dir(tmp_path)
    for kb, time in (
        ("甲", "2026-01-01T00:00:01"),
        ("乙", "2026-01-01T00:00:02"),
        ("丙", "2026-01-01T00:00:03"),
    ):
        log.add(replace(answered_record(), kb=kb, time=time))
    newest_first = [r.kb for r in visible_records(log, ["甲", "乙"], kb=None, limit=10)]
    assert newest_first == ["乙", "甲"]
    assert visible_records(log, ["甲", "乙"], kb="丙", limit=10) == []  # not theirs, even named
    assert [r.kb for r in visible_records(log, ["甲", "乙"], kb=None, limit=1)] == ["乙"]
    assert len(visible_records(log, None, kb=None, limit=10)) == 3  # not enforced: all


# -- the pages, two users -------------------------------------------------------------------------


def session(user: dict[str, Any] | None, page: str = "views/library.py") -> AppTest:
    at = AppTest.from_file(APP, default_timeout=240)
    if user is not None:
        at.user = user
    at.run()
    assert not at.exception, at.exception
    at.switch_page(page).run()
    assert not at.exception, at.exception
    return at


def button(at: AppTest, label: str) -> Any:
    (found,) = [b for b in at.button if b.label == label]
    return found


def kb_options(at: AppTest, key: str) -> list[str]:
    return list(at.selectbox(key=key).options)


@pytest.mark.slow
def test_a_knowledge_base_is_its_makers_until_a_member_is_added(env: Path) -> None:
    alice = session(ALICE)
    alice.text_input(key="new_kb_name").input(KB)
    button(alice, "创建").click().run()
    assert not alice.exception, alice.exception
    assert KB in kb_options(alice, "_w_kb__library")
    assert alice.selectbox(key="_w_kb__library").value == KB
    assert "你的角色：管理员" in [c.value for c in alice.caption]
    assert not button(alice, "删除知识库").disabled

    bob = session(BOB)
    assert KB not in kb_options(bob, "_w_kb__library")
    assert "示例" in kb_options(bob, "_w_kb__library")  # nobody's: shared
    for page, key in (("views/audit.py", "audit_kb"), ("views/evaluate.py", "_w_kb__evaluate")):
        bob.switch_page(page).run()
        assert not bob.exception, bob.exception
        assert KB not in kb_options(bob, key), page

    # Alice makes Bob's group a reader
    alice.text_input(key="members_name").input("analysts")
    alice.selectbox(key="members_kind").set_value("group")
    alice.selectbox(key="members_role").set_value("reader")
    alice.button(key="members_add_button").click().run()
    assert not alice.exception, alice.exception
    assert any("已将「analysts」设为读者" in s.value for s in alice.success)

    bob = session(BOB)
    assert KB in kb_options(bob, "_w_kb__library")
    bob.selectbox(key="_w_kb__library").set_value(KB).run()
    assert "你的角色：读者" in [c.value for c in bob.caption]
    assert bob.file_uploader[0].proto.disabled  # a reader reads
    assert button(bob, "删除知识库").disabled
    assert any("上传文档的权限" in i.value for i in bob.info)
    assert not [w for w in bob.text_input if w.key == "members_name"]  # members: admins only
    bob.switch_page("views/audit.py").run()
    assert KB in kb_options(bob, "audit_kb")

    # without sign-in: the one local user sees and manages everything, as before
    local = session(None)
    assert KB in kb_options(local, "_w_kb__library")
    assert not button(local, "删除知识库").disabled
    assert not [c for c in local.caption if "你的角色" in c.value]  # no Members section


@pytest.mark.slow
def test_a_visitor_reads_shared_knowledge_bases_and_cannot_create(env: Path) -> None:
    visitor = session({"is_logged_in": False})
    assert KB not in kb_options(visitor, "_w_kb__library")
    assert button(visitor, "创建").disabled
    assert visitor.file_uploader[0].proto.disabled  # 示例: shared, a visitor only reads it
