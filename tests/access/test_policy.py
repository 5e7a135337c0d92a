"""Knowledge-base permissions: owners, members and groups with their roles, shared knowledge
bases, the local user without sign-in, and denials written to the audit log; on a SQLite file
and on the shared PostgreSQL database (tests/backends.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rag_app.access import LOCAL, Access, AccessDenied, AccessStore, Principal
from rag_app.chat.audit import AuditLog
from tests.backends import BACKENDS, backend_url

A = Principal("a@example.com")
B = Principal("b@example.com", groups=("analysts",))
C = Principal("c@example.com", groups=("sales",))


@pytest.fixture(params=BACKENDS)
def url(request: pytest.FixtureRequest) -> str:
    return backend_url(request)


@pytest.fixture
def access(tmp_path: Path, url: str) -> Access:
    return Access(AccessStore.in_dir(tmp_path, url), audit=AuditLog.in_dir(tmp_path, 90, url))


def test_a_knowledge_base_made_while_signed_in_is_its_makers_alone(access: Access) -> None:
    access.created("研报A", A)
    assert access.role("研报A", A) == "admin"
    assert access.role("研报A", B) is None and access.role("研报A", LOCAL) is None
    assert access.visible(["研报A", "示例"], B) == ["示例"]  # 示例: nobody's, shared
    assert access.role("示例", B) == "editor" and access.role("示例", LOCAL) == "reader"


def test_members_and_groups_hold_the_highest_role_given(access: Access) -> None:
    access.created("研报A", A)
    access.grant("研报A", A, "analysts", "reader", kind="group")
    access.grant("研报A", A, B.name, "editor")
    assert access.role("研报A", B) == "editor"  # own role above the group's
    assert access.role("研报A", C) is None
    access.grant("研报A", A, "sales", "admin", kind="group")
    assert access.role("研报A", C) == "admin"
    assert access.revoke("研报A", A, B.name)
    assert access.role("研报A", B) == "reader"  # the group's role remains


def test_a_denial_raises_and_is_audited(access: Access, tmp_path: Path, url: str) -> None:
    access.created("研报A", A)
    access.grant("研报A", A, B.name, "reader")
    assert access.require("研报A", B, "reader", "ask") == "reader"
    with pytest.raises(AccessDenied) as denied:
        access.require("研报A", B, "editor", "upload")
    assert denied.value.reason.key == "access_denied" and denied.value.need == "editor"
    with pytest.raises(AccessDenied):
        access.grant("研报A", B, C.name, "admin")  # only an admin manages members
    (record, other) = AuditLog.in_dir(tmp_path, 90, url).records()
    assert {record.error, other.error} == {
        "access denied: upload needs editor",
        "access denied: manage members needs admin",
    }
    assert record.user == B.name and record.kb == "研报A" and record.error_kind == "denied"


def test_a_shared_knowledge_base_is_claimed_by_an_editor_once(access: Access) -> None:
    access.claim("示例", A)
    assert access.role("示例", A) == "admin" and access.role("示例", B) is None
    with pytest.raises(AccessDenied):
        access.claim("示例", B)
    access.deleted("示例")  # a new 示例 starts shared again
    assert access.role("示例", B) == "editor"


def test_without_sign_in_the_one_local_user_owns_everything(tmp_path: Path, url: str) -> None:
    store = AccessStore.in_dir(tmp_path, url)
    store.set_owner("研报A", A.name)
    open_access = Access(store, enforced=False)
    assert open_access.role("研报A", LOCAL) == "admin"
    assert open_access.visible(["研报A"], B) == ["研报A"]
    assert Access(None).role("x", B) == "admin"


def test_a_member_needs_a_name_and_a_known_role(tmp_path: Path, url: str) -> None:
    store = AccessStore.in_dir(tmp_path, url)
    for name, role, kind in (
        ("", "reader", "user"),
        ("x", "owner", "user"),
        ("x", "reader", "team"),
    ):
        with pytest.raises(ValueError):
            store.grant("kb", name, role, kind)


def test_a_member_granted_behind_one_process_is_known_behind_another(
    tmp_path: Path, url: str
) -> None:
    """Two stores over one file, or one shared database: two processes behind a balancer."""
    one = Access(AccessStore.in_dir(tmp_path, url), audit=AuditLog.in_dir(tmp_path, 90, url))
    two = Access(AccessStore.in_dir(tmp_path, url), audit=AuditLog.in_dir(tmp_path, 90, url))
    one.created("研报A", A)
    assert two.role("研报A", A) == "admin" and two.role("研报A", B) is None
    with pytest.raises(AccessDenied):
        two.require("研报A", B, "reader", "ask")
    one.grant("研报A", A, B.name, "reader")
    assert two.require("研报A", B, "reader", "ask") == "reader"
    two.grant("研报A", A, B.name, "editor")  # granted again: the role replaced, not added
    assert one.role("研报A", B) == "editor"
    assert [(m.name, m.role) for m in one.store.members("研报A")] == [(B.name, "editor")]  # type: ignore[union-attr]
    assert two.revoke("研报A", A, B.name) and one.role("研报A", B) is None
    (denial,) = one.audit.records()  # type: ignore[union-attr]
    assert denial.user == B.name and denial.error_kind == "denied"
    two.deleted("研报A")
    assert one.role("研报A", B) == "editor"  # a new 研报A starts shared
