"""rag_app: question answering over parsed research reports (研报问答).

The package is UI-free; the Streamlit pages in ``views/`` and the CLI in ``rag_app.cli.main`` are its
clients.
"""

__version__ = "0.1.0"
