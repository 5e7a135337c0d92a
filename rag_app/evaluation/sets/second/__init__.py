"""The second evaluation set (``assets/second_eval``), frozen before any tuning of the question
reading: an annual report, an IPO prospectus, an industry report and an earnings call's minutes,
in styles unlike the broker reports, with answerable, unanswerable and follow-up questions."""
