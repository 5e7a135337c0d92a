"""The library's facts in the shared database (``rag_app.index.facts_store``): one row a table
cell of each document (its row and column labels, period, value as written and read, unit,
scale, the table's caption, introducing paragraph, footnote and headings, its pages), written
with the document's chunks in one transaction; and one row a document whose facts are stored,
naming the reader's version that stored them and how many there are.

Revision ID: 0003
Revises: 0002
"""

from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

TABLES = """
CREATE TABLE library_facts (
    kb TEXT NOT NULL, doc_id TEXT NOT NULL, seq INTEGER NOT NULL, chunk_id TEXT NOT NULL,
    row_index INTEGER NOT NULL, col_index INTEGER NOT NULL, subject TEXT NOT NULL,
    metric TEXT NOT NULL, column_label TEXT NOT NULL, period TEXT NOT NULL, value TEXT NOT NULL,
    number DOUBLE PRECISION, unit TEXT NOT NULL, scale TEXT NOT NULL, exponent INTEGER NOT NULL,
    caption TEXT NOT NULL, context TEXT NOT NULL, footnote TEXT NOT NULL,
    headings TEXT NOT NULL, pages TEXT NOT NULL,
    PRIMARY KEY (kb, doc_id, seq));
CREATE TABLE library_fact_sets (
    kb TEXT NOT NULL, doc_id TEXT NOT NULL, version INTEGER NOT NULL, n INTEGER NOT NULL,
    PRIMARY KEY (kb, doc_id));
"""


def upgrade() -> None:
    for statement in TABLES.split(";"):
        if statement.strip():
            op.execute(statement)


def downgrade() -> None:
    op.execute("DROP TABLE library_fact_sets")
    op.execute("DROP TABLE library_facts")
