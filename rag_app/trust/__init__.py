"""What makes an answer trustworthy beyond its citations: what the library does not hold, and Self-RAG."""
