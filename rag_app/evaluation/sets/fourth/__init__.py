"""The fourth evaluation set (``assets/fourth_eval``), written and frozen on 2026-11-28 before anyone
tuned on it: an insurance group's annual report and a broker's battery-industry report (the fitting
half), an airline's monthly traffic announcement and a manufacturer's third-quarter report (the
held-out half), with answerable, unanswerable, follow-up, two-document and worked-out questions."""
