"""The generators of the data the project ships: the sample report (``assets/sample_report``)
and the broker evaluation set (``assets/broker_eval``). ``python -m rag_app.evaluation.sets``
writes both; ``tests/evaluation/test_sets.py`` checks that it reproduces them byte for byte."""
