"""The broker set: five authored reports beside the sample, their questions and the question
sets read off their tables (lists, follow-ups, unanswerable)."""
