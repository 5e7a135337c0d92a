"""Who may read, change and manage each knowledge base (issue 28): owners, members (users, groups
and API token names) with the roles reader / editor / admin, and denials audited. The UI, the
API and the CLI ask ``Access`` before every read and write; the core below never does."""

from rag_app.access.policy import LOCAL, Access, AccessDenied, Principal
from rag_app.access.roles import ROLES, Member, Role, at_least
from rag_app.access.store import AccessStore

__all__ = [
    "LOCAL",
    "ROLES",
    "Access",
    "AccessDenied",
    "AccessStore",
    "Member",
    "Principal",
    "Role",
    "at_least",
]
