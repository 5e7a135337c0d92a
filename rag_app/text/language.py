"""Which language a text is in: Chinese or English, by its share of CJK characters among its
words. A question's language picks the prompt's; a document's picks its text chunk size.

Also the one definition of a CJK character (``CJK_CLASS`` and its narrower readings, as
character-class bodies to put inside ``[...]``) and of English plurals (``stem``,
``latin_term_pattern``, ``is_plural``), which every module reads from here."""

from __future__ import annotations

import re
from typing import Literal

Language = Literal["zh", "en"]

# The Unicode blocks of Chinese text. CJK_CLASS, the CJK ideographs (the basic block, Extension
# A and the compatibility ideographs), is what "a Chinese character" means unless a reading below
# says otherwise; each narrower or wider one keeps what was stored or measured with it.
CJK_BASIC = r"\u4e00-\u9fff"  # the basic block: the keyword index's bigrams and phrases
# Without the compatibility ideographs: how report names and follow-ups have always been read.
CJK_UNIFIED = r"\u3400-\u4dbf" + CJK_BASIC
CJK_CLASS = CJK_UNIFIED + r"\uf900-\ufaff"
KANA = r"\u3040-\u30ff"  # counted as CJK by the language share
CJK_RADICALS = r"\u2e80-\u2fdf"
CJK_PUNCTUATION = r"\u3000-\u303f"  # 。、「」 and the ideographic space
FULLWIDTH = r"\uff00-\uffef"  # ，：（） and full-width letters and digits
# A character that makes a piece of text a word: a Latin letter, a digit or a CJK character.
WORD_CHAR = re.compile(f"[0-9A-Za-z{CJK_CLASS}]")

_CJK_CHAR = re.compile(f"[{CJK_CLASS}{KANA}]")
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
    return language_of_share(cjk_share(text), min_cjk_share)


def language_of_share(share: float | None, min_cjk_share: float = 0.5) -> Language:
    """The language rule over a share of CJK words already read (``None``: no words, Chinese)."""
    return "zh" if share is None or share >= min_cjk_share else "en"


# English plurals ------------------------------------------------------------------------------
# Both directions of one rule: a Latin term looked for in text meets its plural ("gross margins"
# holds "gross margin"; only "-s"/"-es", since a synonym or metric is matched as it is written),
# and a word is stemmed to its singular where words are compared ("companies" ~ "company").
PLURAL_SUFFIX = "(?:e?s)?"


def latin_term_pattern(term: str) -> str:
    """The pattern of a lower-case Latin ``term`` as whole words in lower-cased text, its plural
    included ("pe" is not in "operating"; "gross margins" holds "gross margin")."""
    return rf"(?<![a-z0-9]){re.escape(term)}{PLURAL_SUFFIX}(?![a-z0-9])"


def stem(word: str) -> str:
    """Just enough English normalisation for "revenues" ~ "revenue", "companies" ~ "company";
    "gross" stays whole. "status" -> "statu" and "RSUs" -> "rsu" alike: a stem is also looked for
    as a prefix in raw text (excerpts), where "rsu" finds both "RSUs" and "RSU's" (keeping
    "-us" words whole lost those on tatqa_dev)."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def is_plural(count: int | str) -> bool:
    """Whether an English noun counted ``count`` takes its plural: any count but one, a count
    not known ("") taken as one."""
    return str(count) not in ("", "1")


def possessive(name: str) -> str:
    """A name's English possessive: "Chuanhe's", "Muxi Foods'" (a name ending in s)."""
    return f"{name}'" if name.endswith("s") else f"{name}'s"
