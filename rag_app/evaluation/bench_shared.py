"""Load on the shared deployment (issue 28): answers/s of one `rag-app serve` process, then of
two round-robin, both over one PostgreSQL and one `chroma run` (docs/SHARED_STORE.md).

``python -m rag_app.evaluation.bench_shared`` (``make bench-shared``) starts a throwaway
PostgreSQL cluster on loopback (or uses ``--database-url``, an empty database), Chroma and one API
process with the real model and the offline answerer (no model key), uploads the sample report
once as user A (a named token), warms the process with two asks, then sends ``--asks`` streamed
asks ``--concurrency`` at a time (``bench_serve.run_load``). Then it starts a second process over
the same stores, waits until it lists the sample, warms it, and sends the same load round-robin
over both. Prints one JSON object to stdout (per setup answers/s, errors, first-token and end
latency p50/p95; the ratio; whether it meets issue 28's bar: at least ``TARGET_RATIO`` times one
process's answers/s with no errors) and a line for the docs to stderr; exits 1 when the bar is
missed.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import date
from pathlib import Path
from typing import Any

import httpx

from rag_app.evaluation.bench_serve import SAMPLE, LoadResult, run_load
from rag_app.evaluation.shared_stack import (
    USERS,
    SharedStack,
    create_database,
    postgres_cluster,
    shared_stack,
)

TARGET_RATIO = 1.5  # issue 28: two processes give at least 1.5x one process's answers/s


def _quantile(values: Sequence[float], p: int) -> float | None:
    if not values:
        return None
    if len(values) == 1:
        return round(values[0], 3)
    return round(statistics.quantiles(sorted(values), n=100, method="inclusive")[p - 1], 3)


def summary(result: LoadResult, processes: int) -> dict[str, Any]:
    ok = result.ok
    first = [t.first_token_s for t in ok if t.first_token_s is not None]
    end = [t.end_s for t in ok]
    return {
        "processes": processes,
        "concurrency": result.concurrency,
        "asks": len(result.timings),
        "answers": len(ok),
        "wall_s": round(result.wall_s, 2),
        "answers_per_s": round(len(ok) / result.wall_s, 2) if result.wall_s else 0.0,
        "errors": sum(result.errors().values()),
        "error_kinds": result.errors(),
        "first_token_p50_s": _quantile(first, 50),
        "first_token_p95_s": _quantile(first, 95),
        "end_p50_s": _quantile(end, 50),
        "end_p95_s": _quantile(end, 95),
    }


@contextmanager
def _database(url: str) -> Iterator[str]:
    if url:
        yield url
        return
    with postgres_cluster() as base:
        yield create_database(base)


def _upload_sample(stack: SharedStack, kb: str) -> None:
    sample = SAMPLE / "smic_report_content_list.json"
    r = httpx.post(
        f"{stack.apis[0].url}/v1/kbs/{kb}/documents",
        files=[("files", (sample.name, sample.read_bytes()))],
        headers=stack.headers(USERS[0]),
        timeout=900,
    )
    r.raise_for_status()
    statuses = [rep["status"] for f in r.json()["files"] for rep in f["reports"]]
    if statuses != ["ingested"]:
        raise RuntimeError(f"the sample did not ingest: {statuses}")


def _wait_listed(stack: SharedStack, url: str, kb: str, seconds: float) -> None:
    """Until the process at ``url`` lists ``kb``'s documents (its replica caught up)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        r = httpx.get(f"{url}/v1/kbs/{kb}/documents", headers=stack.headers(USERS[0]), timeout=30)
        if r.status_code == 200 and r.json()["data"]:
            return
        time.sleep(0.5)
    raise RuntimeError(f"{url} did not list {kb} in {seconds:.0f} s")


def run(args: argparse.Namespace) -> dict[str, Any]:
    token_user = USERS[0]
    rows = []
    with (
        _database(args.database_url) as url,
        tempfile.TemporaryDirectory(prefix="rag_bench_shared_") as tmp,
        shared_stack(
            Path(tmp),
            url,
            apis=1,
            extra_env={"RAG_APP_MAX_STREAMS": str(args.concurrency)},
            warm_s=args.warm_s,
        ) as stack,
    ):
        token = stack.tokens[token_user]
        _upload_sample(stack, args.kb)
        for processes in (1, 2):
            if processes == 2:
                stack.add_api(args.warm_s)
                _wait_listed(stack, stack.urls[-1], args.kb, args.warm_s)
            for base in stack.urls:  # warm caches (the library's snapshot) before timing
                run_load([base], 1, 2, args.kb, token, args.time_limit)
            result = run_load(
                stack.urls, args.concurrency, args.asks, args.kb, token, args.time_limit
            )
            rows.append(summary(result, processes))
            print(json.dumps(rows[-1], ensure_ascii=False), file=sys.stderr, flush=True)
    one, two = rows
    ratio = round(two["answers_per_s"] / one["answers_per_s"], 2) if one["answers_per_s"] else 0.0
    meets = ratio >= TARGET_RATIO and not one["errors"] and not two["errors"]
    return {
        "date": date.today().isoformat(),
        "concurrency": args.concurrency,
        "one_process": one,
        "two_processes": two,
        "ratio": ratio,
        "target_ratio": TARGET_RATIO,
        "meets_target": meets,
        "docs_line": docs_line(one, two, ratio),
    }


def docs_line(one: dict[str, Any], two: dict[str, Any], ratio: float) -> str:
    def part(row: dict[str, Any]) -> str:
        return (
            f"{row['answers_per_s']:.2f} answers/s (end p50 {row['end_p50_s']} s, "
            f"p95 {row['end_p95_s']} s, errors {row['errors']}/{row['asks']})"
        )

    return (
        f"`make bench-shared` ({date.today().isoformat()}, {one['concurrency']} concurrent asks, "
        f"PostgreSQL + chroma run): one process {part(one)}; two processes {part(two)}; "
        f"{ratio:.2f}x"
    )


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m rag_app.evaluation.bench_shared", description=__doc__
    )
    ap.add_argument("--concurrency", type=int, default=32, help="asks in flight at once")
    ap.add_argument("--asks", type=int, default=256, help="asks per setup")
    ap.add_argument("--time-limit", type=float, default=300.0, help="seconds per setup")
    ap.add_argument("--warm-s", type=float, default=300.0, help="seconds a process may warm up")
    ap.add_argument("--kb", default="bench")
    ap.add_argument(
        "--database-url", default="", help="an empty PostgreSQL database (default: a new cluster)"
    )
    args = ap.parse_args(argv)
    report = run(args)
    print(json.dumps(report, ensure_ascii=False, indent=2))
    print(report["docs_line"], file=sys.stderr)
    return 0 if report["meets_target"] else 1


if __name__ == "__main__":
    sys.exit(main())
