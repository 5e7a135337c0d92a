"""Figures for docs/SHARED_STORE.md: a shared Chroma server against the embedded store.

``python -m rag_app.evaluation.bench_replica --url http://127.0.0.1:PORT --docs 100 200``: for each
count, copies of one TAT-QA-like report (each made distinct by a line naming its copy) are
ingested with the hash embedder (384 dimensions) through one library on the server and one
embedded library; then a library opened on a fresh data dir rebuilds its replica (timed), and
the per-read version check, dense and keyword queries and one more document's write are timed in
both modes. The server should be empty (a new ``chroma run --path``); each count uses its own
knowledge base.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from rag_app.config import ChromaSettings, Settings
from rag_app.index.embedder import HashEmbedder
from rag_app.index.library import Library
from rag_app.index.replica import Replica

_SOURCE = Path(__file__).resolve().parents[2] / "tests" / "data" / "tatqa_like_content_list.json"
_QUERIES = ["Freight revenue by segment", "operating income 2019", "warehousing revenue mix"]


def _copies(folder: Path, n: int, start: int = 0) -> list[Path]:
    items = json.loads(_SOURCE.read_text(encoding="utf-8"))
    paths = []
    for i in range(start, start + n):
        mark = {"type": "text", "text": f"Copy {i} of the Northwind report.", "page_idx": 0}
        path = folder / f"northwind_{i:05d}_content_list.json"
        path.write_text(json.dumps([mark, *items], ensure_ascii=False), encoding="utf-8")
        paths.append(path)
    return paths


def _ms(fn, repeat: int) -> float:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def _library(folder: Path, url: str = "", counter=None) -> Library:  # type: ignore[no-untyped-def]
    settings = Settings(data_dir=folder, chroma=ChromaSettings(url=url, sync_ms=500))
    return Library(settings, embedder=HashEmbedder(384), counter=counter)


def run(url: str, counts: list[int]) -> list[dict[str, float]]:
    from rag_app.text.tokens import get_token_counter

    counter = get_token_counter()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in counts:
            rows.append(_measure(Path(tmp), url, n, counter))
            print(json.dumps(rows[-1]), flush=True)
    return rows


def _measure(root: Path, url: str, n: int, counter) -> dict[str, float]:  # type: ignore[no-untyped-def]
    kb = f"bench{n}"
    files = root / f"in{n}"
    files.mkdir()
    paths = _copies(files, n)
    writer = _library(root / f"w{n}", url, counter)
    embedded = _library(root / f"e{n}", "", counter)
    start = time.perf_counter()
    writer.ingest_paths(paths, kb)
    ingest_server = time.perf_counter() - start
    start = time.perf_counter()
    embedded.ingest_paths(paths, kb)
    ingest_embedded = time.perf_counter() - start
    chunks = len(writer.chunks(kb))

    start = time.perf_counter()
    late = _library(root / f"late{n}", url, counter)
    open_sync = time.perf_counter() - start
    assert isinstance(late.replica, Replica)
    start = time.perf_counter()
    late.snapshot(kb)
    first_snapshot = time.perf_counter() - start
    check = _ms(lambda: late.replica.sync(kb, force=True), 20)
    vector = HashEmbedder(384).embed_queries([_QUERIES[0]])[0]
    dense_server = _ms(lambda: late.dense_search(kb, "", 20, query_vector=vector), 30)
    dense_embedded = _ms(lambda: embedded.dense_search(kb, "", 20, query_vector=vector), 30)
    kw_server = _ms(lambda: late.keyword_search(kb, _QUERIES[1], 20), 30)
    kw_embedded = _ms(lambda: embedded.keyword_search(kb, _QUERIES[1], 20), 30)
    (extra,) = _copies(files, 1, start=n)
    write_server = _ms(lambda: writer.ingest_paths([extra], kb, on_conflict="replace"), 1)
    write_embedded = _ms(lambda: embedded.ingest_paths([extra], kb, on_conflict="replace"), 1)
    start = time.perf_counter()
    late.documents(kb)
    late.replica.sync(kb, force=True)
    catch_up_one = time.perf_counter() - start
    row = {
        "documents": n,
        "chunks": chunks,
        "ingest_server_s": round(ingest_server, 2),
        "ingest_embedded_s": round(ingest_embedded, 2),
        "open_and_sync_s": round(open_sync, 2),
        "first_snapshot_s": round(first_snapshot, 2),
        "version_check_ms": round(check, 2),
        "dense_server_ms": round(dense_server, 2),
        "dense_embedded_ms": round(dense_embedded, 2),
        "keyword_server_ms": round(kw_server, 2),
        "keyword_embedded_ms": round(kw_embedded, 2),
        "write_one_server_ms": round(write_server, 1),
        "write_one_embedded_ms": round(write_embedded, 1),
        "pull_one_new_document_ms": round(catch_up_one * 1000, 1),
    }
    writer.delete_kb(kb)  # the next count's fresh library syncs only its own
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", required=True, help="a `chroma run` server, empty")
    parser.add_argument("--docs", type=int, nargs="+", default=[100, 500])
    args = parser.parse_args()
    run(args.url, args.docs)


if __name__ == "__main__":
    main()
