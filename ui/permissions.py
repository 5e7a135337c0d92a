"""Knowledge-base permissions in the UI (issue 28; the rules: ``rag_app.access``): the groups a
sign-in's claims name, a denial in the user's language, and the audit records a user may see.

Enforced exactly when Streamlit's sign-in is configured (secrets.toml ``[auth]``); the principal
is the signed-in user's e-mail (``ui.state.current_user``) with the groups of the claim named by
``RAG_APP_GROUPS_CLAIM`` (st.secrets or the environment), else of the usual ``groups`` and
``roles`` claims: a list of names or one comma-separated string. Without sign-in the one local
user owns everything, as before (``ui.state.principal``, ``ui.state.access``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from rag_app.access import AccessDenied
from rag_app.chat.audit import AuditLog, AuditRecord
from ui.i18n import TEXTS, t

GROUPS_CLAIM_SETTING = "RAG_APP_GROUPS_CLAIM"
# Where identity providers put groups: Keycloak, Okta and Authentik "groups"; Azure AD / Entra
# ID app roles "roles" (its "groups" claim holds object ids unless configured otherwise).
DEFAULT_GROUP_CLAIMS = ("groups", "roles")


def groups_from_claims(claims: Mapping[str, Any], claim: str = "") -> tuple[str, ...]:
    """The group names in ``claims[claim]`` (or, with no claim named, in every one of
    ``DEFAULT_GROUP_CLAIMS``): a list of names or a comma-separated string; deduplicated, in
    their order, blanks dropped."""
    names = (claim,) if claim.strip() else DEFAULT_GROUP_CLAIMS
    out: list[str] = []
    for name in names:
        value = claims.get(name.strip())
        items: Iterable[Any]
        if isinstance(value, str):
            items = value.split(",")
        elif isinstance(value, list | tuple | set):
            items = value
        else:
            continue
        out.extend(str(item).strip() for item in items if str(item).strip())
    return tuple(dict.fromkeys(out))


def role_text(role: str | None) -> str:
    return t(f"role_{role}") if role else "-"


def action_text(action: str) -> str:
    key = "access_action_" + action.replace(" ", "_")
    return t(key) if key in TEXTS else action


def denial_text(denied: AccessDenied) -> str:
    """Why an action was refused, in the user's language."""
    return t(
        "access_denied",
        kb=denied.kb,
        action=action_text(denied.action),
        need=role_text(denied.need),
    )


def would_deny(kb: str, action: str, need: str) -> str:
    """The words a control's help gives when its action would be refused."""
    return t("access_denied", kb=kb, action=action_text(action), need=role_text(need))


def visible_records(
    log: AuditLog,
    kbs: list[str] | None,
    *,
    kb: str | None,
    limit: int,
    **filters: Any,
) -> list[AuditRecord]:
    """The audit records matching ``filters`` of ``kb`` (all when None), newest first, at most
    ``limit``; with ``kbs`` (the knowledge bases the user may see; None: all) only theirs: one
    query per knowledge base, merged, so another's many records cannot crowd theirs out."""
    if kbs is None:
        return log.records(kb=kb, limit=limit, **filters)
    wanted = [kb] if kb else kbs
    records = [
        r for each in wanted if each in kbs for r in log.records(kb=each, limit=limit, **filters)
    ]
    records.sort(key=lambda r: r.time, reverse=True)
    return records[:limit]
