"""``rag-app serve``: the pipeline over HTTP, a client of the core like the CLI (docs/API.md).

``app`` (create_app), ``state`` (the library, pipeline and answers running), ``routes_*`` (one
module per group of endpoints), ``schemas`` (request bodies, the Answer as JSON), ``auth``,
``errors``, ``metrics``.
"""

from rag_app.server.app import create_app

__all__ = ["create_app"]
