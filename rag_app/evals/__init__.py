"""Evaluation in the product (issue 27): question sets read from jsonl, csv or xlsx, runs of the
pipeline over a knowledge base in the background, their scores, two runs compared, and exports.
The Evaluate page, ``/v1/evals`` and ``rag-app eval --kb`` are clients of this package."""
