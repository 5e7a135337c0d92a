"""``rag-app audit``: the audit log from the shell (seed 002), as a table or as JSON."""

from __future__ import annotations

import argparse
import json
import sys

from rag_app.chat.audit import AuditLog, AuditRecord, open_audit_log
from rag_app.config import Settings, load_settings


def audit_log(settings: Settings) -> AuditLog | None:
    """The data dir's audit log, or None with a line on stderr."""
    log = open_audit_log(settings.data_dir, settings.audit_retention_days, settings.database_url)
    if log is None:
        print("the audit log cannot be opened (see the warning above)", file=sys.stderr)
    return log


def cmd_audit(args: argparse.Namespace) -> int:
    settings = load_settings(data_dir=getattr(args, "data_dir", None))
    log = audit_log(settings)
    if log is None:
        return 1
    try:
        records = log.records(kb=args.kb, since=args.since, user=args.user, limit=args.limit)
    except ValueError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps([r.to_json() for r in records], ensure_ascii=False, indent=1))
        return 0
    if not records:
        print("no answered questions recorded" + (f" in '{args.kb}'" if args.kb else ""))
    for record in records:
        print(_line(record))
    return 0


def _line(record: AuditRecord) -> str:
    total = record.timings.get("total_ms")
    took = f"{total / 1000:.1f}s" if total is not None else "-"
    outcome = f"ERROR {record.error_kind or ''}: {record.error[:60]}" if record.error else "ok"
    if record.fallback_from:
        outcome += " (answered offline)"
    question = " ".join(record.question.split())
    return (
        f"{record.time[:19]}  {record.user:8} {record.kb:12} {record.mode:6} "
        f"{len(record.hits):2} hits {record.prompt_tokens:5} tok {took:>6}  {record.answerer}  "
        f"{outcome}\n    {question[:100]}"
    )


def add_audit_parser(sub, common: argparse.ArgumentParser) -> None:  # type: ignore[no-untyped-def]
    p = sub.add_parser(
        "audit",
        parents=[common],
        help="list answered questions: time, user, mode, hits, timings, answerer, errors",
    )
    p.add_argument("--since", help="only records at or after this ISO time (2026-11-26T08:00)")
    p.add_argument("--limit", type=int, default=None, help="at most this many, newest first")
    p.add_argument("--user", default=None, help="only this user's questions")
    p.add_argument("--json", action="store_true", help="a JSON list of records")
    p.set_defaults(func=cmd_audit)
