"""Errors as JSON, in the OpenAI API's shape (``{"error": {"message", "type", "param"}}``) so its
clients read them too: 4xx naming what is wrong, 500 without a traceback."""

from __future__ import annotations

import logging
import re
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

_log = logging.getLogger("rag_app.server")


class ApiError(Exception):
    """A request the server refuses: ``status`` (4xx), a message naming the problem, the field
    at fault when there is one, a machine-readable ``code`` (a question set's Reason key), and
    extra headers (Retry-After, WWW-Authenticate)."""

    def __init__(
        self,
        status: int,
        message: str,
        kind: str = "invalid_request_error",
        param: str | None = None,
        headers: dict[str, str] | None = None,
        extra: dict[str, Any] | None = None,
        code: str | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.kind = kind
        self.param = param
        self.headers = headers or {}
        self.extra = extra or {}
        self.code = code


def error_body(
    message: str, kind: str, param: str | None = None, code: str | None = None
) -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "param": param, "code": code}}


def error_response(exc: ApiError) -> JSONResponse:
    body = error_body(exc.message, exc.kind, exc.param, exc.code)
    body.update(exc.extra)
    return JSONResponse(body, status_code=exc.status, headers=exc.headers)


def _validation_message(exc: RequestValidationError) -> tuple[int, str, str | None]:
    """(status, message, field) of the first problem: malformed JSON is a 400, a wrong field a
    422 naming it."""
    errors = exc.errors()
    first = errors[0] if errors else {}
    if first.get("type") == "json_invalid":
        detail = (first.get("ctx") or {}).get("error", "")
        return 400, f"the body is not valid JSON{': ' + detail if detail else ''}", None
    loc = [str(p) for p in first.get("loc", ()) if p not in ("body", "query", "path", "form")]
    field = ".".join(loc) or None
    message = first.get("msg", "invalid request")
    if first.get("type") == "missing":
        message = f"'{field}' is required"
    elif field:
        message = f"'{field}': {message}"
    return 422, message, field


def allowed_methods(request: Request) -> list[str]:
    """The methods the API's document lists for the request's path."""
    paths = request.app.openapi().get("paths", {})
    if request.url.path in paths:  # a literal path (/v1/evals/sets) before any {id} it fits
        return sorted(m.upper() for m in paths[request.url.path])
    methods: set[str] = set()
    for template, operations in paths.items():
        pattern = re.sub(r"\\\{[^/]+?\\\}", "[^/]+", re.escape(template))
        if re.fullmatch(pattern, request.url.path):
            methods |= {m.upper() for m in operations}
    return sorted(methods)


def install_error_handlers(app: FastAPI) -> None:
    """Every error becomes JSON: ApiError, validation, unknown routes, and the unexpected."""

    @app.exception_handler(ApiError)
    async def _api_error(request: Request, exc: ApiError) -> JSONResponse:
        return error_response(exc)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        status, message, field = _validation_message(exc)
        return JSONResponse(error_body(message, "invalid_request_error", field), status)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        kind = "not_found_error" if exc.status_code == 404 else "invalid_request_error"
        headers = dict(exc.headers or {})
        if exc.status_code == 405:
            # Starlette names the methods of the first route on the path only; a path served
            # by several routes (GET and POST documents) allows them all.
            headers["Allow"] = ", ".join(allowed_methods(request))
        return JSONResponse(error_body(str(exc.detail), kind), exc.status_code, headers=headers)

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        # Logged with its traceback here; the client gets a line and no internals.
        _log.error("unexpected error on %s %s", request.method, request.url.path, exc_info=exc)
        return JSONResponse(
            error_body("internal error; the server log has the details", "server_error"), 500
        )
