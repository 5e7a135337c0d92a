"""TRANSITIONAL: the lexical helpers now live in ``rag_app.text``; removed once every caller
imports them from there."""

from rag_app.text.analyzer import QuestionTerms, cjk_bigrams, question_terms
from rag_app.text.analyzer import match_terms as tokenize
from rag_app.text.phrasing import asks_for_list, continues
from rag_app.text.subjects import document_subjects, named_subjects, subject_words

__all__ = [
    "QuestionTerms",
    "asks_for_list",
    "cjk_bigrams",
    "continues",
    "document_subjects",
    "named_subjects",
    "question_terms",
    "subject_words",
    "tokenize",
]
