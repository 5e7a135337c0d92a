"""The generators of the data the project ships: the sample report (``assets/sample_report``),
the broker evaluation set (``assets/broker_eval``) and the second set (``assets/second_eval``).
``python -m rag_app.evaluation.sets`` writes them all; ``tests/evaluation/test_sets.py`` checks
that it reproduces them byte for byte."""
