"""Knobs of the words room (``rag_app.text``) that every stage scoring with it shares; the text
layer sits below the settings, so each stage is handed the value in its own settings object."""

from __future__ import annotations

# Weight of a Chinese character bigram against a whole word wherever both are counted (excerpt
# scores, the offline answerer, the citation check's unit ranking): bigrams only rescue a match
# that jieba's segmentation missed (a name cut differently in question and text), so they must
# not outvote real word matches. Set by hand on the tests' report snippets. The default of
# ``PromptSettings``, ``OfflineSettings`` and ``CiteSettings``' ``bigram_weight``.
BIGRAM_WEIGHT = 0.3
