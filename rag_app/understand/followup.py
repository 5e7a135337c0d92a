"""Follow-up questions made standalone from the question before them, as slots, without a model.

Both questions are read into slots against what the library holds (``understand.slots``): who
they ask about, when, what, and how they ask. Then:
- an elliptic follow-up ("那2026年呢？", "华虹半导体呢？", "每股收益呢？", "它的产能呢？",
  "和华虹比呢？") holds nothing but slots: the question is written again from the earlier
  question's slots with the follow-up's in place of those it names, and the earlier question's
  own asking words ("中芯国际2026年的毛利率是多少？"); a name set beside the earlier one (和X比,
  compared with X) asks for both ("中芯国际和华虹集团的产能分别是多少？"); a place of the
  earlier company keeps its company (比亚迪合肥基地 -> 比亚迪常州基地);
- a follow-up with words of its own naming no one ("它2026年的每股收益是多少？", "研发费用是
  多少？") gets the earlier subject in place of its pointer (or before its words) when it points
  back, asks for a metric or a period, or is short, and the earlier period when it names none;
- a question that names its own subject, or asks for one (哪家, which), stands alone.
A quantity asked of a report's company at no period in either turn ("它的产能呢？" after "中芯国际
的产能利用率是多少？") is asked at the last year the report covers ("2024年"), and a month or
quarter named without its year (10月) is of that year. The earlier subject is the name the earlier
question asks about; when it asked for one (哪家公司…, 哪个险种…), what the earlier answer gives
first. English questions are written in the earlier question's own words, slots replaced."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from rag_app.stage_settings import FollowUpSettings
from rag_app.text.periods import MONTH_NAME_EN, find_years
from rag_app.text.spans import strip_modifiers
from rag_app.understand.english import (
    english_metric,
    fact_period,
    filled,
    it_is_the_fact,
    of_subject,
)
from rag_app.understand.known import Known
from rag_app.understand.pieces import Piece
from rag_app.understand.referents import (
    CLOSING,
    answered,
    asked_span,
    asks_of_earlier_fact,
    compared_period,
    dated_part,
    edited,
    first_slot,
    name_like,
    operation_named,
    operation_swapped,
    period_beside,
    period_pointers,
    place_beside,
    pointed,
    points_at_fact,
    qualifies,
    set_beside_en,
    shifted,
    written,
)
from rag_app.understand.slots import RELATIVE, Reading, read

_NO_LIBRARY = Known()


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
    known: Known = _NO_LIBRARY,
    max_ellipsis_chars: int = FollowUpSettings.max_ellipsis_chars,
    answer: str = "",
    latest_period: bool = FollowUpSettings.latest_period,
) -> Resolution:
    """``question`` made standalone from the earlier user questions (oldest first), each of which
    is first made standalone from those before it; ``known`` is what the library holds and
    ``answer`` the answer to the last earlier question ("" when not known). An elliptic
    follow-up is one of at most ``max_ellipsis_chars``; with ``latest_period``, a metric asked
    for at no period is asked for at the last year its subject's report covers."""
    previous = ""
    for turn in earlier:
        if previous:
            previous = resolve(turn, previous, known, max_ellipsis_chars, "", latest_period).text
        else:
            previous = turn
    if not previous:
        return Resolution(question)
    return resolve(question, previous, known, max_ellipsis_chars, answer, latest_period)


# A bare why asked as the question of its reason, in the follow-up's language.
_WHY = {False: "原因是什么？", True: "What is the reason for it?"}


def resolve(
    question: str,
    previous: str,
    known: Known = _NO_LIBRARY,
    max_ellipsis_chars: int = FollowUpSettings.max_ellipsis_chars,
    answer: str = "",
    latest_period: bool = FollowUpSettings.latest_period,
) -> Resolution:
    """``question`` as it stands alone after ``previous`` (itself standalone)."""
    now, before = read(question, known), read(previous, known)
    year = _latest(before.subject, known) if latest_period and before.subject else ""
    if dated := dated_part(before, year):  # 10月 -> 2025年10月: 上个月 and 去年同期 move it
        previous, before = dated, read(dated, known)
    if not now.pieces and now.asks_cause and before.pieces and question != _WHY[now.english]:
        # a bare why (为什么？ Why?): the reason for what the earlier question asked
        reason = resolve(_WHY[now.english], previous, known, max_ellipsis_chars, answer)
        return Resolution(reason.text, reason.carried)
    if not now.pieces:
        return Resolution(question)  # nothing to read: "？", "好的"
    subject = before.subject
    pointer = now.first("pointer")
    if answer and (before.asks_which or pointer is not None):
        said = read(answer, known)  # 该险种 after 哪个险种…: the thing the answer gives first
        first = said.first("name")
        company = first is not None and getattr(known.names.get(first.value), "subject", False)
        if rewritten := answered(question, pointer, before, company, answer):
            return resolve(rewritten, previous, known, max_ellipsis_chars, "", latest_period)
        if before.asks_which:  # 这家公司 after 哪家公司…: the company the answer gives
            subject = said.first("name") or said.subject or subject
    # English words are about four characters: a short question has six besides its slots
    short = (
        len(_unnamed(question, now).split()) <= max_ellipsis_chars // 4
        if now.english
        else len(question.strip()) <= max_ellipsis_chars
    )
    slots = [
        p
        for p in now.pieces
        if p.kind in ("name", "period", "period_part", "metric", "words", "same_period")
    ]
    if now.asks_name and pointer is None:
        return _same_period(now, before)  # 哪家公司的毛利率最高？ asks across the library
    # Why did it narrow? 和去年同期比增长了多少: of the earlier fact
    why = (now.asks_cause or compared_period(now)) and asks_of_earlier_fact(now, pointer)
    # How many branches does it have?: its own words, the pointer given the earlier subject
    why = why or (
        now.english
        and pointer is not None
        and not (now.of("metric") or now.of("period") or now.compares)
    )
    if beside := period_beside(now, before):  # 和一季度比呢: the earlier fact against it
        return Resolution(beside, ("period beside",))
    # 该公司前三季度的归母净利润 after 哪家公司…: its own question of the answer, not the earlier one's
    pointed_answer = before.asks_which and pointer is not None
    if now.elliptic and slots and short and _leans(now) and not why and not pointed_answer:
        return _merged(now, before, subject, known if latest_period else replace(known, latest={}))
    if subject is None and before.first("metric") and asks_of_earlier_fact(now, pointer):
        # 后来为什么反弹？ after "2025年6月电池级碳酸锂均价是多少？": of its fact, no subject
        return _carried(now, before, Piece("name", 0, 0, ""), "", known)
    if _names_own_subject(now, known) or subject is None:
        return _same_period(now, before)
    if pointer is not None or (
        not now.english and (short and now.asks or now.first("metric") or now.first("period"))
    ):
        latest = _latest(subject, known) if latest_period else ""
        return _carried(now, before, subject, latest, known)  # names no one: the earlier subject
    if now.english and now.asks and short:  # Who is the analyst?: of the earlier subject
        return Resolution(*of_subject(now, before, subject))
    return _same_period(now, before)


def _unnamed(question: str, now: Reading) -> str:
    """A question's words outside the names, periods and metrics it gives."""
    kinds = ("name", "period", "metric") + (() if set_beside_en(now) else ("same_period",))
    slots = [p for p in now.pieces if p.kind in kinds]
    return edited(question, [(p.start, p.end, " ") for p in slots])


def _leans(now: Reading) -> bool:
    """An elliptic follow-up leans on the earlier question unless it names who, when and what."""
    kinds = {"name" if p.kind == "words" else p.kind for p in now.pieces} - {"period_part"}
    return not {"name", "period", "metric"} <= kinds


def _names_own_subject(now: Reading, known: Known) -> bool:
    """A name of the library, or one the question leads with that is not a metric's words."""
    if now.first("name") is not None:
        return True
    if now.subject is None:
        return False
    kind, _, share = known.closest(now.subject.text)
    return not (kind == "metric" and share >= known.min_share)


# elliptic follow-ups: the question written again from the slots ----------------------------------
def _merged(now: Reading, before: Reading, subject: Piece | None, known: Known) -> Resolution:
    carried: list[str] = []
    words = now.of("words")
    alone = len(words) == 1 and len(now.pieces) - len(now.of("pointer")) == 1  # X呢, its X
    unknown = [p for p in words if p.nominal or alone]
    # words the library holds nothing like: a name when proper nouns (capitalised in English)
    # or set beside the earlier name (和拓衡传感比呢), else a metric (研发投入呢)
    as_names = [p for p in unknown if p.proper or now.compares or p.text[:1].isupper()]
    if unknown and not as_names and now.first("metric") is None:  # 对应PE呢: PE is asked
        now = replace(now, pieces=tuple(
            replace(p, kind="metric") if p in unknown else p for p in now.pieces
        ))  # fmt: skip
    named = [p for p in now.pieces if p.kind == "name" or p in as_names]
    names = [p.value for p in named]
    beside = name_like(named, before, subject, known) if not now.compares else None
    if beside is not None:  # Kestrel Robotics Inc.呢 after 拓衡传感…对Norden Automation GmbH的…
        carried.append(f"name {beside.text} -> {written(named[0])}")
        text = edited(before.text, [(beside.start, beside.end, written(named[0]))])
        return Resolution(text, tuple(carried))
    compared = place_beside(named, before, subject) if now.compares else None
    if compared is not None:  # 和境内比呢 after …境外收入…: both places asked
        carried.append(f"place {compared.text} + {named[0].text}")
        text = edited(before.text, [(compared.end, compared.end, "和" + named[0].text)])
        return Resolution(text, tuple(carried))
    if names and now.compares and subject is not None and len(names) == 1:
        subjects = [written(subject), written(named[0])]
        carried.append(f"subject {subject.value} + {names[0]}")
    elif names:
        placed = [_placed(n, subject, known) for n in names]
        subjects = [written(p) if n == p.value else n for n, p in zip(placed, named, strict=True)]
        carried.append(f"subject {subject.value if subject else ''} -> {'、'.join(subjects)}")
    else:
        subjects = [written(subject)] if subject else []
        if subject:
            carried.append(f"subject {subject.value}")
    period = _slot(now, before, "period", carried)
    asked = now.first("metric") or before.first("metric")
    if (
        not period
        and asked is not None
        and not asked.lead  # 当前产能, 预测净利润: the modifier says when
        and subject is not None
        and known.is_quantity(asked.text)
    ):
        period = _latest(subject, known)
        if period:
            carried.append(f"period {period} (latest reported)")
    if before.english:  # its own words, the subject as it wrote it unless replaced
        metric = english_metric(now, before, carried)
        subjects = subjects if names else []
        period = period.removesuffix("年") if period[:4].isdigit() else period  # 2026年: 2026
        return Resolution(filled(before, subjects, period, metric), tuple(carried))
    rest = _rest(now, before, carried, known)
    if len(subjects) > 1 and "是" in rest:
        cut = rest.rindex("是")
        rest = rest[:cut] + "分别" + rest[cut:]
    return Resolution(f"{'和'.join(subjects)}{period}{rest}", tuple(carried))


def _rest(now: Reading, before: Reading, carried: list[str], known: Known) -> str:
    """What the earlier question asks of its subject and period, in its words after them
    ("的毛利率预测是多少？", "采用什么工艺节点？"), the follow-up's metric in place of its own;
    "的<metric>是多少？" when it named no metric (or noun) the follow-up's could replace."""
    start = before.subject.end if before.subject is not None else 0
    olds = [p for p in before.of("metric") if p.start >= start and not operation_named(p)]
    if not olds:  # 行长呢 after 嵘城银行的董事长是谁？: its noun is what is asked
        olds = [p for p in before.of("words") if p.start >= start and p.nominal][-1:]
    new = now.first("metric")
    edits = [(p.start, p.end, "") for p in before.of("period") if p.start >= start]
    if now.first("period_part") is not None:  # 一季度呢 after 二季度...: the part replaced
        edits += [(p.start, p.end, "") for p in before.of("period_part") if p.start >= start]
    words = [p for p in before.pieces if p.kind in ("metric", "words") and p.start >= start]
    if swapped := operation_swapped(new, words):  # 那平均呢 after …营收合计多少: 合计 -> 平均
        carried.append(f"operation {before.text[swapped[0][0] : swapped[0][1]]} -> {swapped[0][2]}")
        return edited(before.text, edits + swapped)[start:].strip()
    if new is not None and not olds:
        carried.append(f"metric {new.text}")
        return f"的{new.text}是多少？"
    if new is not None:
        text = new.text if new.lead else olds[0].lead + new.text
        old = before.text[olds[0].start : olds[-1].end]
        if qualifies(new.text, old, known):  # 同比呢 after 营业收入: 营业收入同比
            text = old + new.text
        elif not strip_modifiers(new.text):  # 单季呢 after 营业收入: 单季营业收入
            text = new.text + strip_modifiers(old)
        edits.append((olds[0].start, olds[-1].end, text))
        carried.append(f"metric {old} -> {text}")
    elif olds:
        carried.append(f"kept {before.text[olds[0].start : olds[-1].end]}")
    rest = edited(before.text, edits)[start:].strip()
    return rest if rest.rstrip(CLOSING) else "的情况如何？"


def _latest(subject: Piece, known: Known) -> str:
    """The last year the report on ``subject`` covers: "" when the library does not say, or
    when the subject is a row of a table (中芯天津（T1）, 比亚迪合肥基地) rather than the report's
    company: a row's values are as of the report, not of a year."""
    entry = known.names.get(subject.head.lower())
    if entry is None or not entry.subject or subject.value != subject.head:
        return ""
    return known.latest.get(entry.name, "")


def _placed(name: str, subject: Piece | None, known: Known) -> str:
    """A place of the earlier company keeps its company: 常州基地 after 比亚迪合肥基地 is
    比亚迪常州基地, 宜宾基地 after 宁德车里湾基地 (a place in 宁德时代's report) 宁德时代宜宾基地;
    not when the name is a report's subject or starts as the company does (华虹无锡Fab7)."""
    # the owner is the head of the earlier subject phrase, or the report naming its place
    if subject is None:
        return name
    head = known.names.get(subject.head.lower())
    new = known.names.get(name.lower())
    if new is not None and new.subject:
        return name
    if subject.value != subject.head and (head is None or head.subject):
        # 比亚迪 of 比亚迪合肥基地; a company the library does not know as a name, before a
        # place it does (北美 of a call's sales by region) when the new name is one it knows
        if head is None and new is None:
            return name
        owner = head.name if head is not None else subject.head
    elif (
        head is not None
        and head.owner
        and new is not None
        and new.owner == head.owner
        and head.name.startswith(head.owner[:2])
    ):
        owner = head.owner  # 宁德车里湾基地, 宜宾基地 of 宁德时代; not 台积电, 三星 it ranks
    else:
        return name
    return name if name.startswith(owner[:2]) else owner + name


def _slot(now: Reading, before: Reading, kind: str, carried: list[str]) -> str:
    new, old = now.first(kind), before.first(kind)
    part = now.first("period_part")
    relative = now.first("same_period")
    if new is None and part is not None and now.english:  # the first half, after Q3 2025
        years = find_years(old.text) if old is not None else []
        month = MONTH_NAME_EN.fullmatch(part.text)  # June 2025, the first half of 2025
        joint = " " if month else " of "
        new = replace(part, text=f"{part.text}{joint}{years[0]}" if years else part.text)
    elif new is None and part is not None:  # 一季度呢 after 2024年...: 2024年一季度
        year = old.text[: old.text.find("年") + 1] if old is not None and "年" in old.text else ""
        new = replace(part, text=year + part.text)
    elif new is None and relative is not None and old is not None and kind == "period":
        new = replace(relative, text=shifted(old.text, relative.text))  # 去年呢, the year before
    same = relative is not None or (new is not None and now.text[new.end :].startswith("同期"))
    if kind == "period" and new is not None and same and old is not None:
        within = old.text[old.text.find("年") + 1 :] if "年" in old.text else ""
        if within and new.text[:-1].isdigit() and new.text.endswith("年"):  # 2025年同期: 二季度
            new = replace(new, text=new.text + within)
    several = now.of(kind)
    if new is not None and len(several) > 1:  # 2026年和2027年呢, What about 2026 and 2027?
        new = replace(new, text=(" and " if now.english else "和").join(p.text for p in several))
    if new is not None:
        carried.append(f"{kind} {old.text} -> {new.text}" if old else f"{kind} {new.text}")
        return new.text
    if old is not None:
        carried.append(f"kept {old.text}")
        return old.text
    return ""


# follow-ups with words of their own: the earlier subject (and period) carried in ----------------
def _carried(
    now: Reading, before: Reading, subject: Piece, latest: str, known: Known
) -> Resolution:
    pointer = now.first("pointer")
    owner = subject.text if now.english else pointed(pointer, before, subject)
    carried = [f"subject {subject.value}" if subject.value else "no subject"]
    if it_is_the_fact(now, before, pointer):  # How did it change? of the earlier ratio
        span = asked_span(before, subject)  # …at the earlier period, unless it names its own
        owner, carried = subject.text + span, [*carried, f"asked {span}", *fact_period(now, before)]
    elif pointer is not None and points_at_fact(pointer, now, before, known.names):
        span = asked_span(before, subject)  # 这个指标的监管标准: of 不良贷款率
        owner += span if now.text[pointer.end : pointer.end + 1] == "的" else span + "的"
        carried.append(f"asked {span}")
    if now.english and pointer is not None and pointer.text.lower() in ("its", "their"):
        owner += "'s"
    elif now.english and pointer is not None and pointer.text.lower().endswith("'s"):
        owner += "'s"
    period = ""
    old_period = before.first("period")
    # 同比变化多少, 占比多少: a rate of something, asked of what the earlier question asked
    asked = [p for p in now.pieces if p.kind == "metric" or (p.kind == "words" and p.nominal)]
    relative = [p for p in asked if p.text.lower().startswith(tuple(RELATIVE))]
    # …or besides words the library holds nothing of, naming no period (同比变化多少: 变化 is no
    # metric of its own)
    unheld = all(p in relative or known.closest(p.text)[2] < known.min_share for p in asked)
    dated = now.first("period") or now.first("same_period")
    alone = len(relative) == len(asked) or (unheld and not dated)
    of_fact = asks_of_earlier_fact(now, pointer) or bool(relative and alone and not pointer)
    if of_fact:
        pass  # the earlier question's span carries its period
    elif (
        not now.english
        and now.first("period") is None
        and now.first("same_period") is None
        and now.first("metric") is not None
        and old_period is not None
    ):
        period = old_period.text
        carried.append(f"period {period}")
    elif (
        latest
        and not now.english
        and any(latest and not m.lead and known.is_quantity(m.text) for m in now.of("metric"))
        and not (now.first("period") or now.first("same_period") or old_period)
    ):
        period = latest
        carried.append(f"period {period} (latest reported)")
    if of_fact:
        # 原因是什么？ 为什么提升了？ 增长了多少？ Why did it narrow?: of what the earlier question
        # asked, then
        span = asked_span(before, subject)
        if span:  # …and its period, when written before its subject (2024年全球工业机器人销量)
            ahead = old_period.text if old_period and old_period.end <= subject.start else ""
            owner = subject.text if now.english else owner + (ahead if subject.text else "")
            owner += span
            carried.append(f"asked {span}")
            if now.english and old_period is not None:
                carried.append(f"period {old_period.text}")
    where = pointer if pointer is not None else first_slot(now)
    if pointer is None and carried[-1].startswith("asked") and not now.english:
        # the earlier fact, then what is asked of it (第一条是什么, 比上年末下降了多少)
        where = replace(where, start=0) if where.start == 0 else Piece("words", 0, 0, "")
    end = where.end if pointer is not None else where.start
    if carried[-1].startswith("asked") and pointer is None and where.nominal:
        owner += "的"  # 毛利率的原因是什么
    if period and now.text[end:].lstrip().startswith(tuple(p.text for p in now.of("metric"))):
        period += "的"  # 资本开支是多少 -> 中芯国际2024年的资本开支是多少
    edits = [(where.start, end, owner + period)]
    edits += period_pointers(now, before, carried)
    if (
        carried[-1].startswith("period")
        and now.english
        and old_period is not None
        and not (now.of("same_period") and not set_beside_en(now))
    ):  # Why did it narrow? in 2024; How did it change from the prior year? from 2023 in 2024
        close = len(now.text.rstrip(CLOSING))
        edits.append((close, close, f" in {old_period.text}"))
    return Resolution(edited(now.text, edits), tuple(carried))


def _same_period(now: Reading, before: Reading) -> Resolution:
    carried: list[str] = []
    edits = period_pointers(now, before, carried)
    return Resolution(edited(now.text, edits), tuple(carried)) if edits else Resolution(now.text)
