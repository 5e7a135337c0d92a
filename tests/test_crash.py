"""kill -9 an ingestion at random moments, then check the library from a fresh process.

Each round a child process ingests a batch of new documents (copies of the sample report, with
its images, and of the TAT-QA-like list, each made distinct by one paragraph) and is killed with
SIGKILL after a random delay. A fresh process then opens the library (which settles what the
kill interrupted) and checks that every listed document has exactly its chunks' vectors, that no
vector is left that no document owns, that the keyword index holds the listed chunks and the
journal is empty; runs ``rag-app check`` (exit 0: consistent, or repaired by ``--repair``);
ingests the same batch again and checks once more. The quick variant runs in the normal suite;
``make crash`` (``-m long``) runs 20 rounds (``CRASH_ROUNDS`` to change it). ../shared/checks/crash is the
shared version of this probe.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT, SAMPLE_CONTENT_LIST, SAMPLE_DIR, TEST_DATA

_PRELUDE = """
import json, sys
from pathlib import Path
from rag_app.config import Settings
from rag_app.index.embedder import HashEmbedder
from rag_app.index.library import Library
data, batch = Path(sys.argv[1]), json.loads(sys.argv[2])
def open_library():
    return Library(Settings(data_dir=data), embedder=HashEmbedder())
"""

_INGEST = (
    _PRELUDE
    + """
lib = open_library()
print("start", flush=True)
for path in batch:
    lib.ingest_paths([Path(path)], kb="crash")
print("done", flush=True)
"""
)

_CHECK = (
    _PRELUDE
    + """
from rag_app.cli.main import main
from rag_app.index.consistency import check_library

def inspect(lib):
    out = {"docs": [], "bad_docs": [], "orphans": 0, "keyword_ok": None, "pending": 0}
    out["pending"] = len(lib.catalogue.pending_writes())
    if "crash" not in lib.knowledge_bases():
        return out
    docs = lib.documents("crash")
    out["docs"] = sorted(d.doc_id for d in docs)
    col = lib.store._collection("crash")
    owned = 0
    for d in docs:
        got = set(col.get(where={"doc_id": d.doc_id}, include=[])["ids"])
        owned += len(got)
        if got != {c.chunk_id for c in lib.chunks("crash", d.doc_id)} or len(got) != d.n_chunks:
            out["bad_docs"].append(d.doc_id)
    out["orphans"] = col.count() - owned
    if docs:
        snap = lib.snapshot("crash")
        out["keyword_ok"] = set(snap.keywords.ids) == set(snap.chunks)
    return out

lib = open_library()
result = {"after_kill": inspect(lib), "settled": len(lib.recovered_at_open)}
code = main(["check", "--data-dir", str(data)])
if code != 0:
    code = main(["check", "--repair", "--data-dir", str(data)])
result["check_exit"] = code
reports = [r for path in batch for r in lib.ingest_paths([Path(path)], kb="crash")]
result["statuses"] = sorted({r.status for r in reports})
result["after_ingest"] = inspect(lib)
result["consistent"] = check_library(lib).consistent
print("RESULT " + json.dumps(result), flush=True)
"""
)


def _batch(folder: Path, round_no: int, size: int) -> list[str]:
    """``size`` distinct documents in ``folder`` (the sample's images beside them)."""
    folder.mkdir(parents=True)
    shutil.copytree(SAMPLE_DIR / "images", folder / "images")
    sources = [SAMPLE_CONTENT_LIST, TEST_DATA / "tatqa_like_content_list.json"]
    paths = []
    for n in range(size):
        items = json.loads(sources[n % 2].read_text())
        items.append({"type": "text", "text": f"Round {round_no} ledger r{round_no}x{n}."})
        path = folder / f"crash_r{round_no}_{n}_content_list.json"
        path.write_text(json.dumps(items, ensure_ascii=False))
        paths.append(str(path))
    return paths


def _run_rounds(tmp_path: Path, rounds: int, seed: int, size: int = 8) -> list[str]:
    rnd = random.Random(seed)
    data = tmp_path / "data"
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "ANONYMIZED_TELEMETRY": "False"}
    # Kill within the time a whole batch takes on this machine now (it varies several-fold with
    # the load): measured once on a library of its own.
    span = _batch_seconds(tmp_path / "calibrate", size, env)
    killed = 0
    lines = []
    for r in range(rounds):
        batch = json.dumps(_batch(tmp_path / f"batch{r}", r, size))
        child = subprocess.Popen(
            [sys.executable, "-c", _INGEST, str(data), batch],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            cwd=REPO_ROOT,
            env=env,
        )
        assert child.stdout is not None and child.stdout.readline().strip() == "start"
        delay = rnd.uniform(0.05, 0.95) * span
        time.sleep(delay)
        if child.poll() is None:
            child.send_signal(signal.SIGKILL)
            killed += 1
        child.wait(timeout=60)
        check = subprocess.run(
            [sys.executable, "-c", _CHECK, str(data), batch],
            capture_output=True,
            text=True,
            cwd=REPO_ROOT,
            env=env,
            timeout=300,
        )
        found = [line for line in check.stdout.splitlines() if line.startswith("RESULT ")]
        assert check.returncode == 0 and found, check.stderr[-2000:]
        result = json.loads(found[-1].removeprefix("RESULT "))
        lines.append(f"round {r}: killed after {delay:.2f}s: {json.dumps(result)}")
        after_kill, after_ingest = result["after_kill"], result["after_ingest"]
        assert after_kill["bad_docs"] == [] and after_kill["orphans"] == 0, lines[-1]
        assert after_kill["keyword_ok"] in (None, True) and after_kill["pending"] == 0, lines[-1]
        assert result["check_exit"] == 0, lines[-1]
        assert set(result["statuses"]) <= {"ingested", "duplicate"}, lines[-1]
        names = {Path(p).name.removesuffix("_content_list.json") for p in json.loads(batch)}
        assert names <= set(after_ingest["docs"]), lines[-1]
        assert after_ingest["bad_docs"] == [] and after_ingest["orphans"] == 0, lines[-1]
        assert result["consistent"], lines[-1]
    assert killed, "no round was killed before it finished: the delays are too long"
    return lines


def _batch_seconds(folder: Path, size: int, env: dict[str, str]) -> float:
    """Seconds from "start" to the end of one uninterrupted batch."""
    batch = json.dumps(_batch(folder / "batch", -1, size))
    child = subprocess.Popen(
        [sys.executable, "-c", _INGEST, str(folder / "data"), batch],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        cwd=REPO_ROOT,
        env=env,
    )
    assert child.stdout is not None and child.stdout.readline().strip() == "start"
    started = time.perf_counter()
    assert child.wait(timeout=120) == 0
    return time.perf_counter() - started


def test_kill_9_during_ingestion_leaves_the_library_whole(tmp_path: Path) -> None:
    _run_rounds(tmp_path, rounds=5, seed=11)


@pytest.mark.long
def test_kill_9_during_ingestion_twenty_rounds(tmp_path: Path) -> None:
    lines = _run_rounds(tmp_path, rounds=int(os.environ.get("CRASH_ROUNDS", "20")), seed=7)
    print("\n".join(lines))
