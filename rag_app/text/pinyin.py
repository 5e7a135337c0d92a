"""A Latin name read as a Chinese name written in pinyin: companies' English names often are
("Hua Hong" of 华虹半导体, "LONGi" of 隆基绿能)."""

from __future__ import annotations

import re

from rag_app.text.language import CJK_UNIFIED

_CJK_RUN = re.compile(f"[{CJK_UNIFIED}]+")


def sounds_like(latin: str, chinese: str) -> bool:
    """Whether a Latin name is a Chinese name written in pinyin, as companies' English names
    often are ("Hua Hong" of 华虹半导体, "LONGi" of 隆基绿能, "Chengyuan Intelligent" of
    澄远智能): its letters, or their start, within one edit of the pinyin of two or more
    characters of the Chinese name (pypinyin's readings), starting at one of its first four."""
    from pypinyin import lazy_pinyin

    letters = re.sub(r"[^a-z]", "", latin.lower())
    if len(letters) < 4:
        return False
    run = _CJK_RUN.match(chinese)
    syllables = lazy_pinyin(run.group()) if run else []
    # a legal name may lead with its place (江苏澄远智能…): the name may start up to 3 in
    for start in range(min(4, max(len(syllables) - 1, 0))):
        for end in range(start + 2, len(syllables) + 1):
            reading = "".join(syllables[start:end])
            if _within_one_edit(letters[: len(reading) + 1], reading) or _within_one_edit(
                letters, reading
            ):
                return True
    return False


def _within_one_edit(a: str, b: str) -> bool:
    if abs(len(a) - len(b)) > 1:
        return False
    if len(a) > len(b):
        a, b = b, a
    i = 0
    while i < len(a) and a[i] == b[i]:
        i += 1
    return a[i:] == b[i + 1 :] or (len(a) == len(b) and a[i + 1 :] == b[i + 1 :])
