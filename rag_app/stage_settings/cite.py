"""The citation check's knobs (``CiteSettings``; how these numbers combine:
``rag_app.cite.check``'s docstring) and the e5 cosine bands its semantic side maps onto 0-1."""

from __future__ import annotations

from dataclasses import dataclass

from rag_app.stage_settings.words import BIGRAM_WEIGHT

# multilingual-e5-small cosines (both sides embedded with the "query: " prompt) sit in narrow
# bands, mapped linearly onto 0-1 and clipped. Measured on hand-made report sentences like those
# of tests/cite/test_cite.py:
#   Chinese-Chinese: unrelated or another fact of the same report 0.83-0.90, paraphrases
#     0.92-0.98, a copy 1.0 -> (0.85, 0.95).
#   English-English: unrelated 0.75-0.82, another fact of the same report 0.79-0.88,
#     paraphrases 0.84-0.93 -> (0.82, 0.94). e5-small separates English paraphrases poorly;
#     their numbers (checked exactly) matter more than the cosine.
#   English sentence, Chinese source (or the reverse): unrelated 0.73-0.82, translations
#     0.81-0.87 -> (0.80, 0.86).
E5_CHINESE_BAND = (0.85, 0.95)
E5_ENGLISH_BAND = (0.82, 0.94)
E5_CROSS_LANGUAGE_BAND = (0.80, 0.86)
# Any other embedder (the hash embedder of the tests) is taken at face value: cosine 0 -> 0.
DEFAULT_BAND = (0.0, 1.0)


@dataclass(frozen=True)
class CiteSettings:
    # A factual sentence is supported when its support reaches this. Half-way: a copied row
    # scores about 0.9-1.0, an unrelated sentence under 0.3 (tests/cite/test_cite.py).
    threshold: float = 0.5
    # The semantic opinion = strong * max(lexical, semantic) + (1 - strong) * min(...): either
    # kind of evidence can carry a sentence (a translation shares no words with its source),
    # but agreement scores higher.
    strong_weight: float = 0.7
    # When every number of the sentence is in the source, this share of the remaining distance
    # to 1 is added: matching figures are the best evidence a research answer can have.
    number_bonus: float = 0.3
    # A number (other than a year) missing from the cited sources caps support at this times
    # the share of the sentence's numbers that were found: 452 -> 542 is a hallucination
    # whatever the wording.
    missing_number_cap: float = 0.25
    # A missing year (1900-2100) often comes from the question ("2023年") rather than the
    # source ("本年"); it multiplies support by this instead.
    missing_year_factor: float = 0.85
    # The semantic side compares the sentence with this many units (sentences or table rows)
    # of each source, those sharing most words and numbers with it.
    units_per_source: int = 2
    # Units are ranked for it by shared words, each shared Chinese character bigram counting
    # this much (``stage_settings.words``), and cut to ``max_unit_chars`` for embedding (e5
    # reads about 512 tokens; table rows are short).
    bigram_weight: float = BIGRAM_WEIGHT
    max_unit_chars: int = 300
    # When the cited sources do not support a sentence (or it cites none), this many other
    # sources, best by lexical evidence, are checked to name the one that does.
    alternative_sources: int = 3
    # At most this many texts per embedding call: on 2 busy cores e5-small takes ~17 ms per
    # short text with one thread, so an answer whose every sentence needs a second opinion
    # stays near a second; beyond it, sentences keep their words-and-numbers score.
    max_embedded_texts: int = 48
    # (low, high) cosine bands for the embedder: (Chinese pairs, English pairs, across
    # languages), or None to pick by its name (the E5 bands for e5 models, DEFAULT_BAND
    # otherwise).
    semantic_bands: tuple[tuple[float, float], ...] | None = None
    # A sentence with fewer content words than this and no number is a connective
    # ("综上所述：", "In summary,") and is not checked.
    min_content_words: int = 2
    # The relevance check (``rag_app.cite.relevance``): a cited sentence about another company,
    # period or metric than the question's is marked off-question even when it quotes its
    # source exactly. Measured on offline broker answers: no sentence giving an answerable
    # question's answer is flagged (0/113); with the decline off, 43/44 unanswerable flagged.
    relevance: bool = True

    def __post_init__(self) -> None:
        if not 0.0 <= self.threshold <= 1.0:
            raise ValueError("threshold must be between 0 and 1")
        if self.semantic_bands is not None and len(self.semantic_bands) != 3:
            raise ValueError("semantic_bands must be three bands: Chinese, English, cross-language")
        for band in self.semantic_bands or ():
            if not band[0] < band[1]:
                raise ValueError("each semantic band must be (low, high) with low < high")
        if self.units_per_source < 1 or self.alternative_sources < 0:
            raise ValueError("units_per_source must be >= 1 and alternative_sources >= 0")


DEFAULT_CITE_SETTINGS = CiteSettings()
