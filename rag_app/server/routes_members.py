"""Who may use a knowledge base (rag_app.access): its owner and members listed (a reader may),
a member's role given or taken back (an admin may), and a shared knowledge base claimed (an
editor of it may, with a named token). Each answers with the members as they are now."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Path

from rag_app.server.auth import Caller, CallerOf
from rag_app.server.contract import MemberList, errors, ok
from rag_app.server.errors import ApiError
from rag_app.server.permissions import access_of, require_kb
from rag_app.server.schemas import MemberBody
from rag_app.server.state import ServerState


def members_router(state: ServerState, auth: Any) -> APIRouter:
    router = APIRouter(prefix="/v1/kbs", dependencies=[Depends(auth)])

    def members_json(kb: str, caller: Caller) -> dict[str, Any]:
        access = access_of(state, caller)
        store = access.store
        members = store.members(kb) if store is not None else []
        return {
            "kb": kb,
            "owner": store.owner(kb) if store is not None else None,
            "role": access.role(kb, caller.principal),
            "data": [{"name": m.name, "kind": m.kind, "role": m.role} for m in members],
        }

    @router.get(
        "/{kb}/members",
        responses={**ok(MemberList, "the owner and the members"), **errors(401, 404)},
    )
    def list_members(kb: str, caller: CallerOf) -> dict[str, Any]:
        require_kb(state, caller, kb, "reader", "see members")
        return members_json(kb, caller)

    @router.put(
        "/{kb}/members",
        responses={
            **ok(MemberList, "the members, with this one's role given"),
            **errors(400, 401, 403, 404, 413, 422),
        },
    )
    def put_member(kb: str, body: MemberBody, caller: CallerOf) -> dict[str, Any]:
        """Make ``name`` (a user: an API token's or a sign-in's name; or a group) a member with
        ``role``, replacing the role it had."""
        require_kb(state, caller, kb, "admin", "manage members")
        access_of(state, caller).grant(
            kb, caller.principal, body.name.strip(), body.role, body.kind
        )
        return members_json(kb, caller)

    @router.delete(
        "/{kb}/members/{kind}/{name}",
        responses={
            **ok(MemberList, "the members, without this one"),
            **errors(401, 403, 404, 422),
        },
    )
    def delete_member(
        caller: CallerOf,
        kb: str,
        kind: Literal["user", "group"],
        name: Annotated[str, Path(min_length=1, max_length=256)],
    ) -> dict[str, Any]:
        require_kb(state, caller, kb, "admin", "manage members")
        if not access_of(state, caller).revoke(kb, caller.principal, name.strip(), kind):
            raise ApiError(
                404, f"no {kind} '{name}' among the members of '{kb}'", "not_found_error", "name"
            )
        return members_json(kb, caller)

    @router.post(
        "/{kb}/claim",
        responses={
            **ok(MemberList, "the knowledge base, now the caller's"),
            **errors(401, 403, 404, 409),
        },
    )
    def claim(kb: str, caller: CallerOf) -> dict[str, Any]:
        """Make a shared knowledge base (nobody's) the caller's own: a named token's."""
        require_kb(state, caller, kb, "reader", "see members")
        access = access_of(state, caller)
        owner = access.store.owner(kb) if access.store is not None else None
        if owner is not None:
            raise ApiError(409, f"knowledge base '{kb}' is already {owner}'s", param="kb")
        if not caller.enforced:
            raise ApiError(
                409,
                "only a named token's caller claims a knowledge base (RAG_APP_SERVER_TOKENS_FILE); "
                "without one the local user owns every knowledge base already",
                param="kb",
            )
        require_kb(state, caller, kb, "editor", "claim")
        access.claim(kb, caller.principal)
        return members_json(kb, caller)

    return router
