"""The bearer tokens: ``RAG_APP_SERVER_TOKEN`` is one token, taken whole (a base64 secret ending
in ``==`` is a token like any other, never split); several named tokens come from a tokens file
(``RAG_APP_SERVER_TOKENS_FILE``), one ``name token`` or ``name sha256:<hex>`` a line, the name
becoming the audit log's user. Only the whole token opens; compared in constant time; a token
never reaches a log, an error or a repr."""

from __future__ import annotations

import hashlib
import hmac
import re
from dataclasses import dataclass, field
from pathlib import Path

from fastapi import Request

from rag_app.server.errors import ApiError

API_USER = "api"  # the audit log's user for a request under the one unnamed token, or none

# RFC 6750's b64token: what a bearer token may hold (no spaces, no commas, "=" only at the end).
_B64TOKEN = re.compile(r"[A-Za-z0-9\-._~+/]+=*")
_NAME = re.compile(r"[\w.@+-]{1,64}")
_SHA256 = re.compile(r"sha256:([0-9a-fA-F]{64})")


class TokenConfigError(ValueError):
    """A token or tokens file that cannot be used; the message names the line, never a token."""


@dataclass(frozen=True)
class Tokens:
    """Who may call: (name, sha256 of the token) pairs. Digests, so a file may hold only them
    and every comparison is of 32 bytes whatever the offered token's length."""

    digests: tuple[tuple[str, bytes], ...] = field(default=(), repr=False)

    @property
    def required(self) -> bool:
        return bool(self.digests)

    def user_of(self, offered: str) -> str | None:
        """The name whose token is ``offered`` exactly, or None. Every digest is compared,
        whichever matches, so the time says nothing of which one did."""
        digest = hashlib.sha256(offered.encode("utf-8")).digest()
        user = None
        for name, known in self.digests:
            if hmac.compare_digest(digest, known) and user is None:
                user = name
        return user


def _check_token(token: str, where: str) -> str:
    if not _B64TOKEN.fullmatch(token):
        raise TokenConfigError(
            f"{where}: a bearer token holds letters, digits and -._~+/ with '=' only at its end "
            "(RFC 6750); spaces and commas cannot be sent in an Authorization header"
        )
    return token


def read_tokens_file(path: Path) -> list[tuple[str, bytes]]:
    """``name token`` or ``name sha256:<64 hex>`` a line; blank lines and ``#`` comments
    skipped. Raises TokenConfigError naming the line (never its token)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise TokenConfigError(f"cannot read the tokens file {path}: {exc.strerror}") from None
    pairs: list[tuple[str, bytes]] = []
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        parts = line.split()
        where = f"{path} line {number}"
        if len(parts) != 2 or not _NAME.fullmatch(parts[0]):
            raise TokenConfigError(f"{where}: expected 'name token' or 'name sha256:<hex>'")
        name, secret = parts
        hashed = _SHA256.fullmatch(secret)
        if hashed:
            pairs.append((name, bytes.fromhex(hashed.group(1))))
        else:
            token = _check_token(secret, where)
            pairs.append((name, hashlib.sha256(token.encode("utf-8")).digest()))
    names = [n for n, _ in pairs]
    if len(set(names)) != len(names):
        raise TokenConfigError(f"{path}: a name is given twice")
    return pairs


def load_tokens(token: str, tokens_file: str = "") -> Tokens:
    """The one ``token`` (user ``api``) and the named tokens of ``tokens_file``."""
    pairs: list[tuple[str, bytes]] = []
    if token:
        checked = _check_token(token, "RAG_APP_SERVER_TOKEN")
        pairs.append((API_USER, hashlib.sha256(checked.encode("utf-8")).digest()))
    if tokens_file:
        pairs.extend(read_tokens_file(Path(tokens_file).expanduser()))
    return Tokens(tuple(pairs))


def bearer_of(request: Request) -> str | None:
    """The token an ``Authorization: Bearer <token>`` header offers, or None."""
    scheme, _, given = request.headers.get("authorization", "").partition(" ")
    given = given.strip()
    if scheme.lower() != "bearer" or not given:
        return None
    return given


class TokenCheck:
    """A FastAPI dependency: the request's user, or a 401 when tokens are set and the request
    offers none of them whole."""

    def __init__(self, tokens: Tokens) -> None:
        self.tokens = tokens

    @property
    def required(self) -> bool:
        return self.tokens.required

    def user(self, request: Request) -> str | None:
        """The caller's name: ``api`` when no token is required, None for a wrong token."""
        if not self.tokens.required:
            return API_USER
        offered = bearer_of(request)
        return None if offered is None else self.tokens.user_of(offered)

    def __call__(self, request: Request) -> str:
        if not self.tokens.required:
            return API_USER
        offered = bearer_of(request)
        if offered is None:
            raise unauthorized("a bearer token is required (Authorization: Bearer <token>)")
        user = self.tokens.user_of(offered)
        if user is None:
            raise unauthorized("the bearer token is not valid")
        return user


def unauthorized(message: str) -> ApiError:
    return ApiError(
        401, message, kind="authentication_error", headers={"WWW-Authenticate": "Bearer"}
    )
