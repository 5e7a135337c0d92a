"""Which language a text is in: Chinese or English, by its share of CJK characters among its
words. A question's language picks the prompt's; a document's picks its text chunk size."""

from __future__ import annotations

import re
from typing import Literal

Language = Literal["zh", "en"]

_CJK_CHAR = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3040-\u30ff]")
_LATIN_WORD = re.compile(r"[A-Za-z]+(?:'[A-Za-z]+)?")


def cjk_share(text: str) -> float | None:
    """The share of CJK characters among the text's words (None when it has neither).

    A CJK character and a Latin word each count as one unit, since one Chinese character carries
    about as much as one English word; digits and punctuation are ignored.
    """
    cjk = len(_CJK_CHAR.findall(text))
    latin = len(_LATIN_WORD.findall(text))
    if cjk + latin == 0:
        return None
    return cjk / (cjk + latin)


def detect_language(text: str, min_cjk_share: float = 0.5) -> Language:
    """``zh`` when at least ``min_cjk_share`` of the words are CJK, else ``en``.

    Text with no words at all (digits, punctuation) is taken as Chinese, the reports' language.
    """
    share = cjk_share(text)
    if share is None:
        return "zh"
    return "zh" if share >= min_cjk_share else "en"
