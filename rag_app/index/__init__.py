"""Indexing: the embedding model (built at set-up), vector and keyword indexes, the catalogue."""
