"""The library's facts: each document's tables read into facts (``rag_app.facts.stored``),
stored at ingest with its chunks (``Library._write``, in the catalogue's one transaction for
the document; with PostgreSQL in its transaction too) and deleted with them.

A mixin of ``Library`` over its profiles (a fact carries its document's subject). A document
written before facts were stored, or by another version of their reader, gets them on first
read, read from its stored chunks and kept, as profiles are: lazily, so opening an old library
stays one query and the cost falls on whoever first reads its facts, a document at a time.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Sequence

from rag_app.facts.stored import StoredFact, stored_facts
from rag_app.index.library_profiles import LibraryProfiles

_log = logging.getLogger(__name__)


class LibraryFacts(LibraryProfiles):
    def facts(
        self, kb: str, doc_ids: Sequence[str] | None = None, metric: str = ""
    ) -> list[StoredFact]:
        """The stored facts of ``kb``'s listed documents (of ``doc_ids`` when given), by
        document and place in it; only those whose row label holds ``metric`` when given.
        Those of a document stored without them are read from its chunks first and kept."""
        self.replica.sync(kb)  # shared server: pull what changed (rate-limited)
        unkept = self._read_facts(kb, doc_ids)
        found = self.catalogue.facts(kb, doc_ids, metric)
        if unkept:  # read but not kept: given all the same
            found += [f for facts in unkept.values() for f in facts if metric in f.metric]
            found.sort(key=lambda f: f.doc_id)  # stable: each document's facts stay in order
        return found

    def fact_counts(self, kb: str) -> dict[str, int]:
        """How many facts each listed document's tables hold (reading those not yet stored)."""
        self.replica.sync(kb)
        unkept = self._read_facts(kb)
        return {**self.catalogue.fact_counts(kb), **{d: len(f) for d, f in unkept.items()}}

    def _read_facts(
        self, kb: str, doc_ids: Sequence[str] | None = None
    ) -> dict[str, tuple[StoredFact, ...]]:
        """Read and keep the facts of the documents (of ``doc_ids``) stored without them;
        returns those that could not be kept (a read-only or busy catalogue)."""
        unread = self.catalogue.facts_unread(kb)
        wanted = set(doc_ids) if doc_ids is not None else None
        todo = {d: v for d, v in unread.items() if wanted is None or d in wanted}
        unkept: dict[str, tuple[StoredFact, ...]] = {}
        if not todo:
            return unkept
        profiles = self.profiles(kb)
        for doc_id, version in todo.items():
            profile = profiles.get(doc_id)
            chunks = self.catalogue.chunks(kb, doc_id)
            facts = stored_facts(chunks, profile.subject if profile else "")
            try:
                self.catalogue.store_facts(kb, doc_id, version, facts)
            except sqlite3.Error as exc:
                _log.warning("the facts of %s/%s are read, not kept (%s)", kb, doc_id, exc)
                unkept[doc_id] = facts
        return unkept
