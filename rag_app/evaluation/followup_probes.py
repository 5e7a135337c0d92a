"""Follow-up probes: is a follow-up understood as its written-out form would be retrieved?

Each line of ``assets/followup_probes/probes.txt`` is ``earlier => follow-up => written out``.
A probe agrees when the follow-up, made standalone as the chat makes it, ranks first the chunk
the written-out question ranks first; the report also counts that chunk in its top five. The
probes need no gold items, so they are cheap to write for any report; they were written over
the third set's fitting half and fitted on, so they say whether a reading works, not how well
it generalises (the sets' held-out halves say that).

    python -m rag_app.evaluation.followup_probes --data-dir /tmp/probes
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from rag_app.config import load_settings
from rag_app.evaluation.arithmetic_probes import DOC_DIRS, doc_id_of
from rag_app.evaluation.evaluate import find_documents
from rag_app.index.library import Library
from rag_app.models import SearchFilter
from rag_app.pipeline.followups import understand
from rag_app.retrieve import make_retriever
from rag_app.understand.analysis import analyse_query

ROOT = Path(__file__).resolve().parents[2]
PROBES = ROOT / "assets" / "followup_probes" / "probes.txt"
FITTED_ON = ("rongcheng_bank_2024_annual", "muxi_foods_2025q3_note")


def load_probes(path: Path = PROBES) -> list[tuple[str, str, str]]:
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            earlier, question, written = (part.strip() for part in line.split("=>"))
            rows.append((earlier, question, written))
    return rows


def documents_named(path: Path) -> tuple[str, ...]:
    """The documents a probes file's "# documents:" line names (none: the third set's fitting
    half)."""
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("# documents:"):
            return tuple(line.removeprefix("# documents:").split())
    return ()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", type=Path, required=True, help="where to index the reports")
    parser.add_argument("--probes", type=Path, default=PROBES)
    args = parser.parse_args(argv)
    settings = replace(load_settings(), data_dir=args.data_dir, knowledge_base="probes")
    library = Library(settings)
    documents = documents_named(args.probes) or FITTED_ON
    files = [f for f in find_documents([d / "docs" for d in DOC_DIRS]) if doc_id_of(f) in documents]
    library.ingest_paths(files, "probes")
    retriever = make_retriever("hybrid", library, "probes", settings)
    embedder = library.embedder
    agree = in_five = 0
    probes = load_probes(args.probes)
    for earlier, question, written in probes:
        understood = understand(question, [earlier], library, "probes", settings)
        asked = analyse_query(question, understood, embedder)
        got = [h.chunk.chunk_id for h in retriever.retrieve(asked, 5, SearchFilter())]
        wanted = retriever.retrieve(analyse_query(written, embedder=embedder), 1, SearchFilter())
        first = wanted[0].chunk.chunk_id if wanted else ""
        mark = "ok" if got[:1] == [first] else ("top5" if first in got else "miss")
        agree += mark == "ok"
        in_five += mark != "miss"
        print(f"{mark:4} {question} => {understood.text}")
    print(
        f"first hit as written out: {agree}/{len(probes)}; in the top five: {in_five}/{len(probes)}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
