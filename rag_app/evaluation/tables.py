"""The results of ``make eval`` as Markdown: one row a set, scope and run, and smart against
hybrid per set; ``docs/eval-results.md`` is this table headed by the command and the date."""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from pathlib import Path

COLUMNS = (
    "recall@1",
    "recall@5",
    "recall@10",
    "mrr@10",
    "answer_in_context",
    "answer_in_offline",
    "operands_in_context",
    "declined_unanswerable",
    "answered_answerable",
    "query_ms_p50",
    "retrieval_context_ms_p95",
    # smart runs: the share of questions routed (a type preferred), and of the questions whose
    # gold items are of one type, the share routed to that type and to another
    "routing routed",
    "routing single_own",
    "routing single_wrong",
)


def _fmt(value: object) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.3f}" if value < 10 else f"{value:.1f}"
    return str(value)


def row_markdown(row: dict[str, object]) -> str:
    cells = [str(row["set"]), str(row["scope"]), str(row["retriever"])]
    cells += [_fmt(row.get(c)) for c in COLUMNS]
    return "| " + " | ".join(cells) + " |"


def to_markdown(results: Sequence[dict[str, object]]) -> str:
    header = "| set | scope | retriever | " + " | ".join(COLUMNS) + " |"
    rule = "|" + "---|" * (3 + len(COLUMNS))
    table = "\n".join([header, rule, *(row_markdown(r) for r in results)])
    versus = smart_vs_hybrid(results)
    return f"{table}\n\n{versus}" if versus else table


def smart_vs_hybrid(results: Sequence[dict[str, object]]) -> str:
    """Smart against hybrid per set and scope: the differences (smart - hybrid) and smart's
    routing of the questions whose gold is of one type (own type / wrong type / not routed)."""
    rows = {(r["set"], r["scope"], r["retriever"]): r for r in results}
    lines = [
        "| set | scope | Δ recall@1 | Δ recall@5 | Δ answer_in_context | routed | "
        "own type | wrong type | not routed |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for (name, scope, retriever), smart in rows.items():
        hybrid = rows.get((name, scope, "hybrid"))
        if retriever != "smart" or hybrid is None:
            continue

        def delta(key: str) -> str:
            a, b = smart.get(key), hybrid.get(key)  # noqa: B023 - used at once
            if not isinstance(a, (int, float)) or not isinstance(b, (int, float)):
                return "-"
            return f"{a - b:+.3f}"

        lines.append(
            f"| {name} | {scope} | {delta('recall@1')} | {delta('recall@5')} | "
            f"{delta('answer_in_context')} | {_fmt(smart.get('routing routed'))} | "
            f"{_fmt(smart.get('routing single_own'))} | {_fmt(smart.get('routing single_wrong'))} "
            f"| {_fmt(smart.get('routing single_unrouted'))} |"
        )
    return "\n".join(lines) if len(lines) > 2 else ""


def write_docs_table(path: Path, results: Sequence[dict[str, object]], command: str) -> None:
    """Write the results table to ``path`` (the repository's ``docs/eval-results.md``) under a
    one-line header naming the command that made it and the date."""
    today = datetime.date.today().isoformat()
    header = f"Written by `{command}` on {today}."
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"{header}\n\n{to_markdown(results)}\n")
