"""What a follow-up's words refer back to (``understand.followup`` uses them): a pointer's
noun (这个项目, 该公司), a period relative to the earlier one (去年, the year before), the earlier
question's fact a why-question asks of, and a name as the question wrote it."""

from __future__ import annotations

from rag_app.text.analyzer import tagged
from rag_app.text.periods import shift_year
from rag_app.text.subjects import is_listed
from rag_app.understand.slots import NEXT_PERIOD_EN, PREVIOUS_PERIOD_EN, Piece, Reading


def written(piece: Piece) -> str:
    """A name as the library writes it (华虹集团 of 华虹), except a legal name: a company the
    question wrote in Chinese by a shorter name (拓衡传感 of 杭州拓衡传感科技股份有限公司) keeps it,
    as the passages, which seldom repeat a legal name, do."""
    if piece.text and not piece.text.isascii() and is_listed(piece.value):
        return piece.text
    return piece.value


def pointer_noun(pointer: Piece | None) -> str:
    """The noun a pointer heads (项目 of 这个项目, 公司 of 该公司); "" for 它, 其, its."""
    if pointer is None:
        return ""
    words = tagged(pointer.text)
    while words and words[0][1] in ("r", "m", "q", "mq"):
        words = words[1:]
    return "".join(w for w, _ in words)


def pointed(pointer: Piece | None, before: Reading, subject: Piece) -> str:
    """What a pointer stands for: 这个项目 the earlier question's last phrase ending in 项目 (with
    its company: 拓衡传感研发中心建设项目); 该公司 a noun it does not write: the company the
    earlier question asks about (澄远智能 of 澄远智能审计委员会召集人); 它, 其: the whole subject."""
    noun = pointer_noun(pointer)
    if not noun:
        return written(subject)
    name = next((p for p in before.of("name") if p.start == subject.start), subject)
    company = written(name)
    for piece in reversed(before.pieces):
        if piece.kind not in ("name", "words", "metric") or piece.start < subject.start:
            continue
        at = piece.text.rfind(noun)
        if at > 0:  # the phrase up to the noun (研发中心建设项目 of 研发中心建设项目投资)
            phrase = piece.text[: at + len(noun)]
            return phrase if phrase.startswith(company) else company + phrase
    return company


def asks_of_earlier_fact(now: Reading, pointer: Piece | None) -> bool:
    """A Chinese follow-up naming no one, no period and no metric, asking why (原因是什么？) or
    with no noun of its own (为什么提升了？ 增长了多少？): it asks of the earlier question's fact."""
    if now.english or pointer_noun(pointer) or now.asks_which or now.asks_name:
        return False  # 它有哪些产线？ asks for things of its own
    if any(now.first(kind) is not None for kind in ("name", "period", "same_period", "metric")):
        return False
    return now.asks_cause or not any(p.nominal for p in now.of("words"))


def asked_span(before: Reading, subject: Piece) -> str:
    """The earlier question's words from its subject to its last period or metric
    ("的主营业务毛利率", "二季度毛利率", "市场规模2021年")."""
    ends = [p.end for p in before.pieces if p.kind in ("metric", "period", "period_part")]
    ends = [e for e in ends if e > subject.end]
    return before.text[subject.end : max(ends)] if ends else ""


def shifted(period: str, pointer: str) -> str:
    """The period a time pointer means after ``period``: 同年, that year: the same; 去年, 上年,
    前一年, the year before: the year before it; 明年, 下一年, the year after: the year after
    (2024年 -> 2023年; 2024Q2 -> 2023Q2). Chinese pointers by their first character (上 去 前
    point back, 下 明 次 forward), English ones by the followup words' lists."""
    lowered = pointer.lower().strip()
    if lowered in PREVIOUS_PERIOD_EN or pointer[:1] in "上去前":
        step = -1
    elif lowered in NEXT_PERIOD_EN or pointer[:1] in "下明次":
        step = 1
    else:
        return period
    return shift_year(period, step)
