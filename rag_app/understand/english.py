"""An English follow-up written as a question: the earlier question in its own words, its
subject, period and metric replaced (English is not rewritten from slots as Chinese is: its
word order depends on the verb the earlier question chose)."""

from __future__ import annotations

from rag_app.text.language import possessive
from rag_app.understand.pieces import Piece
from rag_app.understand.referents import CLOSING, edited
from rag_app.understand.slots import Reading


def english_metric(now: Reading, before: Reading, carried: list[str]) -> str:
    """The follow-up's metric (with the earlier one's modifiers when it names it bare:
    预测归母净利润 -> 预测每股收益), else the earlier question's metric words."""
    olds = metric_run(before)
    old = before.text[olds[0].start : olds[-1].end] if olds else ""
    new = now.first("metric")
    if new is None:
        if old:
            carried.append(f"kept {old}")
        return old
    text = new.text if new.lead or not olds else olds[0].lead + new.text
    words = new.text.split()
    if old and len(words) > 1 and words[-1].lower() in ("one", "ones"):
        # "the comprehensive one" after "core solvency ratio": its own modifier, the head noun
        # the earlier metric names ("comprehensive solvency ratio")
        text = " ".join([*words[:-1], old])
    carried.append(f"metric {old} -> {text}" if old else f"metric {text}")
    return text


def filled(before: Reading, subjects: list[str], period: str, metric: str) -> str:
    """An English question: the earlier one with its subject, period and metric replaced."""
    edits: list[tuple[int, int, str]] = []
    subject = before.subject
    if subject is not None and subjects:
        named, end = " and ".join(subjects), subject.end
        if before.text[end : end + 2] in ("' ", "’ "):  # Muxi Foods' -> Chuanhe's
            named, end = possessive(named), end + 1
        edits.append((subject.start, end, named))
    old_period = before.first("period")
    if old_period is not None:
        edits.append((old_period.start, old_period.end, period))
    elif period:
        end = len(before.text.rstrip(CLOSING))
        edits.append((end, end, f" in {period}"))
    olds = metric_run(before) or asked_words(before)
    if olds and metric:
        start = olds[0].start
        if before.text[start - 1 : start + 2] in ("'s ", "’s "):  # the words after a possessive
            start += 2
        head = before.text[olds[0].start : olds[-1].end]
        modifier = next((p for p in before.of("words") if p.end == start - 1), None)
        possessed = modifier is not None and before.text[: modifier.start].endswith(("'s ", "’s "))
        if modifier is not None and (
            metric.endswith(f" {head}") or (possessed and metric.lower() != head.lower())
        ):
            # its own modifier for the same head ("the comprehensive one" after "core solvency
            # ratio"), or another metric after the possessive ("the actual capital" after
            # "Pengyu's core solvency ratio"): the earlier modifier right before the head goes
            start = modifier.start
        edits.append((start, olds[-1].end, metric))
    return edited(before.text, edits)


def metric_run(before: Reading) -> list[Piece]:
    """The earlier question's first metric and those right after it, up to a name or period
    between them ("revenue" of "How much revenue did 垣工重机 make from cranes (起重机械)": not
    through the company's name to the segment's)."""
    run: list[Piece] = []
    for piece in before.pieces:
        if piece.kind == "metric":
            run.append(piece)
        elif run and piece.kind in ("name", "period", "pointer"):
            break
    return run


def asked_words(before: Reading) -> list[Piece]:
    """An English question's own words that say what it asks when it names no metric the
    library knows ("cost-to-income ratio" of "What was X's cost-to-income ratio in 2024?"): its
    last run of words after its subject."""
    start = before.subject.end if before.subject is not None else 0
    words = [p for p in before.of("words") if p.start >= start]
    return words[-1:]


def it_is_the_fact(now: Reading, before: Reading, pointer: Piece | None) -> bool:
    """An English "it" (not "its") after a question for a metric, asking none of its own: the
    earlier fact ("How did it change from the previous year?")."""
    if not now.english or pointer is None or pointer.text.lower() not in ("it", "this", "that"):
        return False
    asked = before.of("metric") or before.of("words")
    return bool(asked) and now.first("metric") is None


def fact_period(now: Reading, before: Reading) -> list[str]:
    """The earlier question's period, carried to an English follow-up about its fact that
    names none of its own ("What growth does that imply?" after "…guidance for Q3 2025?")."""
    old = before.first("period")
    if not now.english or old is None or now.first("period") or now.of("same_period"):
        return []
    return [f"period {old.text}"]


def of_subject(now: Reading, before: Reading, subject: Piece) -> tuple[str, tuple[str, ...]]:
    """An English follow-up naming no one, its subject (and period) said after it: "Who is the
    analyst? (Muxi Foods)"; English word order is the question's own."""
    period = before.first("period")
    said = subject.text + (f", {period.text}" if period and not now.of("period") else "")
    close = len(now.text.rstrip(CLOSING))
    ending = now.text[close:].strip() or "?"
    carried = (f"subject {subject.value}",) + ((f"period {period.text}",) if period else ())
    return f"{now.text[:close]} ({said}){ending}", carried
