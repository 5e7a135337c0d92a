"""Facts: every cell of a table read as a fact (its row's metric, its column's period or label,
the value as written and as a number, the scale the table states) and the facts a question
asks for (issue 25). Below ingestion and the library, so both can store them later; above the
question's analysis, which ``lookup`` reads."""
