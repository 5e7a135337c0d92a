"""How a question is read: its analysis, built once, and a follow-up made standalone."""
