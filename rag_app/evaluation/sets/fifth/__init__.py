"""The fifth evaluation set (``assets/fifth_eval``), written and frozen on 2026-11-28 before anyone
tuned on it: four broker reports in the sample report's look, on a liquor maker and a construction
machinery maker (the fitting half) and on a solar-inverter maker and an innovative-drug maker (the
held-out half), with answerable, unanswerable, follow-up, two-document and worked-out questions."""
