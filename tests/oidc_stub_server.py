"""A real HTTP server on 127.0.0.1 that is a tiny OpenID Connect provider, for tests.

Enough of OIDC's authorization code flow for Streamlit's ``st.login`` (Authlib underneath):

- ``/.well-known/openid-configuration``: the discovery document (RS256, PKCE S256);
- ``/authorize``: signs in whoever the test put in ``server.next_user`` (no login form) and
  answers 302 to ``redirect_uri`` with ``code`` and ``state``;
- ``/token``: exchanges the code (once; client secret, redirect URI and PKCE verifier checked)
  for an ``access_token`` and an ``id_token``: a JWT signed RS256 with ``iss``, ``aud``,
  ``sub``, ``exp``, ``iat``, the ``nonce`` sent to ``/authorize`` and the user's claims;
- ``/jwks``: the public key; ``/userinfo``: the user's claims for a Bearer access token.

Every request is recorded (``server.requests``). Signed with ``cryptography`` directly, not with
the library that verifies the token on the other side.

    with OIDCStubServer() as oidc:
        oidc.next_user = {"sub": "alice", "email": "alice@example.com", "name": "Alice"}
        ... server_metadata_url = oidc.metadata_url, client_id = oidc.client_id ...
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote_plus, urlencode, urlsplit, urlunsplit

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding, rsa


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _int_b64url(number: int) -> str:
    return _b64url(number.to_bytes((number.bit_length() + 7) // 8, "big"))


@dataclass(frozen=True)
class RecordedRequest:
    method: str
    path: str
    query: dict[str, str]
    form: dict[str, str]
    headers: dict[str, str]


@dataclass
class _Grant:
    user: dict[str, Any]
    client_id: str
    redirect_uri: str
    nonce: str | None
    code_challenge: str | None
    code_challenge_method: str | None


@dataclass
class _State:
    client_id: str
    client_secret: str
    key: rsa.RSAPrivateKey
    kid: str
    token_lifetime: int
    next_user: dict[str, Any] = field(default_factory=dict)
    grants: dict[str, _Grant] = field(default_factory=dict)  # code -> grant
    access: dict[str, dict[str, Any]] = field(default_factory=dict)  # access token -> claims
    requests: list[RecordedRequest] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    issuer: str = ""


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        pass

    # -- dispatch --------------------------------------------------------------------------
    def do_GET(self) -> None:  # noqa: N802 - stdlib naming
        path, query = self._record({})
        if path == "/.well-known/openid-configuration":
            self._send_json(200, self._discovery())
        elif path == "/authorize":
            self._authorize(query)
        elif path == "/jwks":
            self._send_json(200, {"keys": [self._jwk()]})
        elif path == "/userinfo":
            self._userinfo()
        else:
            self._send_json(404, {"error": "not_found"})

    def do_POST(self) -> None:  # noqa: N802
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length).decode("utf-8") if length else ""
        form = {k: v[0] for k, v in parse_qs(raw, keep_blank_values=True).items()}
        path, _ = self._record(form)
        if path == "/token":
            self._token(form)
        elif path == "/userinfo":
            self._userinfo()
        else:
            self._send_json(404, {"error": "not_found"})

    # -- endpoints -------------------------------------------------------------------------
    def _discovery(self) -> dict[str, Any]:
        issuer = self.server.state.issuer
        return {
            "issuer": issuer,
            "authorization_endpoint": f"{issuer}/authorize",
            "token_endpoint": f"{issuer}/token",
            "jwks_uri": f"{issuer}/jwks",
            "userinfo_endpoint": f"{issuer}/userinfo",
            "response_types_supported": ["code"],
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": ["RS256"],
            "scopes_supported": ["openid", "email", "profile"],
            "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"],
            "code_challenge_methods_supported": ["S256"],
            "claims_supported": ["sub", "email", "name", "iss", "aud", "exp", "iat", "nonce"],
        }

    def _authorize(self, query: dict[str, str]) -> None:
        state = self.server.state
        redirect_uri = query.get("redirect_uri", "")
        if query.get("client_id") != state.client_id or not redirect_uri:
            self._send_json(400, {"error": "invalid_request", "error_description": "client"})
            return
        if query.get("response_type") != "code" or "openid" not in query.get("scope", "").split():
            self._redirect(redirect_uri, {"error": "invalid_request", "state": query.get("state")})
            return
        with state.lock:
            user = dict(state.next_user)
        if not user.get("sub"):
            self._redirect(redirect_uri, {"error": "access_denied", "state": query.get("state")})
            return
        code = secrets.token_urlsafe(24)
        with state.lock:
            state.grants[code] = _Grant(
                user=user,
                client_id=state.client_id,
                redirect_uri=redirect_uri,
                nonce=query.get("nonce"),
                code_challenge=query.get("code_challenge"),
                code_challenge_method=query.get("code_challenge_method"),
            )
        self._redirect(redirect_uri, {"code": code, "state": query.get("state")})

    def _token(self, form: dict[str, str]) -> None:
        state = self.server.state
        client_id, client_secret = self._client_credentials(form)
        if client_id != state.client_id or client_secret != state.client_secret:
            self._send_json(401, {"error": "invalid_client"})
            return
        if form.get("grant_type") != "authorization_code":
            self._send_json(400, {"error": "unsupported_grant_type"})
            return
        with state.lock:
            grant = state.grants.pop(form.get("code", ""), None)  # a code is good once
        if grant is None or grant.redirect_uri != form.get("redirect_uri"):
            self._send_json(400, {"error": "invalid_grant"})
            return
        if grant.code_challenge is not None:
            verifier = form.get("code_verifier", "")
            expected = (
                _b64url(hashlib.sha256(verifier.encode("ascii")).digest())
                if grant.code_challenge_method == "S256"
                else verifier
            )
            if not verifier or expected != grant.code_challenge:
                self._send_json(400, {"error": "invalid_grant", "error_description": "pkce"})
                return
        now = int(time.time())
        claims: dict[str, Any] = {
            **grant.user,
            "iss": state.issuer,
            "aud": client_id,
            "iat": now,
            "exp": now + state.token_lifetime,
            "auth_time": now,
        }
        if grant.nonce is not None:
            claims["nonce"] = grant.nonce
        access_token = secrets.token_urlsafe(24)
        with state.lock:
            state.access[access_token] = dict(grant.user)
        self._send_json(
            200,
            {
                "access_token": access_token,
                "token_type": "Bearer",
                "expires_in": state.token_lifetime,
                "scope": "openid email profile",
                "id_token": self._sign(claims),
            },
        )

    def _userinfo(self) -> None:
        header = self.headers.get("Authorization", "")
        token = header[len("Bearer ") :] if header.startswith("Bearer ") else ""
        with self.server.state.lock:
            user = self.server.state.access.get(token)
        if user is None:
            self._send_json(401, {"error": "invalid_token"})
        else:
            self._send_json(200, user)

    # -- helpers ---------------------------------------------------------------------------
    def _client_credentials(self, form: dict[str, str]) -> tuple[str, str]:
        header = self.headers.get("Authorization", "")
        if header.startswith("Basic "):
            try:
                decoded = base64.b64decode(header[len("Basic ") :]).decode("utf-8")
            except ValueError:
                return "", ""
            client_id, _, client_secret = decoded.partition(":")
            return unquote_plus(client_id), unquote_plus(client_secret)
        return form.get("client_id", ""), form.get("client_secret", "")

    def _jwk(self) -> dict[str, str]:
        state = self.server.state
        numbers = state.key.public_key().public_numbers()
        return {
            "kty": "RSA",
            "use": "sig",
            "alg": "RS256",
            "kid": state.kid,
            "n": _int_b64url(numbers.n),
            "e": _int_b64url(numbers.e),
        }

    def _sign(self, claims: dict[str, Any]) -> str:
        state = self.server.state
        header = {"alg": "RS256", "typ": "JWT", "kid": state.kid}
        signing_input = ".".join(
            _b64url(json.dumps(part, separators=(",", ":")).encode("utf-8"))
            for part in (header, claims)
        )
        signature = state.key.sign(
            signing_input.encode("ascii"), padding.PKCS1v15(), hashes.SHA256()
        )
        return f"{signing_input}.{_b64url(signature)}"

    def _record(self, form: dict[str, str]) -> tuple[str, dict[str, str]]:
        parts = urlsplit(self.path)
        query = {k: v[0] for k, v in parse_qs(parts.query, keep_blank_values=True).items()}
        with self.server.state.lock:
            self.server.state.requests.append(
                RecordedRequest(self.command, parts.path, query, form, dict(self.headers.items()))
            )
        return parts.path, query

    def _redirect(self, target: str, params: dict[str, str | None]) -> None:
        parts = urlsplit(target)
        extra = urlencode({k: v for k, v in params.items() if v is not None})
        query = f"{parts.query}&{extra}" if parts.query else extra
        self.send_response(302)
        self.send_header("Location", urlunsplit(parts._replace(query=query)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def _send_json(self, status: int, body: Any) -> None:
        data = json.dumps(body).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Cache-Control", "no-store")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    state: _State

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that hung up is not the test's concern


class OIDCStubServer:
    """The provider on a free loopback port; ``next_user`` is who ``/authorize`` signs in."""

    def __init__(
        self,
        *,
        client_id: str = "rag-app-test",
        client_secret: str = "rag-app-test-secret",
        token_lifetime: int = 3600,
    ) -> None:
        self._state = _State(
            client_id=client_id,
            client_secret=client_secret,
            key=rsa.generate_private_key(public_exponent=65537, key_size=2048),
            kid=secrets.token_hex(8),
            token_lifetime=token_lifetime,
        )
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    def __enter__(self) -> OIDCStubServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> OIDCStubServer:
        server = _Server(("127.0.0.1", 0), _Handler)
        server.state = self._state
        self._server = server
        self._state.issuer = f"http://127.0.0.1:{self.port}"
        self._thread = threading.Thread(target=server.serve_forever, name="oidc-stub", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        server, self._server = self._server, None
        if server is not None:
            server.shutdown()
            server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    @property
    def port(self) -> int:
        assert self._server is not None, "not started"
        return int(self._server.server_address[1])

    @property
    def issuer(self) -> str:
        return self._state.issuer

    @property
    def metadata_url(self) -> str:
        return f"{self.issuer}/.well-known/openid-configuration"

    @property
    def client_id(self) -> str:
        return self._state.client_id

    @property
    def client_secret(self) -> str:
        return self._state.client_secret

    @property
    def next_user(self) -> dict[str, Any]:
        with self._state.lock:
            return dict(self._state.next_user)

    @next_user.setter
    def next_user(self, user: dict[str, Any]) -> None:
        with self._state.lock:
            self._state.next_user = dict(user)

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._state.lock:
            return list(self._state.requests)

    def tokens_issued(self) -> int:
        return sum(1 for r in self.requests if r.path == "/token")
