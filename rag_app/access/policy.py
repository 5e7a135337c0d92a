"""The rules: who holds which role on a knowledge base, and the check every client makes.

A knowledge base someone created while signed in is theirs (admin) and nobody else's until they
add members: users (a sign-in's e-mail or an API token's name) or groups (a sign-in claim), each
a reader (ask, search, see its documents, conversations, audit records and evaluations, run
evaluations and manage their own runs), an editor (also upload and delete documents, manage
anyone's runs) or an admin (also manage members and delete the knowledge base). A member's role is the highest of its own and its groups'. One nobody
owns (made before permissions, by the CLI, or by the one local user: the sample) is shared:
every signed-in user edits it, a visitor only reads it. Without sign-in (``enforced`` False) the
one local user owns everything, as before permissions existed.

A denial raises ``AccessDenied`` and is written to the audit log, as who tried what where.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from rag_app.access.roles import Role, at_least
from rag_app.access.store import AccessStore
from rag_app.chat.audit import AuditLog, AuditRecord
from rag_app.models import Reason

_log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Principal:
    """Who asks: a signed-in user's e-mail or an API token's name ("" for the one local user or
    a visitor) and the groups the sign-in's claims put them in."""

    name: str
    groups: tuple[str, ...] = ()


LOCAL = Principal("")


class AccessDenied(PermissionError):
    """``who`` may not ``action`` on ``kb``: it needs ``need``; ``reason`` words it."""

    def __init__(self, kb: str, action: str, need: str, who: str) -> None:
        super().__init__(f"{who or 'a visitor'} may not {action} in knowledge base {kb!r}")
        self.kb, self.action, self.need, self.who = kb, action, need, who
        self.reason = Reason.of("access_denied", kb=kb, action=action, need=need)


class Access:
    """The checks over one store. ``enforced`` False: everyone is the local owner of all.
    ``audit`` receives a record for every denial, as written by ``client``."""

    def __init__(
        self,
        store: AccessStore | None,
        enforced: bool = True,
        audit: AuditLog | None = None,
        client: str = "app",
    ) -> None:
        self.store = store
        self.enforced = enforced and store is not None
        self.audit = audit
        self.client = client

    @classmethod
    def in_dir(
        cls,
        data_dir: Path,
        enforced: bool = True,
        audit: AuditLog | None = None,
        client: str = "app",
        database_url: str = "",
    ) -> Access:
        """The checks over the data dir's ``access.sqlite`` (the shared database's tables with
        ``database_url``); not enforced (everyone the local owner) when the store cannot be
        opened and nothing is enforced anyway."""
        return cls(AccessStore.in_dir(data_dir, database_url), enforced, audit, client)

    def role(self, kb: str, who: Principal) -> Role | None:
        """``who``'s role on ``kb``; None: it may not even see it."""
        if not self.enforced or self.store is None:
            return "admin"
        owner = self.store.owner(kb)
        if owner is None:  # shared: every signed-in user edits it, a visitor reads it
            return "editor" if who.name else "reader"
        if who.name and owner == who.name:
            return "admin"
        best: Role | None = None
        for member in self.store.members(kb):
            mine = (member.kind == "user" and member.name == who.name and who.name) or (
                member.kind == "group" and member.name in who.groups
            )
            if mine and (best is None or at_least(member.role, best)):
                best = member.role
        return best

    def visible(self, kbs: list[str], who: Principal) -> list[str]:
        """The knowledge bases of ``kbs`` that ``who`` may see, in their order."""
        return [kb for kb in kbs if self.role(kb, who) is not None]

    def allows(self, kb: str, who: Principal, need: Role) -> bool:
        return at_least(self.role(kb, who), need)

    def require(self, kb: str, who: Principal, need: Role, action: str) -> Role:
        """``who``'s role on ``kb`` when it is at least ``need``; else the denial is audited and
        AccessDenied raised."""
        role = self.role(kb, who)
        if at_least(role, need):
            return role  # type: ignore[return-value]
        self._audit_denial(kb, who, action, need)
        raise AccessDenied(kb, action, need, who.name)

    # a knowledge base's life --------------------------------------------------------------------
    def created(self, kb: str, who: Principal) -> None:
        """A knowledge base ``who`` just made is theirs (nobody's without sign-in)."""
        if self.enforced and self.store is not None and who.name and self.store.owner(kb) is None:
            self.store.set_owner(kb, who.name)

    def deleted(self, kb: str) -> None:
        if self.store is not None:
            self.store.forget(kb)

    def claim(self, kb: str, who: Principal) -> None:
        """Make a shared knowledge base ``who``'s own (an editor of it may)."""
        self.require(kb, who, "editor", "claim")
        if self.store is None or not who.name:
            raise AccessDenied(kb, "claim", "editor", who.name)
        if self.store.owner(kb) is not None:
            raise AccessDenied(kb, "claim", "admin", who.name)
        self.store.set_owner(kb, who.name)

    def grant(self, kb: str, who: Principal, name: str, role: Role, kind: str = "user") -> None:
        """``who`` (an admin of ``kb``) gives ``name`` the ``role``."""
        self.require(kb, who, "admin", "manage members")
        if self.store is not None:
            self.store.grant(kb, name, role, kind, by=who.name)

    def revoke(self, kb: str, who: Principal, name: str, kind: str = "user") -> bool:
        self.require(kb, who, "admin", "manage members")
        return self.store.revoke(kb, name, kind) if self.store is not None else False

    def _audit_denial(self, kb: str, who: Principal, action: str, need: str) -> None:
        if self.audit is None:
            return
        record = AuditRecord(
            time=datetime.now(UTC).isoformat(timespec="milliseconds"),
            user=who.name,
            kb=kb,
            client=self.client,
            mode="",
            question=f"[denied] {action}",
            standalone_question="",
            detected_type="",
            hits=(),
            prompt_tokens=0,
            answerer="",
            model="",
            timings={},
            error=f"access denied: {action} needs {need}",
            error_kind="denied",
        )
        try:
            self.audit.add(record)
        except Exception as exc:  # noqa: BLE001 - the denial stands even when unrecorded
            _log.warning("could not audit a denial: %s", exc)
