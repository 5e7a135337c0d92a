"""The write journal: how a change to the library survives a crash at any point.

A change is journalled in the catalogue's ``pending`` table (committed) before it touches Chroma
or the asset folders, and every journalled change ends the same way whether it finished or was
interrupted: ``settle`` deletes the listed vectors that no listed document owns, finishes or
undoes the image folder swap, and drops the row. The catalogue transaction in between decides
which version wins, so a crash at any point leaves at worst unowned vectors and files, which the
next ``settle`` removes; never a listed document missing its vectors. Writers in every process
hold ``WriteLock`` (a ``flock`` on ``<data_dir>/write.lock``, ``rag_app.index.write_lock``) for
the whole change, so a journal row whose lock can be taken belongs to a writer that is gone. It
works on a library's parts (``LibraryParts``), never on ``Library`` itself. See
docs/CONSISTENCY.md; the full comparison of the stores is ``rag_app.index.consistency``.
"""

from __future__ import annotations

import logging
import shutil
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from rag_app.index.assets import safe_dir, write_assets
from rag_app.index.catalogue import PendingWrite
from rag_app.index.parts import LibraryParts

# A document's new images are written here first and moved into place once the catalogue holds
# the new version; safe_dir never makes a name with "~", so no document's folder is called so.
STAGING = "~staging"
_log = logging.getLogger(__name__)


def staged_assets(library: LibraryParts, kb: str, doc_id: str, assets: dict[str, bytes]) -> str:
    """Write a document's images beside (not over) its current ones; returns the folder they
    will have once the change settles ("" when there are none)."""
    if not assets:
        return ""
    write_assets(library.assets_root(kb) / STAGING, doc_id, assets)
    return str(library.assets_root(kb) / safe_dir(doc_id))


@contextmanager
def journalled(
    library: LibraryParts,
    kb: str,
    op: str,
    doc_id: str = "",
    new_ids: Sequence[str] = (),
    old_ids: Sequence[str] = (),
) -> Iterator[None]:
    """Run a change of ``op`` (``write``, ``delete``, ``drop_kb``) as a journalled one, after
    settling any interrupted one; the caller holds the write lock. On success or an
    ``Exception`` the change is settled at once; on anything else (the process going down) its
    row stays for the next recovery."""
    lock, shared = library.write_lock, library.replica
    recover_interrupted(library, kb=kb)
    current = library.catalogue.document(kb, doc_id) if doc_id else None
    folder = Path(current.assets_dir).name if current and current.assets_dir else ""
    row = library.catalogue.begin_write(kb, op, doc_id, new_ids, old_ids, folder)
    lock.active.add(row)
    remote = 0  # with PostgreSQL, the change's row there too (rag_app.index.pg_replica)
    try:
        remote = shared.begin(kb, op, doc_id, new_ids, old_ids)
        yield
    except Exception:
        lock.active.discard(row)
        settle(library, _pending(library, row))
        shared.end(remote)
        raise
    finally:
        lock.active.discard(row)  # the process lives on: its next writer may settle the row
    settle(library, _pending(library, row))
    shared.end(remote)


def _pending(library: LibraryParts, row: int) -> PendingWrite:
    return next(p for p in library.catalogue.pending_writes() if p.id == row)


def settle(library: LibraryParts, row: PendingWrite) -> None:
    """Bring Chroma and the asset folders in line with what the catalogue holds for a journalled
    change, finished or not, then drop its row. Idempotent: a crash here is settled again."""
    with library.replica.settling(row.kb):  # PostgreSQL: its catalogue now, under its lock
        _settle(library, row)


def _settle(library: LibraryParts, row: PendingWrite) -> None:
    catalogue, store, kb = library.catalogue, library.store, row.kb
    root = library.assets_root(kb)
    if row.op == "drop_kb":
        if kb in catalogue.knowledge_bases():  # dropped and made again: keep what it owns
            owned = set(catalogue.chunk_owners(kb))
            store.delete_ids(kb, [i for i in store.all_ids(kb) if i not in owned])
            in_use = catalogue.folders_in_use(kb)
            for folder in subdirs(root):
                if folder.name not in in_use:
                    shutil.rmtree(folder, ignore_errors=True)
        else:
            store.drop(kb)
            shutil.rmtree(root, ignore_errors=True)
        shutil.rmtree(library.keyword_dir(kb), ignore_errors=True)
        library.forget_snapshot(kb)
        catalogue.end_write(row.id)
        return
    listed_ids = list(dict.fromkeys(row.new_ids + row.old_ids))
    owned = catalogue.owned_ids(kb, listed_ids)
    store.delete_ids(kb, [i for i in listed_ids if i not in owned])
    current = catalogue.document(kb, row.doc_id)
    if current is None:  # vectors of the document the journal did not name (older versions)
        store.delete_document(kb, row.doc_id)
    new_folder = safe_dir(row.doc_id)
    staged = root / STAGING / new_folder
    if staged.exists():
        committed = row.op == "write" and current is not None and owned == set(row.new_ids)
        if committed and current is not None and Path(current.assets_dir).name == new_folder:
            shutil.rmtree(root / new_folder, ignore_errors=True)
            staged.rename(root / new_folder)
        else:
            shutil.rmtree(staged, ignore_errors=True)
    # The folders the document had and would have, unless a listed document has them now.
    present = {n for n in {row.folder, new_folder} - {"", STAGING} if (root / n).exists()}
    for name in present - (catalogue.folders_in_use(kb) if present else set()):
        shutil.rmtree(root / name, ignore_errors=True)
    catalogue.end_write(row.id)


def recover_interrupted(
    library: LibraryParts, wait: bool = True, kb: str | None = None
) -> list[PendingWrite]:
    """Settle the journal rows of changes that were interrupted (their writer is gone: the
    write lock could be taken). Without ``wait``, returns at once when another writer holds
    the lock (its rows are then live, and it or the next writer settles them). Cheap: one
    query when the journal is empty. With PostgreSQL, also its journal's rows of writers that
    are gone; a writer of ``kb`` (holding its lock) settles only that knowledge base's rows,
    never waiting for another knowledge base's lock while it holds one."""
    lock, shared = library.write_lock, library.replica
    if not lock.acquire(blocking=wait):
        return []
    try:
        rows = [r for r in library.catalogue.pending_writes() if r.id not in lock.active]
        if kb is not None and shared.locks:
            rows = [r for r in rows if r.kb == kb]
        for row in rows:
            settle(library, row)
        return rows + shared.recover(kb, wait)
    finally:
        lock.release()


def recover_on_open(library: LibraryParts) -> list[PendingWrite]:
    """``recover_interrupted`` without waiting, as a library opens: a failure is logged, not
    raised (the library still opens; the rows stay for the next writer or ``rag-app check``)."""
    try:
        return recover_interrupted(library, wait=False)
    except Exception as exc:  # noqa: BLE001 - opening the library matters more; the row stays
        _log.warning("could not settle interrupted changes in %s: %s", library.data_dir, exc)
        return []


def change_text(row: PendingWrite) -> str:
    return f"{row.op} of {row.kb}/{row.doc_id or '*'} (pid {row.pid}, {row.started_at})"


def subdirs(folder: Path) -> list[Path]:
    try:
        return sorted(p for p in folder.iterdir() if p.is_dir())
    except OSError:
        return []
