"""TRANSITIONAL: the synonym dictionary lives in ``rag_app.text.synonyms``."""

from rag_app.text.synonyms import FINANCE_SYNONYMS, SYNONYM_GROUPS, SynonymDictionary

__all__ = ["FINANCE_SYNONYMS", "SYNONYM_GROUPS", "SynonymDictionary"]
