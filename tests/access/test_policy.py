"""Knowledge-base permissions: owners, members and groups with their roles, shared knowledge
bases, the local user without sign-in, and denials written to the audit log."""

from __future__ import annotations

from pathlib import Path

import pytest

from rag_app.access import LOCAL, Access, AccessDenied, AccessStore, Principal
from rag_app.chat.audit import AuditLog

A = Principal("a@example.com")
B = Principal("b@example.com", groups=("analysts",))
C = Principal("c@example.com", groups=("sales",))


@pytest.fixture
def access(tmp_path: Path) -> Access:
    return Access(AccessStore.in_dir(tmp_path), audit=AuditLog.in_dir(tmp_path))


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


def test_a_denial_raises_and_is_audited(access: Access, tmp_path: Path) -> None:
    access.created("研报A", A)
    access.grant("研报A", A, B.name, "reader")
    assert access.require("研报A", B, "reader", "ask") == "reader"
    with pytest.raises(AccessDenied) as denied:
        access.require("研报A", B, "editor", "upload")
    assert denied.value.reason.key == "access_denied" and denied.value.need == "editor"
    with pytest.raises(AccessDenied):
        access.grant("研报A", B, C.name, "admin")  # only an admin manages members
    (record, other) = AuditLog.in_dir(tmp_path).records()
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


def test_without_sign_in_the_one_local_user_owns_everything(tmp_path: Path) -> None:
    store = AccessStore.in_dir(tmp_path)
    store.set_owner("研报A", A.name)
    open_access = Access(store, enforced=False)
    assert open_access.role("研报A", LOCAL) == "admin"
    assert open_access.visible(["研报A"], B) == ["研报A"]
    assert Access(None).role("x", B) == "admin"


def test_a_member_needs_a_name_and_a_known_role(tmp_path: Path) -> None:
    store = AccessStore.in_dir(tmp_path)
    for name, role, kind in (
        ("", "reader", "user"),
        ("x", "owner", "user"),
        ("x", "reader", "team"),
    ):
        with pytest.raises(ValueError):
            store.grant("kb", name, role, kind)
