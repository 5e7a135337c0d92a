"""The one room for words: every stage that reads words gets them from here.

- ``analyzer``: jieba (set up once, with the finance dictionary), stopwords, stemming, period
  tokens, bigrams; the keyword index's tokens and the terms questions and passages share;
- ``sentences``: the one sentence splitter (passages, answers);
- ``tables`` / ``table_rows``: the table grid (HTML in; rows, labels, Markdown/HTML out) and a
  table's HTML cut at its rows;
- ``synonyms``, ``subjects``, ``phrasing``, ``language``, ``periods``: finance synonyms, what a
  report is about, what a question's phrasing asks, its language, its periods;
- ``query``: a question analysed once, passed down the stages;
- ``lexicon``: the word lists under ``data/``, each with a line on where it comes from.

It imports nothing from the rest of ``rag_app`` but ``rag_app.models``.
"""
