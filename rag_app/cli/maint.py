"""``rag-app check``: the library's parts compared, and repaired (``rag-app eval`` is in
evals.py)."""

from __future__ import annotations

import argparse
import json

from rag_app.cli.common import _err, _library, _settings


def cmd_check(args: argparse.Namespace) -> int:
    """Compare the catalogue, the vectors, the keyword indexes and the image folders; with
    --repair, fix what differs. Exit 0 when consistent (or repaired), 1 when problems remain."""
    from rag_app.index.consistency import check_library

    settings = _settings(args)
    report = check_library(_library(settings), kb=args.kb, repair=args.repair)
    if args.json:
        print(json.dumps(report.to_json(), ensure_ascii=False, indent=2))
    else:
        print("\n".join(report.lines()))
        if not report.consistent and not args.repair:
            _err("run `rag-app check --repair` to fix them")
    return 0 if report.consistent else 1


def add_check_parser(sub, common: argparse.ArgumentParser) -> None:  # type: ignore[no-untyped-def]
    p = sub.add_parser(
        "check",
        parents=[common],
        help="compare the catalogue, vectors and keyword indexes (every knowledge base unless "
        "--kb); --repair fixes what differs",
    )
    p.add_argument("--repair", action="store_true", help="fix what differs")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_check)
