"""`rag-app`, the command line: a client of the pipeline."""
