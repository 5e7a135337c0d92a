"""``create_app``: the FastAPI application over one ServerState (docs/API.md)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import Depends, FastAPI
from fastapi.responses import Response

from rag_app import __version__
from rag_app.config import Settings
from rag_app.index.library import Library
from rag_app.llm import LLM
from rag_app.server.auth import TokenCheck
from rag_app.server.errors import install_error_handlers
from rag_app.server.metrics import ServeMiddleware
from rag_app.server.routes_ask import ask_router
from rag_app.server.routes_kbs import kb_router
from rag_app.server.routes_openai import chat_router
from rag_app.server.state import FROM_ENV, ServerState


def create_app(
    settings: Settings, library: Library | None = None, llm: LLM | None = FROM_ENV
) -> FastAPI:
    """The API over ``settings``' data dir. ``library`` and ``llm`` replace the ones the
    settings and the ``RAG_APP_*`` provider env would make (tests pass a hash-embedder library
    and a scripted model; ``llm=None`` is the offline answerer)."""
    state = ServerState(settings, library, llm)
    auth = TokenCheck(settings.server.token)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        state.start_warm_up()
        yield
        state.close()

    app = FastAPI(
        title="rag-app",
        version=__version__,
        lifespan=lifespan,
        docs_url=None if auth.required else "/docs",
        redoc_url=None,
        openapi_url=None if auth.required else "/openapi.json",
    )
    app.state.rag = state
    install_error_handlers(app)
    limits = settings.server
    upload_limit = limits.max_upload_mb * 1024 * 1024
    json_limit = limits.max_json_kb * 1024

    def limit_for(path: str) -> int:
        return upload_limit if path.endswith("/documents") else json_limit

    app.add_middleware(ServeMiddleware, metrics=state.metrics, limit_for=limit_for)

    @app.get("/health")
    def health() -> dict[str, Any]:
        return {
            "status": "ok",
            "warm": state.warm.is_set() and not state.warm_error,
            "warm_error": state.warm_error,
            "answerer": state.pipeline.answerer_name,
            "active_answers": state.slots.used,
            "max_answers": state.slots.size,
        }

    @app.get("/metrics", dependencies=[Depends(auth)])
    def metrics() -> Response:
        from prometheus_client import CONTENT_TYPE_LATEST

        return Response(state.metrics.render(), media_type=CONTENT_TYPE_LATEST)

    app.include_router(kb_router(state, auth))
    app.include_router(ask_router(state, auth))
    app.include_router(chat_router(state, auth))
    return app
