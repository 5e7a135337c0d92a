"""The Streamlit UI's helpers: labels in two languages, per-user state, rendering, sanitising.

Only the UI imports this package; ``rag_app`` (the core) never imports streamlit.
"""
