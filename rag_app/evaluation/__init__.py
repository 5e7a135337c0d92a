"""Quality and speed measured: question sets, retrieval metrics, the router's fit, benchmarks."""
