"""Where smart and hybrid retrieval differ, for the Compare page: pure, no Streamlit.

A hit's place is its 1-based position in a mode's hit list (the list each mode returned, not
only the top shown). Among the top hits of either mode a chunk has moved when both modes found
it at different places, and was found by one mode only when the other's list lacks it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from rag_app.models import Hit

Change = Literal["same", "up", "down", "smart_only", "hybrid_only"]


@dataclass(frozen=True)
class Place:
    """One chunk's places in both modes' hit lists (None: that mode did not find it)."""

    chunk_id: str
    type: str
    smart: int | None
    hybrid: int | None

    @property
    def change(self) -> Change:
        """How smart placed the chunk against hybrid: up / down / same, or found by one only."""
        if self.hybrid is None:
            return "smart_only"
        if self.smart is None:
            return "hybrid_only"
        if self.smart == self.hybrid:
            return "same"
        return "up" if self.smart < self.hybrid else "down"


@dataclass(frozen=True)
class HitsDiff:
    """Smart's and hybrid's top hits, each as its places in both lists, in that mode's order."""

    top: int
    smart: tuple[Place, ...]
    hybrid: tuple[Place, ...]

    @property
    def identical(self) -> bool:
        """The same chunks at the same places in both tops."""
        return [p.chunk_id for p in self.smart] == [p.chunk_id for p in self.hybrid]

    def _union(self) -> list[Place]:
        seen: dict[str, Place] = {p.chunk_id: p for p in self.smart}
        for place in self.hybrid:
            seen.setdefault(place.chunk_id, place)
        return list(seen.values())

    @property
    def moved(self) -> tuple[Place, ...]:
        """Chunks of either top that both modes found, at different places."""
        return tuple(p for p in self._union() if p.change in ("up", "down"))

    @property
    def smart_only(self) -> tuple[Place, ...]:
        """Chunks of smart's top that hybrid's list lacks."""
        return tuple(p for p in self.smart if p.change == "smart_only")

    @property
    def hybrid_only(self) -> tuple[Place, ...]:
        """Chunks of hybrid's top that smart's list lacks."""
        return tuple(p for p in self.hybrid if p.change == "hybrid_only")


def diff_hits(smart: Sequence[Hit], hybrid: Sequence[Hit], top: int = 8) -> HitsDiff:
    """Compare smart's and hybrid's hit lists over their first ``top`` hits.

    Takes each mode's hits in rank order; returns a ``HitsDiff`` whose ``smart`` and ``hybrid``
    hold the places of each top's chunks in both whole lists. Raises ValueError for ``top`` < 1.
    """
    if top < 1:
        raise ValueError("top must be at least 1")
    smart_at = _places(smart)
    hybrid_at = _places(hybrid)

    def place(hit: Hit) -> Place:
        cid = hit.chunk.chunk_id
        return Place(cid, hit.chunk.type, smart_at.get(cid), hybrid_at.get(cid))

    return HitsDiff(
        top=top,
        smart=tuple(place(h) for h in smart[:top]),
        hybrid=tuple(place(h) for h in hybrid[:top]),
    )


def _places(hits: Sequence[Hit]) -> dict[str, int]:
    out: dict[str, int] = {}
    for n, hit in enumerate(hits, start=1):
        out.setdefault(hit.chunk.chunk_id, n)  # a chunk listed twice keeps its better place
    return out
