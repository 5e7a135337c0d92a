"""The third evaluation set (``assets/third_eval``), written and frozen on 2026-11-28 before anyone
tuned on it: a city commercial bank's annual report, a consumer-goods broker note with a transposed
forecast table, a pharmaceutical half-year report and an English-named fund's quarterly report,
with answerable, unanswerable, follow-up, two-document and worked-out questions."""
