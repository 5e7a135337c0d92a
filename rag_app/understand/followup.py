"""Follow-up questions made standalone from the question before them, without a model.

A follow-up names only what changes ("那2026年呢？", "华虹半导体呢？", "每股收益呢？") or points back
("它的产能呢？", "What is its P/E?"). Both questions are read as spans of a kind: periods (2025年,
2026E, Q2 2024), subjects (the library's report subjects: 中芯国际), metrics (a finance term and
the words bound to it: 当前产能, 预测归母净利润) and, for a question with none of those, its topic
(the name before its first 的: 中芯天津（T1）). Then:
- a follow-up that holds nothing but spans (and cue words, pronouns, particles) is the question
  before with each of its spans put in place of the span of the same kind ("那2026年呢？" after
  "中芯国际2025年的毛利率是多少？" is "中芯国际2026年的毛利率是多少？");
- a follow-up "X呢？" whose X is of no known kind puts X in place of the subject or topic it most
  resembles ("中芯北京（B1）呢？" after a question on 中芯天津（T1）);
- a follow-up with words of its own that points back (它, 其, its, 同年) gets the earlier subject
  (and period, for 同年) in place of the pointer, or the subject before it when it names none;
- any other question stands alone and is left as it is.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from rag_app.stage_settings import FollowUpSettings
from rag_app.text import lexicon
from rag_app.text.language import CJK_UNIFIED
from rag_app.text.spans import Span, spans

_WORDS = lexicon.keyed_groups("followup_words.txt")
_CUES = sorted((*_WORDS["cue_zh"], *_WORDS["cue_en"]), key=len, reverse=True)
_PRONOUNS = sorted((*_WORDS["pronoun_zh"], *_WORDS["pronoun_en"]), key=len, reverse=True)
_SAME_PERIOD = sorted((*_WORDS["same_period_zh"], *_WORDS["same_period_en"]), key=len, reverse=True)
_PARTICLES = sorted((*_WORDS["particle_zh"], *_WORDS["particle_en"]), key=len, reverse=True)
_INTERROGATIVES = _WORDS["interrogative"]
_CJK = re.compile(f"[{CJK_UNIFIED}]")
# Characters a metric phrase does not reach over: function words, punctuation, digits.
_METRIC_BOUNDARY = set("的年是为在和与及、，,。？?！!（）()：: 呢吗多少了于从到对月季") | set(
    "0123456789"
)
_PUNCT = re.compile(r"[\s,，。.？?！!：:；;、'\"“”‘’]+")
_LATIN_NAME = re.compile(r"(?<=\s)([A-Z][A-Za-z&.\-]*(?:\s+[A-Z][A-Za-z&.\-]*)*)(?:'s|’s)?")


@dataclass(frozen=True)
class Resolution:
    """A question as it stands alone: ``text``; ``carried`` names what came from the earlier
    question ("period 2025年 -> 2026年", "subject 中芯国际"), empty when it stood alone already."""

    text: str
    carried: tuple[str, ...] = ()

    @property
    def changed(self) -> bool:
        return bool(self.carried)


def standalone(
    question: str,
    earlier: Sequence[str],
    subjects: Collection[str] = (),
    max_ellipsis_chars: int = FollowUpSettings.max_ellipsis_chars,
) -> Resolution:
    """``question`` made standalone from the earlier user questions (oldest first), each of which
    is first made standalone from those before it; ``subjects`` are the library's report subjects.
    A question longer than ``max_ellipsis_chars`` naming none of the earlier kinds stands alone."""
    previous = ""
    for turn in earlier:
        previous = resolve(turn, previous, subjects, max_ellipsis_chars).text if previous else turn
    if not previous:
        return Resolution(question)
    return resolve(question, previous, subjects, max_ellipsis_chars)


def resolve(
    question: str,
    previous: str,
    subjects: Collection[str] = (),
    max_ellipsis_chars: int = FollowUpSettings.max_ellipsis_chars,
) -> Resolution:
    """``question`` as it stands alone after ``previous`` (itself standalone)."""
    q_spans, p_spans = spans(question, subjects), spans(previous, subjects)
    p_topic = topic(previous, p_spans)
    cue = _leading(question, _CUES)
    pronoun, same = _find(question, _PRONOUNS), _find(question, _SAME_PERIOD)
    short = len(question.strip()) <= max_ellipsis_chars
    names_subject = any(s.kind == "subject" for s in q_spans)
    q_topic = None if names_subject or pronoun else topic(question, q_spans)
    pieces = q_spans + ([q_topic] if q_topic is not None else [])
    # "它2026年呢？" is the same measure at another time; "它的产能呢？" a new one of the company's
    elliptic_pointer = (
        pronoun
        and not same
        and any(s.kind == "period" for s in pieces)
        and not _residual(question, pieces)
    )
    if (pronoun or same) and not elliptic_pointer:
        return _point_back(question, names_subject, p_spans, p_topic, pronoun, same)
    if (
        pieces
        and short
        and not _residual(question, pieces)
        and (cue or _ends_asking(question))
        and _kinds(p_spans, p_topic) - _kinds(pieces, None)
    ):
        return _replace_spans(previous, p_spans, p_topic, pieces)
    if cue and short and not names_subject:
        return _point_back(question, names_subject, p_spans, p_topic, "", "")
    return Resolution(question)


def _kinds(found: list[Span], extra: Span | None) -> set[str]:
    """The kinds a question names, a subject and a topic both counting as "who"."""
    kinds = {"who" if s.kind in ("subject", "topic") else s.kind for s in found}
    return kinds | ({"who"} if extra is not None else set())


def topic(text: str, found: list[Span]) -> Span | None:
    """What a question is about when it is a name the library does not know as a subject, or a
    subject with more words (比亚迪合肥基地): its words before the first 的 (or before its first
    metric or period) in Chinese; its first capitalised name after the first word in English."""
    first = min((s.start for s in found if s.kind != "subject"), default=len(text))
    head = text[:first]
    cut = head.find("的")
    if cut > 0:
        head = head[:cut]
    cleaned = _strip_leading(head.strip(), _CUES)
    cleaned = _strip_trailing(cleaned.strip(" ，,？?"), _PARTICLES).strip(" ，,？?")
    if (
        2 <= len(cleaned) <= 16
        and _CJK.search(cleaned)
        and not _find(cleaned, _PRONOUNS)
        and not _find(cleaned, _SAME_PERIOD)
        and not _find(cleaned, _INTERROGATIVES)
    ):
        start = text.index(cleaned)
        return Span("topic", start, start + len(cleaned), cleaned)
    name = _LATIN_NAME.search(text)
    if name is not None and not _find(name.group(1), _INTERROGATIVES):
        return Span("topic", name.start(1), name.start(1) + len(name.group(1)), name.group(1))
    return None


def _strip_trailing(text: str, words: Sequence[str]) -> str:
    changed = True
    while changed:
        changed = False
        for word in words:
            if not word.isascii() and text.endswith(word) and len(text) > len(word):
                text, changed = text[: -len(word)], True
    return text


def _residual(question: str, found: list[Span]) -> str:
    """What a question holds besides its spans, cue, pronouns and particles."""
    text = question
    for span in sorted(found, key=lambda s: s.start, reverse=True):
        text = text[: span.start] + " " + text[span.end :]
    text = _strip_leading(text.strip(), _CUES)
    for words in (_PRONOUNS, _SAME_PERIOD, _PARTICLES):
        for word in words:
            text = _remove_word(text, word)
    return _PUNCT.sub("", text)


def _remove_word(text: str, word: str) -> str:
    if word.isascii():
        return re.sub(rf"(?i)(?<![a-z0-9]){re.escape(word)}(?![a-z0-9])", " ", text)
    return text.replace(word, " ")


def _replace_spans(
    previous: str, p_spans: list[Span], p_topic: Span | None, pieces: list[Span]
) -> Resolution:
    """The question before with each span of the follow-up in place of its own of that kind."""
    subject = next((s for s in p_spans if s.kind == "subject"), None)
    edits: list[tuple[int, int, str]] = []
    carried: list[str] = []
    for new in pieces:
        olds = [s for s in p_spans if s.kind == new.kind]
        if new.kind in ("period", "metric") and olds:
            # a metric named bare keeps the earlier one's modifiers: 预测归母净利润 -> 预测毛利率
            text = new.text if new.lead or new.kind == "period" else olds[0].lead + new.text
            edits.append((olds[0].start, olds[0].end, text))
            carried.append(f"{new.kind} {olds[0].text} -> {text}")
        elif new.kind == "period":
            where = subject.end if subject else p_topic.end if p_topic else 0
            edits.append((where, where, new.text))
            carried.append(f"period {new.text}")
        elif new.kind == "metric":
            edits.append((len(previous.rstrip("？?")), len(previous.rstrip("？?")), new.text))
            carried.append(f"metric {new.text}")
        else:
            target, text = _name_target(subject, p_topic, new)
            if target is None:
                edits.append((0, 0, text))
                carried.append(f"subject {text}")
            else:
                edits.append((target.start, target.end, text))
                carried.append(f"{target.kind} {target.text} -> {text}")
    text = previous
    for start, end, new_text in sorted(edits, reverse=True):
        text = text[:start] + new_text + text[end:]
    replaced = {new.kind for new in pieces}
    kept = [
        f"kept {s.text}"
        for s in p_spans
        if s.kind not in replaced and not (s.kind == "subject" and replaced & {"subject", "topic"})
    ]
    return Resolution(text, (*carried, *kept))


def _name_target(subject: Span | None, p_topic: Span | None, new: Span) -> tuple[Span | None, str]:
    """Where a follow-up's name goes in the question before, and as what text: a known subject
    replaces the subject; another name replaces the topic when the topic is more than the
    subject (比亚迪合肥基地 -> 比亚迪乌兹别克斯坦工厂, the subject kept), else the subject."""
    if new.kind == "subject" or p_topic is None:
        return subject or p_topic, new.text
    if subject is not None and subject.start >= p_topic.start and subject.end <= p_topic.end:
        if p_topic.end - p_topic.start > subject.end - subject.start:
            owner = p_topic.text[: subject.end - p_topic.start]
            return p_topic, new.text if new.text.startswith(owner) else owner + new.text
        return subject, new.text
    return p_topic, new.text


def _point_back(
    question: str,
    names_subject: bool,
    p_spans: list[Span],
    p_topic: Span | None,
    pronoun: str,
    same: str,
) -> Resolution:
    """A follow-up with words of its own: the earlier subject in place of its pointer (or before
    it), the earlier period in place of 同年."""
    subject = next((s for s in p_spans if s.kind == "subject"), None) or p_topic
    period = next((s for s in p_spans if s.kind == "period"), None)
    text, carried = question, []
    if same and period is not None:
        text = _replace_word(text, same, period.text)
        carried.append(f"period {period.text}")
    if subject is not None and not names_subject:
        if pronoun:
            owner = subject.text
            if pronoun.endswith("的"):
                owner += "的"
            elif pronoun.isascii() and pronoun in (
                "its",
                "their",
                "the company's",
                "this company's",
            ):
                owner += "'s"
            text = _replace_word(text, pronoun, owner)
        else:
            body = _strip_leading(text.strip(), _CUES).lstrip(" ，,")
            text = f"{subject.text}{' ' if subject.text.isascii() else ''}{body}"
        carried.append(f"subject {subject.text}")
    return Resolution(text, tuple(carried)) if carried else Resolution(question)


def _replace_word(text: str, word: str, new: str) -> str:
    if word.isascii():
        return re.sub(rf"(?i)(?<![a-z0-9]){re.escape(word)}(?![a-z0-9])", new, text, count=1)
    return text.replace(word, new, 1)


def _leading(text: str, words: Sequence[str]) -> str:
    stripped = text.strip().lower()
    for word in words:
        if stripped.startswith(word.lower()) and (
            not word.isascii() or len(stripped) == len(word) or not stripped[len(word)].isalnum()
        ):
            return word
    return ""


def _strip_leading(text: str, words: Sequence[str]) -> str:
    word = _leading(text, words)
    return text.strip()[len(word) :] if word else text


def _find(text: str, words: Sequence[str]) -> str:
    lowered = text.lower()
    for word in words:
        if word.isascii():
            if re.search(rf"(?<![a-z0-9]){re.escape(word)}(?![a-z0-9])", lowered):
                return word
        elif word in text:
            return word
    return ""


def _ends_asking(question: str) -> bool:
    return question.strip().rstrip("？?").endswith("呢") or question.strip().endswith(("?", "？"))


def _overlap(a: str, b: str) -> float:
    shared = set(a.lower()) & set(b.lower())
    return len(shared) / max(1, len(set(a.lower()) | set(b.lower())))
