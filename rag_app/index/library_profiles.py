"""The library's profiles: each document's (``rag_app.index.profile``) and the knowledge base's.

A mixin of ``Library`` (its catalogue and replica). A profile is written with its document
(``Library._write``, in the catalogue's one transaction for the document). A document written
before profiles were gets one on first read, computed from its stored chunks and kept: lazily,
not when the library opens, so opening a large old library stays one query and the cost falls
on whoever first shows its profiles, a document at a time.
"""

from __future__ import annotations

import logging

from rag_app.index.catalogue import Catalogue
from rag_app.index.profile import (
    DocumentProfile,
    merge_profiles,
    profile_from_json,
    profile_of,
    profile_to_json,
)
from rag_app.index.replica import LocalOnly

_log = logging.getLogger(__name__)


class LibraryProfiles:
    catalogue: Catalogue
    replica: LocalOnly

    def profiles(self, kb: str, doc_id: str | None = None) -> dict[str, DocumentProfile]:
        """Every listed document's profile (only ``doc_id``'s when given), in listing order;
        computed and kept for those written without one."""
        self.replica.sync(kb)  # shared server: pull what changed (rate-limited)
        stored = self.catalogue.profiles(kb)
        versions = self.catalogue.doc_versions(kb)
        out: dict[str, DocumentProfile] = {}
        for info in self.catalogue.documents(kb):
            if doc_id is not None and info.doc_id != doc_id:
                continue
            profile = _read(stored.get(info.doc_id, ""))
            if profile is None:
                profile = profile_of(self.catalogue.chunks(kb, info.doc_id))
                if info.doc_id in versions:
                    data = profile_to_json(profile)
                    self.catalogue.store_profile(kb, info.doc_id, versions[info.doc_id], data)
            out[info.doc_id] = profile
        return out

    def profile(self, kb: str, doc_id: str) -> DocumentProfile | None:
        """One document's profile; None when the document is not listed."""
        return self.profiles(kb, doc_id).get(doc_id)

    def library_profile(self, kb: str) -> DocumentProfile:
        """The union of the knowledge base's document profiles (``merge_profiles``)."""
        return merge_profiles(self.profiles(kb).values())


def _read(data: str) -> DocumentProfile | None:
    if not data:
        return None
    try:
        return profile_from_json(data)
    except (ValueError, KeyError, TypeError) as exc:
        _log.info("a stored profile is read again from its document (%s)", exc)
        return None
