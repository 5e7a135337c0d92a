"""The bearer token: ``RAG_APP_SERVER_TOKEN`` is one token, or several as ``name=token,...``
whose name becomes the audit log's user. Compared in constant time; never logged."""

from __future__ import annotations

import hmac

from fastapi import Request

from rag_app.server.errors import ApiError

API_USER = "api"  # the audit log's user for a request under the one unnamed token, or none


def parse_tokens(raw: str) -> dict[str, str]:
    """``"t"`` -> {"api": "t"}; ``"alice=t1,bob=t2"`` -> {"alice": "t1", "bob": "t2"}."""
    tokens: dict[str, str] = {}
    for part in (p.strip() for p in raw.split(",")):
        if not part:
            continue
        name, sep, token = part.partition("=")
        if sep and name.strip() and token.strip():
            tokens[name.strip()] = token.strip()
        else:
            tokens[API_USER] = part
    return tokens


class TokenCheck:
    """A FastAPI dependency: the request's user, or a 401 when a token is set and not given."""

    def __init__(self, raw: str) -> None:
        self._tokens = [(name, token.encode()) for name, token in parse_tokens(raw).items()]

    @property
    def required(self) -> bool:
        return bool(self._tokens)

    def __call__(self, request: Request) -> str:
        if not self._tokens:
            return API_USER
        scheme, _, given = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not given.strip():
            raise _unauthorized("a bearer token is required (Authorization: Bearer <token>)")
        offered = given.strip().encode()
        user = None
        for name, token in self._tokens:
            # every token is compared, whichever matches, so the time says nothing of which
            if hmac.compare_digest(offered, token) and user is None:
                user = name
        if user is None:
            raise _unauthorized("the bearer token is not valid")
        return user


def _unauthorized(message: str) -> ApiError:
    return ApiError(
        401, message, kind="authentication_error", headers={"WWW-Authenticate": "Bearer"}
    )
