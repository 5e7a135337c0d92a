"""Arithmetic probes: does the offline answer's first paragraph give the number worked out by hand?

Each line of a probes file (``assets/arithmetic_probes/*.tsv``) is ``document id <TAB> question
<TAB> number [<TAB> unit or note]``; a fourth column ``lookup`` marks a one-cell lookup. Every
question is asked through the pipeline, offline, with its document in scope, and passes when a
number of the answer's first paragraph, rounded to the gold's decimals, is the gold (a fall is
given as its size, so signs are not compared). The probes were written to find kinds of
questions and were fitted on: they say whether a reading works, not how well it generalises.

    python -m rag_app.evaluation.arithmetic_probes --data-dir /tmp/probes-arith
    python -m rag_app.evaluation.arithmetic_probes --data-dir D --probes assets/arithmetic_probes/probes_broker.tsv --kind lookup
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from pathlib import Path

from rag_app.answer.offline import NOTICE
from rag_app.config import load_settings
from rag_app.evaluation.evaluate import find_documents
from rag_app.index.library import Library
from rag_app.models import AskOptions
from rag_app.pipeline.ask import Pipeline

ROOT = Path(__file__).resolve().parents[2]
PROBES = ROOT / "assets" / "arithmetic_probes"
# Where each probes file's documents are: their own, or a frozen set's (only its fitting half's).
DOC_DIRS = tuple(
    ROOT / "assets" / folder
    for folder in (
        "arithmetic_probes",
        "followup_probes",
        "second_eval",
        "third_eval",
        "fourth_eval",
        "fifth_eval",
    )
)
_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")


@dataclass(frozen=True)
class Probe:
    doc_id: str
    question: str
    gold: str
    note: str

    @property
    def lookup(self) -> bool:
        return self.note.strip() == "lookup"


def load_probes(path: Path) -> list[Probe]:
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            parts = line.split("\t")
            rows.append(Probe(parts[0], parts[1], parts[2], parts[3] if len(parts) > 3 else ""))
    return rows


def gives(text: str, gold: str) -> bool:
    """Whether a number in ``text``, rounded to ``gold``'s decimals, is ``gold``."""
    try:
        wanted = Decimal(gold)
    except InvalidOperation:
        return gold in text
    step = Decimal(1).scaleb(wanted.as_tuple().exponent)  # type: ignore[arg-type]
    for written in _NUMBER.findall(text):
        number = Decimal(written.replace(",", ""))
        if number.quantize(step, rounding=ROUND_HALF_UP) == abs(wanted):
            return True
    return False


def first_paragraph(text: str) -> str:
    """The answer's first paragraph after the offline answerer's notice."""
    notices = set(NOTICE.values())
    paragraphs = [p.strip() for p in text.split("\n\n") if p.strip() not in notices]
    return next((p for p in paragraphs if p), "")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", type=Path, required=True, help="where to index the reports")
    parser.add_argument(
        "--probes", type=Path, action="append", help="a probes file (repeatable; default: all)"
    )
    parser.add_argument("--kind", choices=("all", "arithmetic", "lookup"), default="all")
    parser.add_argument(
        "--verbose", action="store_true", help="print each answer's first paragraph"
    )
    args = parser.parse_args(argv)
    files = args.probes or sorted(PROBES.glob("*.tsv"))
    settings = replace(load_settings(), data_dir=args.data_dir, knowledge_base="probes")
    library = Library(settings)
    probes = [p for f in files for p in load_probes(f)]
    if args.kind != "all":
        probes = [p for p in probes if p.lookup == (args.kind == "lookup")]
    wanted = {p.doc_id for p in probes}
    documents = [
        f for f in find_documents([d / "docs" for d in DOC_DIRS]) if doc_id_of(f) in wanted
    ]
    library.ingest_paths(documents, "probes")
    pipeline = Pipeline(settings, library)
    passed: Counter[str] = Counter()
    asked: Counter[str] = Counter()
    for probe in probes:
        options = AskOptions(kb="probes", doc_ids=(probe.doc_id,))
        answer = None
        for event in pipeline.stream(probe.question, options):
            if event.kind == "answer":
                answer = event.answer
        text = first_paragraph(answer.text if answer is not None else "")
        ok = gives(text, probe.gold)
        kind = "lookup" if probe.lookup else "arithmetic"
        asked[kind] += 1
        passed[kind] += ok
        print(f"{'ok  ' if ok else 'miss'} {probe.gold:>10} {probe.question}")
        if args.verbose or not ok:
            print("      " + text.replace("\n", " ")[:300])
    for kind in sorted(asked):
        print(f"{kind}: {passed[kind]}/{asked[kind]}")
    return 0


def doc_id_of(path: Path) -> str:
    return path.name.removesuffix(".json").removesuffix("_content_list")


if __name__ == "__main__":
    sys.exit(main())
