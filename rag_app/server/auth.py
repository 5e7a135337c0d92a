"""The bearer tokens: ``RAG_APP_SERVER_TOKEN`` is one token, taken whole (a base64 secret ending
in ``==`` is a token like any other, never split); several named tokens come from a tokens file
(``RAG_APP_SERVER_TOKENS_FILE``), one ``name token`` or ``name sha256:<hex>`` a line, optionally
followed by ``groups=a,b``, the name becoming the audit log's user and, with the groups, who the
knowledge-base permissions check (rag_app.access). Only the whole token opens; compared in constant
time; a token never reaches a log, an error or a repr."""

from __future__ import annotations

import hashlib
import hmac
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated

from fastapi import Depends, Request

from rag_app.access import LOCAL, Principal
from rag_app.server.errors import ApiError

API_USER = "api"  # the audit log's user for a request under the one unnamed token, or none

# RFC 6750's b64token: what a bearer token may hold (no spaces, no commas, "=" only at the end).
_B64TOKEN = re.compile(r"[A-Za-z0-9\-._~+/]+=*")
_NAME = re.compile(r"[\w.@+-]{1,64}")
_SHA256 = re.compile(r"sha256:([0-9a-fA-F]{64})")
_GROUPS = re.compile(r"groups=([\w.@+-]{1,64}(?:,[\w.@+-]{1,64})*)")


class TokenConfigError(ValueError):
    """A token or tokens file that cannot be used; the message names the line, never a token."""


@dataclass(frozen=True)
class Caller:
    """Who sends a request: the audit log's ``user``, and the ``principal`` the permissions
    check, ``enforced`` for a named token (a tokens file's line) only; the one unnamed token and
    no token at all are the local user, who owns everything as before permissions existed."""

    user: str
    principal: Principal = LOCAL
    enforced: bool = False


OPEN_CALLER = Caller(API_USER)


@dataclass(frozen=True)
class TokenEntry:
    name: str
    digest: bytes = field(repr=False)
    groups: tuple[str, ...] = ()
    named: bool = True  # from a tokens file: its caller's permissions are enforced

    @property
    def caller(self) -> Caller:
        if not self.named:
            return OPEN_CALLER
        return Caller(self.name, Principal(self.name, self.groups), True)


@dataclass(frozen=True)
class Tokens:
    """Who may call: a name, the sha256 of its token and its groups each. Digests, so a file may
    hold only them and every comparison is of 32 bytes whatever the offered token's length."""

    entries: tuple[TokenEntry, ...] = field(default=(), repr=False)

    @property
    def required(self) -> bool:
        return bool(self.entries)

    def entry_of(self, offered: str) -> TokenEntry | None:
        """The entry whose token is ``offered`` exactly, or None. Every digest is compared,
        whichever matches, so the time says nothing of which one did."""
        digest = hashlib.sha256(offered.encode("utf-8")).digest()
        found = None
        for entry in self.entries:
            if hmac.compare_digest(digest, entry.digest) and found is None:
                found = entry
        return found

    def user_of(self, offered: str) -> str | None:
        entry = self.entry_of(offered)
        return None if entry is None else entry.name


def _check_token(token: str, where: str) -> str:
    if not _B64TOKEN.fullmatch(token):
        raise TokenConfigError(
            f"{where}: a bearer token holds letters, digits and -._~+/ with '=' only at its end "
            "(RFC 6750); spaces and commas cannot be sent in an Authorization header"
        )
    return token


def read_tokens_file(path: Path) -> list[TokenEntry]:
    """``name token`` or ``name sha256:<64 hex>`` a line, optionally ``groups=a,b`` after it;
    blank lines and ``#`` comments skipped. Raises TokenConfigError naming the line (never its
    token)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise TokenConfigError(f"cannot read the tokens file {path}: {exc.strerror}") from None
    entries: list[TokenEntry] = []
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        parts = line.split()
        where = f"{path} line {number}"
        groups = _GROUPS.fullmatch(parts[2]) if len(parts) == 3 else None
        if (
            len(parts) not in (2, 3)
            or not _NAME.fullmatch(parts[0])
            or (len(parts) == 3 and groups is None)
        ):
            raise TokenConfigError(
                f"{where}: expected 'name token' or 'name sha256:<hex>', then optionally "
                "'groups=a,b'"
            )
        name, secret = parts[:2]
        in_groups = tuple(groups.group(1).split(",")) if groups else ()
        hashed = _SHA256.fullmatch(secret)
        if hashed:
            digest = bytes.fromhex(hashed.group(1))
        else:
            digest = hashlib.sha256(_check_token(secret, where).encode("utf-8")).digest()
        entries.append(TokenEntry(name, digest, in_groups))
    names = [e.name for e in entries]
    if len(set(names)) != len(names):
        raise TokenConfigError(f"{path}: a name is given twice")
    return entries


def load_tokens(token: str, tokens_file: str = "") -> Tokens:
    """The one ``token`` (user ``api``, not enforced) and the named tokens of ``tokens_file``."""
    entries: list[TokenEntry] = []
    if token:
        checked = _check_token(token, "RAG_APP_SERVER_TOKEN")
        digest = hashlib.sha256(checked.encode("utf-8")).digest()
        entries.append(TokenEntry(API_USER, digest, named=False))
    if tokens_file:
        entries.extend(read_tokens_file(Path(tokens_file).expanduser()))
    return Tokens(tuple(entries))


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
        return self.caller(request).user

    def caller(self, request: Request) -> Caller:
        """Who calls (a FastAPI dependency too); a 401 as ``__call__``."""
        if not self.tokens.required:
            return OPEN_CALLER
        offered = bearer_of(request)
        if offered is None:
            raise unauthorized("a bearer token is required (Authorization: Bearer <token>)")
        entry = self.tokens.entry_of(offered)
        if entry is None:
            raise unauthorized("the bearer token is not valid")
        return entry.caller


def unauthorized(message: str) -> ApiError:
    return ApiError(
        401, message, kind="authentication_error", headers={"WWW-Authenticate": "Bearer"}
    )


def caller_of(request: Request) -> Caller:
    """The request's caller, by the app's TokenCheck (``app.state.auth``); a 401 as it says."""
    check: TokenCheck = request.app.state.auth
    return check.caller(request)


# A route's ``caller: CallerOf`` parameter: who calls, checked once a request.
CallerOf = Annotated[Caller, Depends(caller_of)]
