"""The full consistency check (``rag-app check [--repair]``): the catalogue, the vectors, the
keyword indexes and the image folders compared, per knowledge base, and repaired on request.

The cheap part, settling the changes a crash interrupted, runs whenever a ``Library`` opens or
writes (``rag_app.index.journal``); this check is the thorough one: it reads every vector id of
a knowledge base, so it is a command, not a start-up step. See docs/CONSISTENCY.md.
"""

from __future__ import annotations

import json
import shutil
import time
from collections import Counter
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rag_app.index.catalogue import PendingWrite
from rag_app.index.journal import STAGING, change_text, settle, subdirs
from rag_app.index.store import collection_name

if TYPE_CHECKING:
    from rag_app.index.library import Library


@dataclass(frozen=True)
class KbFindings:
    """How one knowledge base's catalogue, vectors, keyword index and image folders agree.

    ``keyword_index`` is ``ok``, ``stale`` or ``missing`` (rebuilt on the first search: not a
    problem) or ``wrong`` (of the catalogue's generation but not of its chunks)."""

    kb: str
    documents: int
    chunks: int
    vectors: int
    orphan_vectors: tuple[str, ...]
    missing_vectors: tuple[tuple[str, int], ...]  # (doc_id, how many of its vectors are gone)
    keyword_index: str
    orphan_asset_dirs: tuple[str, ...]
    missing_asset_dirs: tuple[str, ...]  # documents listed with images whose folder is gone

    def problems(self) -> list[str]:
        out = []
        if self.orphan_vectors:
            out.append(f"{len(self.orphan_vectors)} vectors no document owns")
        for doc_id, n in self.missing_vectors:
            out.append(f"{doc_id}: {n} of its vectors are missing")
        if self.keyword_index == "wrong":
            out.append("the keyword index does not hold the catalogue's chunks")
        out += [f"image folder of no document: {d}" for d in self.orphan_asset_dirs]
        out += [f"{d}: its image folder is gone (ingest it again)" for d in self.missing_asset_dirs]
        return out


@dataclass(frozen=True)
class ConsistencyReport:
    """The library as a check found it (after repairs when repairing), and what was repaired."""

    knowledge_bases: tuple[KbFindings, ...]
    interrupted: tuple[PendingWrite, ...]  # journal rows of interrupted changes left unsettled
    catalogue_problems: tuple[str, ...]
    orphan_collections: tuple[str, ...]  # knowledge bases with vectors and no catalogue entry
    orphan_dirs: tuple[str, ...]  # keyword or image folders of no knowledge base
    repairs: tuple[str, ...] = ()
    # interrupted changes the Library settled when it opened (before this check began)
    settled_at_open: tuple[PendingWrite, ...] = ()
    seconds: float = 0.0

    def problems(self) -> list[str]:
        out = [f"interrupted {change_text(r)}" for r in self.interrupted]
        out += list(self.catalogue_problems)
        out += [
            f"vectors of a knowledge base that is not listed: {k}" for k in self.orphan_collections
        ]
        out += [f"folder of no knowledge base: {d}" for d in self.orphan_dirs]
        for kb in self.knowledge_bases:
            out += [f"{kb.kb}: {p}" for p in kb.problems()]
        return out

    @property
    def consistent(self) -> bool:
        return not self.problems()

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["consistent"] = self.consistent
        data["problems"] = self.problems()
        return data

    def lines(self) -> list[str]:
        """The report as text: per knowledge base its figures and problems, then repairs."""
        out = []
        for kb in self.knowledge_bases:
            out.append(
                f"{kb.kb}: {kb.documents} documents, {kb.chunks} chunks, "
                f"{kb.vectors} vectors, keyword index {kb.keyword_index}"
            )
            out[-1] += "" if kb.keyword_index in ("ok", "wrong") else " (built on first search)"
            out += [f"  problem: {p}" for p in kb.problems()]
        general = [
            p
            for p in self.problems()
            if not any(p.startswith(f"{k.kb}: ") for k in self.knowledge_bases)
        ]
        out += [f"problem: {p}" for p in general]
        out += [
            f"settled on opening: the interrupted {change_text(r)}" for r in self.settled_at_open
        ]
        out += [f"repaired: {r}" for r in self.repairs]
        verdict = "consistent" if self.consistent else f"{len(self.problems())} problems remain"
        out.append(f"{verdict} ({len(self.repairs)} repairs, {self.seconds:.2f} s)")
        return out


def check_library(
    library: Library, kb: str | None = None, repair: bool = False
) -> ConsistencyReport:
    """Compare the catalogue, the vectors, the keyword indexes and the image folders of one
    knowledge base (``kb``) or all of them; with ``repair``, settle interrupted changes, delete
    vectors and folders no document owns, re-embed missing vectors from the catalogue's chunk
    texts (with the library's embedder) and rebuild keyword indexes, then check again.

    Holds the write lock throughout, so no change is under way while it compares. Raises
    ValueError for a knowledge base that neither the catalogue nor the vectors know."""
    start = time.perf_counter()
    with library.write_lock:
        known = set(library.catalogue.knowledge_bases()) | set(library.store.knowledge_bases())
        if kb is not None and kb not in known:
            raise ValueError(f"no knowledge base named {kb!r}")
        report = _scan(library, kb)
        repairs: list[str] = []
        # A repair can uncover more (chunk rows of an unlisted document removed, their vectors
        # are then unowned): scan again until nothing is left to do, a few rounds at most.
        for _ in range(library.settings.index.repair_rounds):
            if not repair or not (report.problems() or _rebuildable(report)):
                break
            done = _repair(library, report)
            repairs += done
            report = _scan(library, kb)
            if not done:
                break
    return replace(
        report,
        repairs=tuple(repairs),
        settled_at_open=tuple(library.recovered_at_open),
        seconds=round(time.perf_counter() - start, 3),
    )


def _rebuildable(report: ConsistencyReport) -> bool:
    return any(k.keyword_index != "ok" for k in report.knowledge_bases)


def _scan(library: Library, only: str | None) -> ConsistencyReport:
    catalogue, store = library.catalogue, library.store
    listed = catalogue.knowledge_bases()
    kbs = [k for k in listed if only in (None, k)]
    interrupted = tuple(
        r
        for r in catalogue.pending_writes()
        if r.id not in library.write_lock.active and only in (None, r.kb)
    ) + tuple(library.replica.interrupted(only))  # PostgreSQL's journal (negative ids)
    orphan_collections = tuple(
        k
        for k in store.knowledge_bases()
        if k not in listed and only in (None, k) and store.count(k) > 0 and _unlisted(library, k)
    )
    orphan_dirs: list[str] = []
    if only is None:
        names = {collection_name(k) for k in listed}
        for parent in (library.data_dir / "keywords", library.data_dir / "assets"):
            orphan_dirs += [
                str(d) for d in subdirs(parent) if d.name.removesuffix(".tmp") not in names
            ]
    return ConsistencyReport(
        knowledge_bases=tuple(_scan_kb(library, k) for k in kbs),
        interrupted=interrupted,
        catalogue_problems=tuple(catalogue.integrity_problems()),
        orphan_collections=orphan_collections,
        orphan_dirs=tuple(orphan_dirs),
    )


def _unlisted(library: Library, kb: str) -> bool:
    """Whether the catalogue does not list ``kb`` (PostgreSQL: as it is now, under its lock, so
    a knowledge base another process has just made is not taken for an orphan)."""
    with library.replica.settling(kb):
        return kb not in library.catalogue.knowledge_bases()


def _scan_kb(library: Library, kb: str) -> KbFindings:
    # PostgreSQL: under the knowledge base's lock, its catalogue as it is now (no writer under
    # way anywhere while the vectors are compared with it)
    with library.replica.settling(kb):
        return _scan_settled(library, kb)


def _scan_settled(library: Library, kb: str) -> KbFindings:
    catalogue = library.catalogue
    vectors = set(library.store.all_ids(kb))  # first: a vector seen here is already journalled
    owners = catalogue.chunk_owners(kb)
    docs = catalogue.documents(kb)
    missing = Counter(doc for chunk_id, doc in owners.items() if chunk_id not in vectors)
    root = library.assets_root(kb)
    folders = {Path(d.assets_dir).name for d in docs if d.assets_dir}
    orphan_assets = [str(d) for d in subdirs(root) if d.name not in folders | {STAGING}]
    orphan_assets += [str(d) for d in subdirs(root / STAGING)]
    gone = [
        d.doc_id for d in docs if d.assets_dir and not (root / Path(d.assets_dir).name).is_dir()
    ]
    return KbFindings(
        kb=kb,
        documents=len(docs),
        chunks=len(owners),
        vectors=len(vectors),
        orphan_vectors=tuple(sorted(vectors - set(owners))),
        missing_vectors=tuple(sorted(missing.items())),
        keyword_index=_keyword_state(library, kb, set(owners)),
        orphan_asset_dirs=tuple(sorted(orphan_assets)),
        missing_asset_dirs=tuple(gone),
    )


def _keyword_state(library: Library, kb: str, ids: set[str]) -> str:
    try:
        meta = json.loads((library.keyword_dir(kb) / "ids.json").read_text())
    except (OSError, ValueError):
        return "missing"
    if meta.get("generation") != library.catalogue.generation(kb):
        return "stale"
    return "ok" if set(meta.get("ids") or ()) == ids else "wrong"


def _repair(library: Library, report: ConsistencyReport) -> list[str]:
    catalogue, store = library.catalogue, library.store
    done = [f"settled the interrupted {change_text(r)}" for r in report.interrupted]
    for row in report.interrupted:
        if row.id < 0:  # PostgreSQL's journal
            library.replica.recover(row.kb)
        else:
            settle(library, row)
    if any("not listed" in p for p in report.catalogue_problems):
        done.append(
            f"deleted {catalogue.delete_unlisted_chunks()} chunk rows of unlisted documents"
        )
    for kb in report.orphan_collections:
        if _unlisted(library, kb):
            store.drop(kb)
            done.append(f"dropped the vectors of unlisted knowledge base {kb}")
    for folder in report.orphan_dirs:
        shutil.rmtree(folder, ignore_errors=True)
        done.append(f"removed {folder}")
    for found in report.knowledge_bases:
        # PostgreSQL: under the knowledge base's lock, against its catalogue as it is now
        with library.replica.settling(found.kb):
            done += _repair_kb(library, found)
    return done


def _repair_kb(library: Library, found: KbFindings) -> list[str]:
    catalogue, store, kb = library.catalogue, library.store, found.kb
    done: list[str] = []
    if found.orphan_vectors:
        # Only those still unowned: the journal settled above may have changed ownership.
        owned = catalogue.owned_ids(kb, found.orphan_vectors)
        store.delete_ids(kb, [i for i in found.orphan_vectors if i not in owned])
        done.append(f"{kb}: deleted {len(found.orphan_vectors)} vectors no document owns")
    short = dict(found.missing_vectors)
    missing = [i for i, doc in catalogue.chunk_owners(kb).items() if doc in short]
    have = set(store.all_ids(kb)) if missing else set()
    chunks = catalogue.chunks_by_id(kb, [i for i in missing if i not in have])
    group = library.settings.index.embed_group  # the library's ingestion group
    for start in range(0, len(chunks), group):
        part = chunks[start : start + group]
        store.upsert(kb, part, library.embedder.embed_passages([c.search_text for c in part]))
    if chunks:
        done.append(f"{kb}: re-embedded {len(chunks)} missing vectors")
    for folder in found.orphan_asset_dirs:
        shutil.rmtree(folder, ignore_errors=True)
        done.append(f"{kb}: removed {folder}")
    if found.keyword_index != "ok":
        shutil.rmtree(library.keyword_dir(kb), ignore_errors=True)
        library.forget_snapshot(kb)
        library.snapshot(kb)
        done.append(f"{kb}: rebuilt the keyword index ({found.keyword_index} before)")
    return done
