"""The knowledge-base permissions (rag_app.access) as the API applies them: every route that
names a knowledge base asks here before doing anything.

A knowledge base the caller may not see answers as one that does not exist (404, its name not
among the known ones), so that a name says nothing of another's knowledge bases; one it sees
but whose role is too low for the request is a 403 with ``error.code`` ``access_denied``. Both
denials are written to the audit log (rag_app.access does it); an unknown name is not."""

from __future__ import annotations

from rag_app.access import Access, AccessDenied, Role
from rag_app.server.auth import Caller
from rag_app.server.errors import ApiError
from rag_app.server.state import ServerState


def access_of(state: ServerState, caller: Caller) -> Access:
    """The enforced checks for a named token's caller; the local owner's for anyone else."""
    return state.access if caller.enforced else state.open_access


def visible(state: ServerState, caller: Caller, kbs: list[str] | None = None) -> list[str]:
    """The knowledge bases (the library's, or ``kbs``) the caller may see, in order."""
    names = state.library.knowledge_bases() if kbs is None else kbs
    return access_of(state, caller).visible(names, caller.principal)


def not_found(state: ServerState, caller: Caller, kb: str, param: str = "kb") -> ApiError:
    """The 404 of an unknown knowledge base, naming only the ones the caller sees."""
    known = ", ".join(visible(state, caller)) or "none yet"
    named = "the model names one; " if param == "model" else ""
    return ApiError(
        404, f"no knowledge base '{kb}' ({named}known: {known})", "not_found_error", param
    )


def check(
    state: ServerState,
    caller: Caller,
    kb: str,
    need: Role,
    action: str,
    hidden: ApiError,
    param: str = "kb",
) -> Role:
    """The caller's role on ``kb`` when it is at least ``need``; ``hidden`` raised when it may
    not even see ``kb``, a 403 when its role is too low (both audited)."""
    access = access_of(state, caller)
    try:
        return access.require(kb, caller.principal, need, action)
    except AccessDenied as denied:
        role = access.role(kb, caller.principal)
        if role is None:
            raise hidden from None
        raise forbidden(denied, role, param) from None


def require_kb(
    state: ServerState,
    caller: Caller,
    kb: str,
    need: Role,
    action: str,
    param: str = "kb",
    must_exist: bool = True,
) -> Role:
    """``check`` on a knowledge base named by the request: a 404 for one that does not exist
    (``must_exist``: every route but an upload, which makes it) or that the caller may not
    see, a 403 for a role below ``need``."""
    if must_exist and kb not in state.library.knowledge_bases():
        raise not_found(state, caller, kb, param)
    return check(state, caller, kb, need, action, not_found(state, caller, kb, param), param)


def forbidden(denied: AccessDenied, role: str, param: str = "kb") -> ApiError:
    """The 403 of a role too low: what it needs and what the caller holds."""
    return ApiError(
        403,
        f"{denied}: it needs {denied.need}, and your role is {role}",
        "permission_error",
        param,
        code=denied.reason.key,
    )
