"""How a table's rows and columns are told apart when a question names them loosely: a row label
read without the lead-in that marks it a sub-item ("其中：个人活期存款" is 个人活期存款), which of a
period's columns holds the amount and which its share ("2024年 / 金额" and "2024年 / 占比（%）"),
and which row is the whole its rows add up to (a total named otherwise: "合计", "营业收入合计")."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace

from rag_app.facts.cells import Fact
from rag_app.text.analyzer import cut, in_dictionary, match_terms
from rag_app.text.language import CJK_CLASS
from rag_app.text.periods import distinct_years, find_years, month_range, months_named, quarter_of

# A lead-in of one or two CJK characters before a colon marks a row as part of the one above
# ("其中：", "减：", "加："): the row is named by what follows it.
_LEAD_IN = re.compile(rf"^\s*[{CJK_CLASS}]{{1,2}}\s*[：:]\s*(?=\S)")
# A row's number before its name ("1.本期已实现收益", "二、营业成本", "（3）投资收益").
_NUMBERED = re.compile(
    r"^\s*(?:[（(]\s*\d{1,2}\s*[)）]|(?:\d{1,2}|[一二三四五六七八九十]{1,2})\s*[.、．])\s*(?=\S)"
)
# A label that says it is a total: 合计 / 总计 / 小计 / Total, at its start or (Chinese) its end
# ("营业收入合计"). The accounting convention, not any one table's words.
_TOTAL_LABEL = re.compile(r"^\s*(?:合计|总计|小计|total\b|subtotal\b)|(?:合计|总计)\s*$", re.I)
_AVERAGE_LABEL = re.compile(r"(?:平均值?|均值)\s*$")
_DECIMALS = re.compile(r"\.(\d+)")


def label_core(label: str) -> str:
    """The label without a sub-item's lead-in or a row's number: "其中：个人活期存款" ->
    "个人活期存款", "1.本期已实现收益" -> "本期已实现收益"."""
    return _LEAD_IN.sub("", _NUMBERED.sub("", label, count=1), count=1)


def is_percent_column(label: str, facts: Sequence[Fact]) -> bool:
    """Whether a column holds percentages: its label says % ("占比（%）") or every number in it
    is written as a percent."""
    if "%" in label or "％" in label:
        return True
    numbers = [f for f in facts if f.number is not None]
    return bool(numbers) and all(f.scale == "percent" for f in numbers)


def amount_columns(columns: set[int], facts: Sequence[Fact], named: set[int]) -> set[int]:
    """Of several columns of one period, the one the question names, else the one column that
    is not a percentage: a period's amount, not its share of a whole or its growth ("2024年 /
    金额" beside "2024年 / 占比（%）"); ``columns`` unchanged when neither tells one apart."""
    if len(columns) < 2:
        return columns
    asked = columns & named
    if len(asked) == 1:
        return asked
    labels = {f.col: f.column for f in facts}
    amounts = {
        c for c in columns if not is_percent_column(labels[c], [f for f in facts if f.col == c])
    }
    return amounts if len(amounts) == 1 else columns


def _decimals(value: str) -> int:
    found = _DECIMALS.search(value.replace(",", ""))
    return len(found.group(1)) if found else 0


def _adds_up(total: Fact, parts: Sequence[Fact]) -> bool:
    """Whether ``parts`` add up to ``total`` as written: within the rounding of their cells,
    half a unit of the last decimal written, each."""
    if len(parts) < 2 or total.number is None or any(p.number is None for p in parts):
        return False
    unit = 10.0 ** -max(_decimals(f.value) for f in (total, *parts))
    got = sum(float(p.number or 0.0) for p in parts)
    return abs(got - float(total.number)) <= unit * (len(parts) + 1) / 2


def whole_of(part: Fact, facts: Sequence[Fact]) -> Fact | None:
    """The cell of the row that is the whole ``part`` is a share of, in its column: the total
    row of the quantity it is labelled under ("集装箱吞吐量 / 合计" of "集装箱吞吐量 / 其中：外贸"),
    else the nearest row below it whose cell the rows directly above it (``part`` among them) add
    up to, else the nearest below labelled as a total ("合计", "Total"); None when no row is."""
    column = sorted((f for f in facts if f.col == part.col), key=lambda f: f.row)
    group = part.metric.rpartition(" / ")[0]
    if group:  # rows labelled under one quantity (集装箱吞吐量 / 其中：外贸): its own total
        totals = [
            f
            for f in column
            if f.row != part.row
            and f.metric.startswith(f"{group} / ")
            and _TOTAL_LABEL.search(f.metric.rpartition(" / ")[2])
        ]
        if len(totals) == 1:
            return totals[0]
    below = [f for f in column if f.row > part.row and f.number is not None]
    for candidate in below:
        above = [f for f in column if f.row < candidate.row]
        for start in range(len(above) - 2, -1, -1):
            run = above[start:]
            if part.row >= run[0].row and _adds_up(candidate, run):
                return candidate
    labelled = [f for f in below if _TOTAL_LABEL.search(f.metric)]
    return labelled[0] if labelled else None


# A row gathering what the table does not list one by one (其他, Others): no item of its own.
_RESIDUAL = re.compile(r"^\s*(?:其他|其它|其余|others?|all others?)\s*$", re.I)


def labelled_residual(label: str) -> bool:
    """Whether a row's label says it is the rest of the items ("其他", "Others")."""
    return _RESIDUAL.search(label) is not None


def labelled_average(label: str) -> bool:
    """Whether a row's label says it is its rows' average in Chinese ("平均值", "可比公司平均")."""
    return len(label) <= 8 and _AVERAGE_LABEL.search(label) is not None


def labelled_total(label: str) -> bool:
    """Whether a row's label says it is a total ("合计", "营业收入合计", "Total")."""
    return _TOTAL_LABEL.search(label) is not None


# A column or caption naming a part of a year: a span of months ("1-6月", "1-9月"), a half or a
# quarter (上半年, 第三季度, Q3, H1).
# Column labels that place a period against the report's own (本报告期 / 上年同期, 期末 / 期初,
# current / prior year): the conventions of a report's headers. A label saying a change
# ("本期比上年同期增减(%)") is neither period.
_CHANGE = re.compile(r"增减|变动|变化|增长|[比较]上|change|%|％", re.I)
_TO_DATE = re.compile(r"至")  # 年初至报告期末: the period to date, the current one
_PRIOR = re.compile(r"上年|上期|去年|期初|年初|prior|previous|last year", re.I)
_CURRENT = re.compile(
    r"本报告期|报告期|本期|本年|本月|当月|本季度?|当期|期末|current|this year", re.I
)


def period_role(label: str) -> str:
    """Which period a year-less column label places against the report's own: "current"
    (本报告期, 期末, 年初至报告期末), "prior" (上年同期, 期初), "" (neither, or a change column)."""
    if not label or _CHANGE.search(label):
        return ""
    if _TO_DATE.search(label):
        return "current"
    if _PRIOR.search(label):
        return "prior"
    return "current" if _CURRENT.search(label) else ""


# A column totalling the year to date (本年累计, 年初至报告期末), beside the month's or quarter's own.
_RUNNING = re.compile(r"累计|至")


def period_pairs(facts: Sequence[Fact]) -> list[tuple[int, int, str]]:
    """A table's current and prior columns paired, in column order: each prior column with the
    nearest current one before it (本月 with 上年同月, 本年累计 with 上年累计; 本报告期 with
    上年同期), and what the pair's labels say beyond their roles ("同月", "累计"); a running
    total's pair says "累计" whatever its words."""
    roles: dict[str, set[int]] = {}
    labels = {f.col: f.column for f in facts}
    for f in facts:
        if f.number is not None and (role := period_role(f.column)):
            roles.setdefault(role, set()).add(f.col)
    current = amount_columns(roles.get("current", set()), facts, set())
    prior = amount_columns(roles.get("prior", set()), facts, set())
    if len(current) == 1 and len(prior) == 1:
        return [(min(current), min(prior), "")]
    pairs = []
    for p in sorted(prior):
        before = [c for c in current if c < p]
        if before:
            c = max(before)
            words = [_PRIOR.sub("", _CURRENT.sub("", labels[x])).strip() for x in (c, p)]
            running = "累计" if _RUNNING.search(labels[c]) else ""
            pairs.append((c, p, " ".join(dict.fromkeys(w for w in (running, *words) if w))))
    return pairs


def month_columns(labels: Mapping[int, str], question: str) -> set[int] | None:
    """The columns of the one month a question names without its year (10月, 去年10月): of
    that month's columns with a year, the latest year's, or the year's before it when the
    question names the prior (去年10月); a column of the month with no year (the report's own)
    only when it does not. None when the question names no one such month or no column is of
    it."""
    asked = months_named(question)
    if len(asked) != 1 or asked[0][0]:
        return None
    of_month = {
        c: found[0][0]
        for c, label in labels.items()
        if len(found := months_named(label)) == 1 and found[0][1] == asked[0][1]
    }
    if not of_month:
        return None
    prior = names_prior(question)
    dated = {c: year for c, year in of_month.items() if year}
    if not dated:
        return set() if prior else set(of_month)
    year = max(dated.values())
    year = str(int(year) - 1) if prior else year
    return {c for c, y in dated.items() if y == year}


def names_prior(text: str) -> bool:
    """Whether ``text`` names the prior period (上年同月, 去年同期, last year)."""
    return bool(_PRIOR.search(text))


# A unit a label ends with: "营业收入（亿元）", "Revenue (in millions)".
UNIT = re.compile(r"[（(][^（()）]{1,12}[)）]\s*$")


def by_row_and_group(facts: Sequence[Fact]) -> Sequence[Fact]:
    """A table whose rows are companies (or classes) and whose columns are a metric's years
    under a merged header ("动力电池出货量（GWh） / 2024年") read as one row per company and metric
    ("锐驰电池 动力电池出货量"), its columns the years with the unit ("2024年（GWh）"); other tables
    as they are."""
    groups: dict[str, int] = {}
    out = []
    for fact in facts:
        group, _, last = fact.column.rpartition(" / ")
        if not group or find_years(group) or len(set(distinct_years(last))) != 1:
            out.append(fact)
            continue
        g = groups.setdefault(group, len(groups) + 1)
        unit = UNIT.search(group)  # named without its unit; the unit goes with the year
        name = group[: unit.start()].strip() if unit else group
        metric = f"{label_core(fact.metric)} {name}"
        column = f"{last}{unit.group()}" if unit else last
        out.append(replace(fact, row=fact.row * 1000 + g, metric=metric, column=column))
    return out if groups else facts


def bare_label(label: str) -> str:
    """A label without units and lead-ins in any of its parts: "集装箱吞吐量（万标准箱） / 其中：外贸"
    -> "集装箱吞吐量 外贸"."""
    return " ".join(label_core(UNIT.sub("", part).strip()) for part in label.split(" / "))


def shared_lead(labels: Sequence[str]) -> str:
    """The whole words every one of several row labels starts with, when each has words after
    them: a qualifier of the whole table ("速运物流" of 速运物流业务量, 速运物流单票收入), which a
    question asking one row need not write; "" when there is none."""
    if len(labels) < 2:
        return ""
    prefix = os.path.commonprefix(list(labels))
    lead = ""
    for word in cut(labels[0]):
        if not prefix.startswith(lead + word):
            break
        lead += word
    return lead if len(lead) >= 2 and all(len(label) - len(lead) >= 2 for label in labels) else ""


# A column label's last characters that alone tell it from its neighbours: a share class (A, C).
_CLASS = re.compile(r"[A-Z]{1,2}")


def classes_named(labels: dict[int, str], question: str) -> dict[int, str]:
    """Of columns whose labels differ only in a class's capital letters at their end (汀岚景和混合A,
    汀岚景和混合C), those whose letters the question writes standing alone (A类, C类份额, Class A),
    each with its letters."""
    prefix = os.path.commonprefix(list(labels.values())) if len(labels) >= 2 else ""
    named = {}
    for c, label in labels.items():
        tail = label[len(prefix) :].strip()
        if prefix and class_at(tail, question) >= 0:
            named[c] = tail
    return named


def class_at(letters: str, question: str) -> int:
    """Where the question writes a class's capitals standing alone (A of "A类"), -1 when it does
    not or ``letters`` are no class."""
    if not _CLASS.fullmatch(letters):
        return -1
    found = re.search(rf"(?<![A-Za-z]){letters}(?![A-Za-z])", question)
    return found.start() if found else -1


def pair_asked(pairs: list[tuple[int, int, str]], question: str) -> tuple[int, int] | None:
    """Of a table's current and prior column pairs (``rows.period_pairs``), the one the question
    asks: the one whose labels' words it writes (累计, 同月), else a running total's for a run of
    months (1-10月), else the first that is not a running total."""
    if len(pairs) == 1:
        return pairs[0][:2]
    said = [p for p in pairs if p[2] and any(w in question for w in cut(p[2]) if len(w) > 1)]
    if len(said) == 1:
        return said[0][:2]
    running = month_range(question) is not None
    kept = [p for p in pairs if p[2].startswith("累计") == running]
    return kept[0][:2] if kept else None


def coined_words(label: str, terms: Iterable[str]) -> list[str]:
    """The runs of two Chinese characters or more of a label that none of its ``terms`` covers
    and no dictionary holds: a coined name's own word (桩工 of 桩工机械, 臻藏 of 臻藏系列), which
    a question naming the row writes (not 本年 of 本年累计, a common word)."""
    rest = label
    for term in sorted(terms, key=len, reverse=True):  # 归母净利润 before its 利润
        rest = rest.replace(term, " ")
    return [run for run in _CJK_RUN.findall(rest) if len(run) >= 2 and not in_dictionary(run)]


_CJK_RUN = re.compile(f"[{CJK_CLASS}]+")


def most_specific(named: set[str]) -> set[str]:
    """Of labels named alike, the most specific ("Total costs", not "Total")."""
    return {m for m in named if not any(_less_specific(m, other) for other in named)}


def _less_specific(label: str, than: str) -> bool:
    """Whether ``than`` names everything ``label`` does and more ("Total" than "Total costs"),
    its words and its characters (臻藏系列 is not less than 窖龄系列 for the terms they share)."""
    mine, theirs = match_terms(label)[0], match_terms(than)[0]
    return label != than and mine < theirs and set(label.lower()) <= set(than.lower())


def quarter_columns(labels: dict[int, str], quarters: list[str]) -> dict[int, str]:
    """The columns of one quarter each (2024Q4) that ``quarters`` (``quarters_of_year``) name, in
    the question's order; {} unless each is found."""
    by_quarter = {f"{q[0]}Q{q[1]}": c for c, label in labels.items() if (q := quarter_of(label))}
    named = {by_quarter[q]: labels[by_quarter[q]] for q in quarters if q in by_quarter}
    return named if len(named) == len(quarters) else {}
