"""The library's catalogue in the shared database (``RAG_APP_DATABASE_URL`` with
``RAG_APP_CHROMA_URL``; docs/SHARED_STORE.md): knowledge bases with their version, document
rows with their stamp, the chunks' payloads and keyword tokens, documents' images, and the
write journal of changes under way (``rag_app.index.pg_registry``). The vectors stay in Chroma.

Revision ID: 0002
Revises: 0001
"""

from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

TABLES = """
CREATE TABLE library_kbs (
    kb TEXT PRIMARY KEY, version TEXT NOT NULL, created_at TEXT COLLATE "C" NOT NULL);
CREATE TABLE library_documents (
    kb TEXT NOT NULL, doc_id TEXT NOT NULL, stamp TEXT NOT NULL, info TEXT NOT NULL,
    PRIMARY KEY (kb, doc_id));
CREATE TABLE library_chunks (
    kb TEXT NOT NULL, chunk_id TEXT NOT NULL, doc_id TEXT NOT NULL, seq INTEGER NOT NULL,
    payload TEXT NOT NULL, tokens TEXT NOT NULL, tokenizer TEXT NOT NULL,
    PRIMARY KEY (kb, chunk_id));
CREATE INDEX library_chunks_by_doc ON library_chunks (kb, doc_id, seq);
CREATE TABLE library_assets (
    kb TEXT NOT NULL, doc_id TEXT NOT NULL, path TEXT NOT NULL, data BYTEA NOT NULL,
    PRIMARY KEY (kb, doc_id, path));
CREATE TABLE library_pending (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, kb TEXT NOT NULL, op TEXT NOT NULL,
    doc_id TEXT NOT NULL DEFAULT '', new_ids TEXT NOT NULL DEFAULT '[]',
    old_ids TEXT NOT NULL DEFAULT '[]', host TEXT NOT NULL DEFAULT '', pid INTEGER NOT NULL,
    started_at TEXT NOT NULL);
"""


def upgrade() -> None:
    for statement in TABLES.split(";"):
        if statement.strip():
            op.execute(statement)


def downgrade() -> None:
    for table in ("library_pending", "library_assets", "library_chunks"):
        op.execute(f"DROP TABLE {table}")
    op.execute("DROP TABLE library_documents")
    op.execute("DROP TABLE library_kbs")
