"""What a follow-up's words refer back to (``understand.followup`` uses them): a pointer's
noun (这个项目, 该公司), a period relative to the earlier one (去年, the year before), the earlier
question's fact a why-question asks of, what the earlier answer gave (该险种 after 哪个险种), the
earlier name or place a new one takes the place of (酱油 for 复合调味料, 境内 beside 境外), and a
name as the question wrote it."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from rag_app.stage_settings import OfflineSettings
from rag_app.text.analyzer import tagged
from rag_app.text.names import is_place
from rag_app.text.period_pointers import english_step, years_away
from rag_app.text.periods import (
    SO_FAR,
    YEAR_START,
    find_years,
    shift_part,
    shift_year,
    year_so_far,
)
from rag_app.text.spans import METRICS
from rag_app.text.subjects import is_listed
from rag_app.understand.known import Known, Named
from rag_app.understand.operations import term_operation
from rag_app.understand.pieces import Piece
from rag_app.understand.slots import (
    QUANTITY_NOUNS,
    RELATIVE,
    Reading,
    tags,
)

# A question's closing marks and the particle an elliptic one ends with, dropped from its ask.
CLOSING = " ？?。.!！呢"
# An answer's first phrase, up to its first mark: what it names first (责任保险 of "责任保险，…").
_FIRST_PHRASE = re.compile(r"([^\d\s，,。；;：:（(！!？?、]{2,16})[，,。；;：:（(]")


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
    if not noun or before.text[subject.start : subject.end] != subject.text:
        return written(subject)  # 它; or a subject the earlier answer gave, not its question
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


def answered(
    question: str, pointer: Piece | None, before: Reading, company: bool, answer: str
) -> str:
    """``question`` with its pointer replaced by what the earlier answer named first, when the
    pointer's noun is what the earlier question asked which of (该险种 after 哪个险种…最高？
    answered "责任保险，…"; 这个产品 after 收入最高的产品是什么？): the answer's first phrase, not
    a ``company`` (a company is the subject: ``followup.resolve``) and no number; "" otherwise."""
    noun = pointer_noun(pointer)
    at = before.text.find(noun) if noun and not before.english else -1
    after = before.text[at + len(noun) : at + len(noun) + 3] if at >= 0 else ""
    # which of the noun it asked: 哪个险种, or 最高的产品是什么 / 是哪个
    which = "哪" in before.text[max(0, at - 3) : at] or after.startswith(("是什么", "是哪"))
    if pointer is None or at < 1 or not which:
        return ""
    lead = _FIRST_PHRASE.match(answer.strip())
    if lead is None or company or noun in lead.group(1):
        return ""
    return question.replace(pointer.text, lead.group(1), 1)


def points_at_fact(
    pointer: Piece | None, now: Reading, before: Reading, names: Iterable[str]
) -> bool:
    """Whether a pointer's noun is what the earlier question asked, not who (这个指标的监管标准
    after a ratio): a noun of quantities (指标, 数据, 比例), no name the library holds written
    with it, the follow-up asking no metric of its own and the earlier question one."""
    noun = pointer_noun(pointer)
    if not noun or before.english or before.first("metric") is None or now.first("metric"):
        return False
    if noun not in QUANTITY_NOUNS or any(noun in name for name in names):
        return False  # 这份报告, 该公司: a thing, not a quantity
    return not any(noun in p.text for p in before.pieces if p.kind in ("name", "words"))


def compared_period(now: Reading) -> bool:
    """Whether the follow-up sets the earlier fact beside another period (比上年末下降了多少？,
    较去年同期, 和去年同期比): a preposition right before its relative period, or a conjunction
    with 比 after it."""
    relative = now.of("same_period")
    return bool(relative) and not now.english and _set_beside(now, relative[0])


def _set_beside(now: Reading, piece: Piece) -> bool:
    """Whether ``piece`` is set beside the earlier question's: a preposition right before it
    (比上年末, 较去年同期), or a conjunction with 比 after it (和一季度比, 与上年同期相比)."""
    offset, before_tag = 0, ""
    after = now.text[piece.end :].lstrip()
    for word, tag in tags(now.text):  # the reading's, read once per question
        if offset == piece.start:
            return before_tag == "p" or (before_tag == "c" and after.startswith(("比", "相比")))
        offset += len(word)
        before_tag = tag
    return False


def period_beside(now: Reading, before: Reading) -> str:
    """The earlier question with the follow-up's own period set beside its period ("和一季度比
    呢？" after "Orvella二季度营收同比增长多少？": "Orvella二季度营收比一季度增长多少？"; after a value,
    "…2024年营业收入比2023年增长多少？"); "" when the follow-up sets no period beside it, or names
    a name or a metric of its own."""
    if now.english or now.first("name") is not None or now.first("metric") is not None:
        return ""
    piece = now.first("period") or now.first("period_part")
    old = before.first("period") or before.first("period_part")
    if piece is None or old is None or not _set_beside(now, piece):
        return ""
    other = piece.text
    if piece.kind == "period_part" and "年" in old.text and not other[:1].isdigit():
        other = old.text[: old.text.find("年") + 1] + other  # 一季度 of 2025年二季度: 2025年一季度
    rate = _RATE.search(before.text, old.end)
    if rate is not None:  # a change of the earlier period against this one
        return before.text[: rate.start()] + "比" + other + before.text[rate.end() :]
    asks = before.text.rfind("是多少")
    if asks > old.end:  # a value: how it changed against this period's
        return before.text[:asks] + "比" + other + "增长多少" + before.text[asks + 3 :]
    return before.text[: old.end] + "和" + other + before.text[old.end :]


# A change the earlier question asks against a period of its own choosing (同比, 环比).
_RATE = re.compile(r"同比|环比")


def asks_of_earlier_fact(now: Reading, pointer: Piece | None) -> bool:
    """A follow-up naming no one, no period and no metric, asking why (原因是什么？ Why did it
    narrow?) or, in Chinese, with no noun of its own (为什么提升了？ 增长了多少？ 主要来自哪里？):
    it asks of the earlier question's fact."""
    nouns = any(p.nominal for p in now.of("words"))
    which = now.asks_which or now.asks_name
    if (not now.english and pointer_noun(pointer)) or (which and (nouns or pointer is not None)):
        return False  # 它有哪些产线？ asks for things of its own; 主要来自哪里？ does not
    compared = compared_period(now)
    if compared and now.first("name") is None and now.first("period") is None:
        # 比上年同期变化多少, 和去年同期比增长了多少: the earlier fact against another period,
        # unless it names a quantity of its own (a metric that is no verb: 增长 is one)
        return all(_verbal(m.text) for m in now.of("metric"))
    asked = [p for p in now.pieces if p.kind == "metric" or (p.kind == "words" and p.nominal)]
    rates = [p for p in asked if p.text.lower().startswith(tuple(RELATIVE))]
    if not now.english and rates and rates == asked:
        # 同比增长多少？ 占比多少？: a rate of what the earlier question asked, naming no one
        return now.first("name") is None and now.first("period") is None
    kinds = ("name", "period", "metric") + (() if compared else ("same_period",))
    if any(now.first(kind) is not None for kind in kinds):
        return False
    if now.english:  # English words carry no part of speech here: only a why-question
        return now.asks_cause
    return now.asks_cause or not nouns


def _verbal(word: str) -> bool:
    """Whether jieba reads ``word`` as a verb (增长, 下降, 变化): a change, not a quantity."""
    found = tags(word)
    return len(found) == 1 and found[0][1] in ("v", "vn")


def asked_span(before: Reading, subject: Piece) -> str:
    """The earlier question's words from its subject to its last period, metric or noun
    ("的主营业务毛利率", "二季度毛利率", "市场规模2021年", "的风险提示"); in English to its metric ("'s net
    interest margin": its period is said after the follow-up's own words)."""
    kinds = ("metric",) if before.english else ("metric", "period", "period_part")
    ends = [
        p.end
        for p in before.pieces
        if p.end > subject.end and (p.kind in kinds or (p.kind == "words" and p.nominal))
    ]  # its nouns too: 的风险提示, 普惠型小微企业贷款余额
    if not ends and before.english:
        ends = [p.end for p in before.pieces if p.kind == "words" and p.end > subject.end][:1]
    if ends and before.english:  # the words right after its metric: "revenue guidance"
        ends += [p.end for p in _run_after(before, max(ends))]
    return before.text[subject.end : max(ends)] if ends else ""


def _run_after(reading: Reading, end: int) -> list[Piece]:
    """The words pieces running on from ``end`` with nothing but spaces between them."""
    run = []
    for piece in reading.pieces:
        if (
            piece.start >= end
            and piece.kind == "words"
            and not reading.text[end : piece.start].strip()
        ):
            run.append(piece)
            end = piece.end
    return run


def first_slot(now: Reading) -> Piece:
    """Where a follow-up's own words begin (its subject goes before them)."""
    return next((p for p in now.pieces if p.kind != "same_period"), Piece("words", 0, 0, ""))


def shifted(period: str, pointer: str) -> str:
    """The period a time pointer means after ``period``: 同年, that year: the same; 去年, 上年,
    前一年, the year before: the year before it; 明年, 下一年, the year after: the year after
    (2024年 -> 2023年; 2024Q2 -> 2023Q2). Chinese pointers by their first character (上 去 前
    point back, 下 明 次 forward), English ones by their direction and unit (``english_step``)."""
    lowered = pointer.lower().strip()
    if not find_years(period) and not lowered.isascii():
        return pointer  # 上年同期 after 本报告期: a report's own column, named as it names it
    if SO_FAR.fullmatch(pointer.strip()):  # 本年累计, 上年累计: the year's months so far
        return year_so_far(period, pointer.strip())
    bare = period.strip().rstrip("年").isdigit()  # 2024年 (its 末 written after it)
    if YEAR_START.fullmatch(pointer.strip()) and "末" not in period and not bare:
        # 年初, 上年末 after 2025年9月30日 or 2025年上半年: the year before's end
        return f"{int(find_years(period)[0]) - 1}年末"
    away = years_away(pointer)  # 两年前, 前年, two years earlier
    if away is not None:
        return shift_year(period, away)
    english = english_step(pointer) if lowered.isascii() else None
    if english is not None:  # the prior year, a year ago, the quarter before, that year
        unit, step = english
        return shift_year(period, step) if unit == "year" else shift_part(period, pointer, step)
    if pointer[:1] in "上去前":
        step = -1
    elif pointer[:1] in "下明次":
        step = 1
    else:
        return period
    return shift_part(period, pointer, step)  # 上个月, 上一季度: a month's or a quarter's step


def dated_part(before: Reading, year: str) -> str:
    """The earlier question with ``year`` (the last its subject's report covers: "2025年") before
    the month or quarter it names without one ("泊潮港口10月…" -> "泊潮港口2025年10月…", "in October"
    -> "in October 2025"), so that 上个月, 去年同期 or 年初至今 after it has a period to move from;
    "" when it names a year or a pointer, or no such part."""
    part = before.first("period_part")
    if not year or part is None or before.first("period") or before.first("same_period"):
        return ""
    if before.english:
        return edited(before.text, [(part.end, part.end, " " + year.removesuffix("年"))])
    return edited(before.text, [(part.start, part.start, year)])


def edited(text: str, edits: list[tuple[int, int, str]]) -> str:
    for start, end, new in sorted(edits, reverse=True):
        text = text[:start] + new + text[end:]
    return text


def name_like(
    named: list[Piece], before: Reading, subject: Piece | None, known: Known
) -> Piece | None:
    """The earlier question's other name a follow-up's one new name takes the place of: a name
    after the subject of the same form (a company in legal form for another, "Norden Automation
    GmbH" for "Kestrel Robotics Inc."; a row of the same report's for another: 酱油 for 复合调味料),
    when the new name is no report's subject."""
    if len(named) != 1 or subject is None:
        return None
    entry = known.names.get(named[0].text.lower())
    if entry is not None and entry.subject:
        return None
    if not is_listed(named[0].value):  # a row's name: the earlier row of the same report's
        return _last_after(before, subject.end, lambda p: _sibling(p, entry, known))
    return _last_after(
        before,
        subject.end,
        lambda p: (p.kind == "name" or (p.kind == "words" and p.proper)) and is_listed(p.value),
    )


def _sibling(piece: Piece, entry: Named | None, known: Known) -> bool:
    """Whether ``piece`` names another row of the report ``entry`` (a name no report is about)
    is a row of."""
    other = known.names.get(piece.text.lower()) if piece.kind == "name" else None
    if entry is None or other is None or other is entry or other.subject:
        return False
    return bool(entry.owner) and other.owner == entry.owner


def place_beside(named: list[Piece], before: Reading, subject: Piece | None) -> Piece | None:
    """The earlier question's place (a region of the subject's: 境外, 欧洲) that a place set
    beside it ("和境内比呢？") is compared with, by jieba's place tags; None when either is not
    a place or the earlier question names none after its subject's first name."""
    if len(named) != 1 or not is_place(named[0].text):
        return None
    start = subject.start if subject is not None else 0
    return _last_after(before, start, lambda p: p.kind in ("name", "words") and is_place(p.text))


def _last_after(before: Reading, start: int, accept: Callable[[Piece], bool]) -> Piece | None:
    """The earlier question's last piece from ``start`` on that ``accept`` takes, or None."""
    return next((p for p in reversed(before.pieces) if p.start >= start and accept(p)), None)


# Words an English period follows as it is (for 2023, than in 2023), no "in" put before it; of
# them, those that set it beside another (from, than, with: a change or a comparison).
_BESIDE = ("than", "with", "to", "from", "over", "against", "versus", "vs")
_PREPOSITIONS = ("in", "for", "during", "of", "at", "by", *_BESIDE)


def period_pointers(
    now: Reading, before: Reading, carried: list[str]
) -> list[tuple[int, int, str]]:
    """同年, that year: the earlier question's period in their place."""
    old = before.first("period")
    if old is None or now.first("period") is not None:
        return []
    edits = [
        (p.start, p.end, _at(now, p, shifted(old.text, p.text))) for p in now.of("same_period")
    ]
    for _, _, text in edits:
        carried.append(f"period {text}")
    return edits


def _at(now: Reading, pointer: Piece, period: str) -> str:
    """An English period put where its pointer stood, after a preposition ("the year before"
    -> "in 2023", "for the prior year" -> "for 2023")."""
    if not now.english or _word_before(now, pointer) in _PREPOSITIONS:
        return period
    return f"in {period}"


def set_beside_en(now: Reading) -> bool:
    """Whether an English follow-up sets a period pointer beside the earlier period ("How did
    it change from the previous year?", "compared with a year earlier"): both periods asked."""
    return now.english and any(_word_before(now, p) in _BESIDE for p in now.of("same_period"))


def _word_before(now: Reading, piece: Piece) -> str:
    """The word the question writes right before ``piece``, lower-cased ("" for none)."""
    words = now.text[: piece.start].lower().split()
    return words[-1] if words else ""


# The operations a word names by itself (平均, 合计, 环比, 占比, 复合增速); a finance metric's
# words may lean to them too (收入 to share, in 占收入比例), and are metrics all the same.
_NAMED_OPERATIONS = ("average", "sum", "change_ratio", "share", "cagr")


def operation_named(piece: Piece) -> str:
    """The operation ``piece``'s words name (平均 average, 合计 sum, 环比 change_ratio), by the
    operation model's weights for its own words; "" when they name none."""
    if piece.text.lower() in METRICS:  # 收入 leans to share: a metric all the same
        return ""
    name = term_operation(piece.text, OfflineSettings.operation_term_lean)
    return name if name in _NAMED_OPERATIONS else ""


def operation_swapped(new: Piece | None, olds: list[Piece]) -> list[tuple[int, int, str]]:
    """A follow-up that changes only how the earlier question works its value out ("那平均
    呢？" after "…营收合计多少？", "环比呢？" after "…同比增长多少？"): the earlier question's
    words naming an operation (环比 for 同比: the same, over another period) replaced by the
    follow-up's; [] when it names none, or the earlier question none but its own word."""
    asked = operation_named(new) if new is not None else ""
    if not asked or new is None:
        return []
    others = [p for p in olds if operation_named(p) and p.text != new.text]
    if not others:
        return []
    return [(others[0].start, others[0].end, new.text)] + [(p.start, p.end, "") for p in others[1:]]


def qualifies(new: str, old: str, known: Known) -> bool:
    """Whether the library's tables head ``new`` under ``old`` ("营业收入 同比": a growth rate
    of revenue), so that asking for ``new`` after ``old`` asks for old's ``new``."""
    if new.lower() == old.lower():
        return False
    if new.lower() in RELATIVE:  # a growth rate or a share is of something: 增速呢, 占比呢
        return True
    return f"{old} {new}".lower() in known.qualified
