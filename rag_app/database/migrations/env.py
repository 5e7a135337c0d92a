"""Alembic's environment for the shared PostgreSQL database (``rag_app.database.postgres``):
online only, on the URL the caller put in ``config.attributes["url"]``, the steps and the
version row in one transaction under an advisory lock, so processes starting at once upgrade
the schema once."""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine, pool, text

from rag_app.database.postgres import SCHEMA_LOCK

VERSION_TABLE = "rag_app_schema"

engine = create_engine(context.config.attributes["url"], poolclass=pool.NullPool)
with engine.connect() as connection:
    context.configure(connection=connection, version_table=VERSION_TABLE)
    with context.begin_transaction():
        connection.execute(text(f"SELECT pg_advisory_xact_lock({SCHEMA_LOCK})"))
        context.run_migrations()
engine.dispose()
