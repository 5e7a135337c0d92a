"""``rag-app serve``: the pipeline over HTTP (FastAPI on uvicorn; docs/API.md).

Without ``RAG_APP_SERVER_TOKEN`` (or a tokens file) the server answers anyone who reaches it, so it binds only a
loopback address unless ``--allow-remote`` says otherwise.
"""

from __future__ import annotations

import argparse
import ipaddress
import logging

from rag_app.cli.common import _err, _settings


def is_loopback(host: str) -> bool:
    """True for ``localhost`` and loopback addresses (127.0.0.0/8, ::1)."""
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def cmd_serve(args: argparse.Namespace) -> int:
    import uvicorn

    from rag_app.server import create_app
    from rag_app.server.auth import TokenConfigError, load_tokens

    settings = _settings(args)
    try:
        load_tokens(settings.server.token, settings.server.tokens_file)
    except TokenConfigError as exc:
        _err(f"cannot serve: {exc}")
        return 2
    if not settings.server.has_tokens and not is_loopback(args.host) and not args.allow_remote:
        _err(
            f"refusing to serve on {args.host} without a token: anyone who reaches it could read "
            "and change the library. Set RAG_APP_SERVER_TOKEN (or RAG_APP_SERVER_TOKENS_FILE), bind 127.0.0.1, or pass "
            "--allow-remote to do it anyway."
        )
        return 2
    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    app = create_app(settings)
    auth = "bearer token required" if settings.server.has_tokens else "no token"
    _err(f"serving {settings.data_dir} on http://{args.host}:{args.port} ({auth})")
    uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level, access_log=True)
    return 0


def add_serve_parser(sub, common: argparse.ArgumentParser) -> None:  # type: ignore[no-untyped-def]
    p = sub.add_parser("serve", parents=[common], help="serve the pipeline over HTTP (docs/API.md)")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument(
        "--allow-remote",
        action="store_true",
        help="bind a non-loopback address even without RAG_APP_SERVER_TOKEN",
    )
    p.add_argument(
        "--log-level", default="info", choices=["critical", "error", "warning", "info", "debug"]
    )
    p.set_defaults(func=cmd_serve)
