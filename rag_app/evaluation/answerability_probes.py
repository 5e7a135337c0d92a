"""Answerability probes: is a question the library cannot answer declined, and its twin not?

Each line of a probes file (``assets/answerability_probes/*.tsv``) is ``document id <TAB>
question <TAB> decline|answer <TAB> kind``; the document is the answer's (for a question to
decline, its answerable twin's). Every probes file's documents go into one library, as a user's
library holds several reports, and each question is held against all of it by the check the
pipeline runs before answering (``rag_app.trust.answerability``). The probes were written over
the frozen sets' fitting halves to find kinds of questions, and fitted on: they say whether a
reading works, not how well it generalises (the sets' held-out halves say that).

    python -m rag_app.evaluation.answerability_probes --data-dir /tmp/probes-answerability
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from rag_app.config import load_settings
from rag_app.evaluation.arithmetic_probes import DOC_DIRS, doc_id_of
from rag_app.evaluation.evaluate import find_documents
from rag_app.index.library import Library
from rag_app.trust.answerability import assess
from rag_app.understand.analysis import analyse_query

ROOT = Path(__file__).resolve().parents[2]
PROBES = ROOT / "assets" / "answerability_probes"


@dataclass(frozen=True)
class Probe:
    doc_id: str
    question: str
    declines: bool
    kind: str


def load_probes(path: Path) -> list[Probe]:
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            doc_id, question, expected, kind = line.split("\t")
            if expected not in ("decline", "answer"):
                raise ValueError(f"{path.name}: expected decline or answer, got {expected!r}")
            rows.append(Probe(doc_id, question, expected == "decline", kind))
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", type=Path, required=True, help="where to index the reports")
    parser.add_argument(
        "--probes", type=Path, action="append", help="a probes file (repeatable; default: all)"
    )
    args = parser.parse_args(argv)
    files = args.probes or sorted(PROBES.glob("*.tsv"))
    settings = replace(load_settings(), data_dir=args.data_dir, knowledge_base="probes")
    library = Library(settings)
    probes = [p for f in files for p in load_probes(f)]
    wanted = {p.doc_id for p in probes}
    documents = [
        f for f in find_documents([d / "docs" for d in DOC_DIRS]) if doc_id_of(f) in wanted
    ]
    library.ingest_paths(documents, "probes")
    right: Counter[bool] = Counter()
    asked: Counter[bool] = Counter()
    for probe in probes:
        finding = assess(
            analyse_query(probe.question, embedder=library.embedder), library, "probes"
        )
        ok = finding.declines == probe.declines
        asked[probe.declines] += 1
        right[probe.declines] += ok
        mark = "ok  " if ok else "miss"
        said = finding.note(language="en" if probe.question.isascii() else "zh")
        print(f"{mark} {'decline' if probe.declines else 'answer '} {probe.question}  {said[:120]}")
    print(
        f"declined: {right[True]}/{asked[True]}; answerable not declined: "
        f"{right[False]}/{asked[False]}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
