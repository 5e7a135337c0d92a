"""TRANSITIONAL: table notes live in ``rag_app.text.notes``."""

from rag_app.text.notes import is_table_note, note_mark, says_what_it_is, table_marks

__all__ = ["is_table_note", "note_mark", "says_what_it_is", "table_marks"]
