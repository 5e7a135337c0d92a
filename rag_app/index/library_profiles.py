"""The library's profiles: each document's (``rag_app.index.profile``) and the knowledge base's.

A mixin of ``Library`` (its catalogue and replica). A profile is written with its document
(``Library._write``, in the catalogue's one transaction for the document). A document written
before profiles were gets one on first read, computed from its stored chunks and kept: lazily,
not when the library opens, so opening a large old library stays one query and the cost falls
on whoever first shows its profiles, a document at a time.
"""

from __future__ import annotations

import logging
import threading

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
# Guards each library's profiles read so far: (kb, doc id) -> (its version, its profile).
_READ_LOCK = threading.Lock()


class LibraryProfiles:
    catalogue: Catalogue
    replica: LocalOnly

    def profiles(self, kb: str, doc_id: str | None = None) -> dict[str, DocumentProfile]:
        """Every listed document's profile (only ``doc_id``'s when given), in listing order;
        computed and kept for those written without one. Each is read once per version of its
        document: after an upload only the new documents' profiles are read."""
        self.replica.sync(kb)  # shared server: pull what changed (rate-limited)
        versions = self.catalogue.doc_versions(kb)
        wanted = list(versions) if doc_id is None else [doc_id] if doc_id in versions else []
        with _READ_LOCK:
            read = self.__dict__.setdefault("_profiles_read", {})
            missing = [d for d in wanted if read.get((kb, d), ("",))[0] != versions[d]]
        stored = self.catalogue.profiles(kb, missing) if missing else {}
        found: dict[str, DocumentProfile] = {}
        for missed in missing:
            profile = _read(stored.get(missed, ""))
            if profile is None:
                profile = profile_of(self.catalogue.chunks(kb, missed))
                data = profile_to_json(profile)
                self.catalogue.store_profile(kb, missed, versions[missed], data)
            found[missed] = profile
        with _READ_LOCK:
            read.update(((kb, d), (versions[d], p)) for d, p in found.items())
            if doc_id is None:  # documents deleted since
                for key in [key for key in read if key[0] == kb and key[1] not in versions]:
                    del read[key]
            return {d: found[d] if d in found else read[(kb, d)][1] for d in wanted}

    def note_profile(self, kb: str, doc_id: str, version: str, profile: DocumentProfile) -> None:
        """Keep the profile just written with a document's ``version``: not read back later."""
        with _READ_LOCK:
            self.__dict__.setdefault("_profiles_read", {})[(kb, doc_id)] = (version, profile)

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
