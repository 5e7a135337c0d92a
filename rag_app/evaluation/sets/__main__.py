"""Rebuild the shipped data: ``python -m rag_app.evaluation.sets [--out DIR]``.

Writes ``DIR/sample_report`` and ``DIR/broker_eval`` (``DIR`` is the repository's ``assets/``
unless given), then the question sets read back off the broker reports, ``DIR/second_eval``
(the second set, frozen before tuning), ``DIR/third_eval`` (the third, frozen before tuning),
``DIR/fourth_eval`` (the fourth, frozen before tuning, half of it held out) and ``DIR/fifth_eval``
(the fifth, four broker reports, frozen before tuning, half of it held out).
Every answer is verified against its gold items; a failure stops the build.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from rag_app.evaluation.sets.broker.build import write_broker
from rag_app.evaluation.sets.broker.followups import write_followups
from rag_app.evaluation.sets.broker.lists import write_lists
from rag_app.evaluation.sets.broker.unanswerable import write_unanswerable
from rag_app.evaluation.sets.fifth.build import write_fifth
from rag_app.evaluation.sets.fourth.build import write_fourth
from rag_app.evaluation.sets.sample.build import write_sample
from rag_app.evaluation.sets.sample.report import build_smic
from rag_app.evaluation.sets.second.build import write_second
from rag_app.evaluation.sets.third.build import write_third

ASSETS = Path(__file__).resolve().parents[3] / "assets"


def write_sets(out: Path) -> None:
    """Write the sample report into ``out/sample_report``, the broker set into
    ``out/broker_eval``, the second set into ``out/second_eval``, the third into
    ``out/third_eval``, the fourth into ``out/fourth_eval`` and the fifth into ``out/fifth_eval``;
    raises ``SystemExit`` when a question fails verification."""
    write_sample(out / "sample_report")
    broker = out / "broker_eval"
    write_broker(broker, build_smic())
    write_lists(broker)
    write_followups(broker)
    write_unanswerable(broker)
    write_second(out / "second_eval")
    write_third(out / "third_eval")
    write_fourth(out / "fourth_eval")
    write_fifth(out / "fifth_eval")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--out", type=Path, default=ASSETS, help="default: the repository's assets/"
    )
    write_sets(parser.parse_args(argv).out)


if __name__ == "__main__":
    main()
