"""``create_app``: the FastAPI application over one ServerState (docs/API.md)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import Depends, FastAPI, Request
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import JSONResponse, PlainTextResponse, Response

from rag_app import __version__
from rag_app.answer import LLM
from rag_app.config import Settings
from rag_app.evals.question_sets import MAX_SET_BYTES
from rag_app.index.library import Library
from rag_app.server.auth import TokenCheck, load_tokens
from rag_app.server.contract import Health, errors, ok
from rag_app.server.errors import install_error_handlers
from rag_app.server.metrics import ServeMiddleware
from rag_app.server.routes_ask import ask_router
from rag_app.server.routes_evals import evals_router
from rag_app.server.routes_kbs import kb_router
from rag_app.server.routes_members import members_router
from rag_app.server.routes_openai import chat_router
from rag_app.server.state import FROM_ENV, ServerState


def create_app(
    settings: Settings, library: Library | None = None, llm: LLM | None = FROM_ENV
) -> FastAPI:
    """The API over ``settings``' data dir. ``library`` and ``llm`` replace the ones the
    settings and the ``RAG_APP_*`` provider env would make (tests pass a hash-embedder library
    and a scripted model; ``llm=None`` is the offline answerer). Raises TokenConfigError for a
    token or tokens file that cannot be used."""
    auth = TokenCheck(load_tokens(settings.server.token, settings.server.tokens_file))
    state = ServerState(settings, library, llm)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        state.start_warm_up()
        yield
        state.close()

    app = FastAPI(
        title="rag-app",
        version=__version__,
        description="Questions over parsed research reports, answered with citations "
        "(docs/API.md). With a token set, every route but /health needs "
        "`Authorization: Bearer <token>`, /openapi.json included.",
        lifespan=lifespan,
        # The document is served below, behind the token when one is set.
        docs_url=None,
        redoc_url=None,
        openapi_url=None,
    )
    app.state.rag = state
    app.state.auth = auth
    install_error_handlers(app)
    limits = settings.server
    upload_limit = limits.max_upload_mb * 1024 * 1024
    json_limit = limits.max_json_kb * 1024
    # A question set as JSON rows: as large as the set format's own file limit.
    set_limit = max(json_limit, MAX_SET_BYTES)

    def limit_for(path: str) -> int:
        if path.endswith("/documents"):
            return upload_limit
        return set_limit if path.startswith("/v1/evals") else json_limit

    app.add_middleware(ServeMiddleware, metrics=state.metrics, limit_for=limit_for)

    @app.get("/health", responses=ok(Health, "whether the server is up and warm"))
    def health(request: Request) -> dict[str, Any]:
        """Status and a code for anyone; the details (answerer, load, a warm-up failure's text)
        only without a token or under it. A failed warm-up is logged in full."""
        if not state.warm.is_set():
            status, code = "starting", "warming_up"
        elif state.warm_error:
            status, code = "degraded", "warm_up_failed"
        else:
            status, code = "ok", "ready"
        body: dict[str, Any] = {"status": status, "code": code, "warm": code == "ready"}
        if auth.user(request) is not None:
            body.update(
                answerer=state.pipeline.answerer_name,
                active_answers=state.slots.used,
                max_answers=state.slots.size,
                warm_error=state.warm_error or None,
            )
        return body

    @app.get(
        "/metrics",
        dependencies=[Depends(auth)],
        response_class=PlainTextResponse,
        responses={
            200: {
                "description": "Prometheus text exposition",
                "content": {"text/plain": {"schema": {"type": "string"}}},
            },
            **errors(401),
        },
    )
    def metrics() -> Response:
        from prometheus_client import CONTENT_TYPE_LATEST

        return Response(state.metrics.render(), media_type=CONTENT_TYPE_LATEST)

    app.include_router(kb_router(state, auth))
    app.include_router(members_router(state, auth))
    app.include_router(ask_router(state, auth))
    app.include_router(chat_router(state, auth))
    app.include_router(evals_router(state, auth))

    @app.get("/openapi.json", include_in_schema=False, dependencies=[Depends(auth)])
    def openapi() -> JSONResponse:
        return JSONResponse(app.openapi())

    if not auth.required:
        # Swagger UI loads its scripts from a CDN and cannot send a token: only without one.
        @app.get("/docs", include_in_schema=False)
        def docs() -> Response:
            return get_swagger_ui_html(openapi_url="/openapi.json", title="rag-app API")

    return app
