"""Periods as reports and readers write them, made comparable: 2024年第二季度, Q2 2024 and 2Q24
all give the token ``2024q2``; a whole-year label (2024A, 2024E, 2024年) gives ``2024`` and
``2024fy``.

The one place that knows what a year looks like: every pattern that reads a year or a period
(in a question, a sentence, a table's header or column label) is here, named for what it reads,
and the rest of rag_app imports it (the architecture test holds them to it)."""

from __future__ import annotations

import re
from collections.abc import Iterable

from rag_app.text.language import CJK_UNIFIED

_CN_DIGIT = {"一": "1", "二": "2", "三": "3", "四": "4", "1": "1", "2": "2", "3": "3", "4": "4"}
_PERIOD_PATTERNS = (
    # 2024年第二季度, 2024年二季度, 2024年Q2 -> 2024q2
    (re.compile(r"((?:19|20)\d\d)\s*年?\s*(?:第\s*)?([一二三四1-4])\s*季度"), "{0}q{1}"),
    (re.compile(r"((?:19|20)\d\d)\s*年\s*q([1-4])", re.I), "{0}q{1}"),
    # 2024年上半年 -> 2024h1
    (re.compile(r"((?:19|20)\d\d)\s*年?\s*([上下])半年"), "{0}h{1}"),
    # Q2 2024, Q2 FY2024 -> 2024q2
    (re.compile(r"\bq([1-4])\s*(?:fy)?\s*((?:19|20)\d\d)\b", re.I), "{1}q{0}"),
    # 2Q24, 2Q 2024 -> 2024q2
    (re.compile(r"\b([1-4])q\s*'?(\d\d)\b", re.I), "20{1}q{0}"),
)
_PERIOD = re.compile(r"^((?:19|20)\d\d)([aefhq]\d?|年)$")
# A year named alone (2024, 2024年) or as a whole-year column (2024A actual, 2024E/F forecast)
# means the full year: it also yields "2024fy", which a quarter (2024Q1) or half (2024H1) does
# not, so "2024年的毛利率" prefers the annual 盈利预测 column to a quarterly table's 2024Q1-Q4.
_YEAR = re.compile(r"^(?:fy)?((?:19|20)\d\d)$")
_ANNUAL = frozenset({"a", "e", "f", "年"})
# A column labelled 2026E or 2024A is that year: "P/E for 2026" meets it.
_YEAR_LABEL = re.compile(r"^((?:19|20)\d\d)[aef]$")


def period_tokens(text: str) -> list[str]:
    """Canonical period tokens (2024q2, 2024h1) for the ways reports and readers write them:
    a question's 2024年第二季度 must meet a table row labelled 2024Q2."""
    out = []
    for pattern, form in _PERIOD_PATTERNS:
        for match in pattern.finditer(text):
            parts = [_CN_DIGIT.get(g, g) for g in match.groups()]
            parts = ["1" if p == "上" else "2" if p == "下" else p for p in parts]
            out.append(form.format(*parts).lower())
    return out


def year_tokens(token: str, part_years: set[str]) -> list[str]:
    """The bare year of a period label (2024A, 2024Q1, FY2024 -> 2024) and, when the label means
    the whole year and the text names no quarter or half of it, ``2024fy``."""
    period = _PERIOD.match(token)
    if period is not None:
        year, whole, out = period.group(1), period.group(2) in _ANNUAL, [period.group(1)]
    else:
        match = _YEAR.match(token)
        if match is None:
            return []
        year, whole = match.group(1), True
        out = [year] if year != token else []
    if whole and year not in part_years:
        out.append(f"{year}fy")
    return out


def labelled_year(word: str) -> str | None:
    """The year of a whole-year column label (2026e -> 2026), else None."""
    match = _YEAR_LABEL.match(word)
    return match.group(1) if match else None


def is_forecast(label: str) -> bool:
    """Whether a column label names a forecast year ("预测值 / 2026E", "2025F")."""
    last = label.rpartition(" / ")[2].strip().lower()
    return _YEAR_LABEL.match(last) is not None and last[-1] in "ef"


# Years and periods in running text and tables -------------------------------------------------
_YEAR_DIGITS = r"(?:19|20)\d\d"
_NOT_LATIN = r"(?![0-9a-z])"

# A year: 19xx or 20xx, not part of a longer run of digits.
YEAR = re.compile(rf"(?<!\d)({_YEAR_DIGITS})(?!\d)")
# A year as a period in prose: not a digit run's middle, not a value (2031亿元, 2025.5, 2,025).
PERIOD_YEAR = re.compile(rf"(?<![\d.,])({_YEAR_DIGITS})(?![\d.,]\d|\s*[亿万元%倍])")
# A range of years: 2024-2026年, 2024A-2026E, 2024至2026年, 2024~2026.
YEAR_RANGE = re.compile(
    rf"(?<!\d)({_YEAR_DIGITS})[aefAEF年]?\s*(?:-|–|—|~|～|至|到)\s*({_YEAR_DIGITS})(?!\d)"
)
# A quarter or half written after its year: 2024Q1, 2024 H2.
PART_OF_YEAR = re.compile(rf"{_YEAR_DIGITS}\s*[QH][1-4]", re.I)
# A period as a question or sentence names it, with what narrows it: 2025年, 2024年第二季度,
# 2025年前三季度, 2024年上半年, 2025年1-9月, 2026E, FY2024, Q2 2024, 2Q24 (the spans a question
# is read as).
PERIOD_SPAN = re.compile(
    rf"(?:fy\s?)?{_YEAR_DIGITS}(?:\s*年(?:度)?(?:\s*[前第]?[一二三四1-4]\s*个?季度|\s*[上下]半年"
    rf"|\s*\d{{1,2}}\s*[-–~至]\s*\d{{1,2}}\s*月|\s*\d{{1,2}}\s*月)?"
    rf"|[aefh][1-2]?{_NOT_LATIN}|\s?q[1-4]{_NOT_LATIN})?"
    rf"|(?<![0-9a-z])q[1-4]\s*(?:fy)?\s*{_YEAR_DIGITS}|(?<![0-9a-z])[1-4]q\d\d{_NOT_LATIN}",
    re.IGNORECASE,
)
# A numeral counting the part of a year after it (三季度, 2季度): 季度 there is no metric's modifier.
PART_COUNT = re.compile(r"[\d一二三四]")
# A part of a year written without its year: 第三季度, 前三季度, 一季度, 上半年.
YEARLESS_PART = re.compile(r"(?:前|第)?[一二三四1-4]\s*个?季度|[上下]半年")
# A quarter's own figure, its year's part named before or not at all (三季度单季, 单季毛利率).
SINGLE_QUARTER = re.compile(r"单季度?")
# The same in English: the first half, H1, the third quarter, Q3, the first nine months, 9M.
YEARLESS_PART_EN = re.compile(
    r"(?<![a-z0-9])(?:(?:the\s+)?(?:first|second)\s+half|h[12]|(?:the\s+)?(?:first|second|third|"
    r"fourth)\s+quarter|q[1-4]|(?:the\s+)?first\s+(?:three\s+quarters|nine\s+months)|9m)(?![a-z0-9])",
    re.IGNORECASE,
)
_MONTH_FULL = (
    "January", "February", "March", "April", "May", "June", "July", "August", "September",
    "October", "November", "December",
)  # fmt: skip
# A month named in English without its year (June, Oct.), capitalised as a month is; May only
# after a word ("in May"), not as a question's first word ("May I ask").
_NAMED = [m for m in _MONTH_FULL if m != "May"]
MONTH_NAME_EN = re.compile(
    rf"(?<![A-Za-z])(?:{'|'.join(_NAMED)}|{'|'.join(m[:3] for m in _NAMED)}|Sept)\.?(?![A-Za-z])"
    r"|(?<=[A-Za-z,]\s)May(?![A-Za-z])"
)
# A period named from the report's own (a column header, a follow-up): 本报告期, 上年同期, 去年同期,
# 上年末, 报告期末, 同期, 上年, 本期.
RELATIVE_PERIOD = re.compile(
    r"(?:本|上|去|今|明|下|前)一?(?:年度?|报告期|期)(?:同期|末|初)?|报告期[末初]?|同期"
)
# A month or a quarter named from another (a follow-up's 上个月, 下一季度, 上一个季度, 前一个月).
RELATIVE_PART = re.compile(r"(?:[上下](?:一个|[一个])?|前一个?)(?:季度|月)(?!份?\s*\d)")


# A table cell that labels a period rather than holding a value: 2024A, FY2024, 2024年, 1Q24, Q1.
PERIOD_HEADER = re.compile(
    rf"^(?:FY)?\s*{_YEAR_DIGITS}\s*(?:[AEFH年QY].*)?$|^\d{{1,2}}Q\d{{2}}$|^Q\d", re.I
)


def find_years(text: str) -> list[str]:
    """Every year ``text`` names (``YEAR``), in order, repeats kept."""
    return YEAR.findall(text)


def distinct_years(text: str) -> list[str]:
    """The years ``text`` names, each once, in order: a column "2023年12月31日/2023年度" is
    one year's."""
    return list(dict.fromkeys(find_years(text)))


def is_whole_year_label(label: str, year: str) -> bool:
    """Whether a column label names ``year`` as a whole year: "2026", "2026E", "2026年",
    "FY2026" (not "2026Q1")."""
    return re.fullmatch(rf"(?:FY)?\s*{re.escape(year)}\s*(?:[AEF]|年)?", label, re.I) is not None


def shift_year(period: str, step: int) -> str:
    """``period`` with its (first) year moved by ``step`` years: 2024年 -> 2023年, 2024Q2 ->
    2023Q2; unchanged when it names no year."""
    return YEAR.sub(lambda m: str(int(m.group(1)) + step), period, count=1)


def shift_part(period: str, pointer: str, step: int) -> str:
    """``period`` moved by ``step`` of the part ``pointer`` names (上个月, 下一季度, the previous
    month): 2025年6月 -> 2025年5月, 2024年第四季度 -> 2024年第三季度, Q1 2025 -> Q4 2024; a year's
    shift (``shift_year``) when the pointer names a year (上年同月, the same month last year), no
    month or quarter, or the period none of them."""
    lowered = pointer.lower()
    if "年" in pointer or "year" in lowered:
        return shift_year(period, step)
    if "月" in pointer or "month" in lowered:
        found = month_tokens(period)
        if found:
            year, _, month = found[0].partition("年")
            stepped, month_number = _stepped(int(year), int(month.rstrip("月")), 12, step)
            year = str(stepped)
            if "年" in period:
                return MONTH_NAMED.sub(f"{year}年{month_number}月", period, count=1)
            chinese = "月" in pointer  # as the question writes it
            return (
                f"{year}年{month_number}月"
                if chinese
                else f"{_MONTH_FULL[month_number - 1]} {year}"
            )
    if "季" in pointer or "quarter" in lowered:
        quarter = quarter_named(period)
        if quarter is not None and quarter[0]:
            shifted_year, q = _stepped(int(quarter[0]), quarter[1], 4, step)
            chinese = "年" in period or "季" in pointer  # as the question writes it
            return (
                f"{shifted_year}年第{_CHINESE_DIGITS[q]}季度" if chinese else f"Q{q} {shifted_year}"
            )
    return shift_year(period, step)


def _stepped(year: int, number: int, per_year: int, step: int) -> tuple[int, int]:
    """The ``number``-th month (or quarter: ``per_year`` 4) of ``year`` moved by ``step``, as
    (year, number): (2025, 1, 12, -1) -> (2024, 12)."""
    index = year * per_year + number - 1 + step
    return index // per_year, index % per_year + 1


# The start of a year, or the end of the one before, as a report's balance columns name it
# (年初, 期初, 上年末, 上年度末): the year before's end.
YEAR_START = re.compile(r"年初|期初|上年度?末")
# A report's own period columns, named without a year (本报告期, 年初至报告期末, 报告期末).
REPORT_PERIOD = re.compile(r"年初至(?:报告期末|本报告期末)|本?报告期末?|本期末?")
# A column a report lays its figures out by, named from the report's own period (本报告期,
# 上年同期, 本月, 上年同月, 本年累计, 上年度末): the year the report is of, or the one before.
REPORT_COLUMN = re.compile(
    r"(?:本|上年|上)(?:报告期|期|月|年)?(?:同期|同月|累计|末|度末)?|年初至报告期末|期[末初]"
)
# A month written without its year (a monthly table's 1月 … 10月).
YEARLESS_MONTH = re.compile(r"(1[0-2]|0?[1-9])\s*月份?")


def quarters_spanned(text: str) -> list[str]:
    """The quarters a part of a year ``text`` names with its year spans, as a table heads them
    (2024年前三季度 -> 2024Q1 2024Q2 2024Q3, 2025年上半年 -> 2025Q1 2025Q2): the words of the
    table that gives them. [] for one quarter, a whole year, or no year."""
    years = find_years(text)
    part = part_months(text)
    if not years or part is None or part[1] - part[0] < 3:
        return []
    return [f"{years[0]}Q{n}" for n in range(part[0] // 3 + 1, part[1] // 3 + 1)]


def quarters_of_year(text: str) -> list[str]:
    """The single quarters ``text`` names beside the one year it names, as tables head them:
    "2024年四季度…比三季度" -> 2024Q4 2024Q3; [] when it names no year or several."""
    years = set(find_years(text))
    parts = [yearless_quarter(m.group()) for m in YEARLESS_PART.finditer(text)]
    found = [f"{year}Q{n}" for year in years for n in parts if n]
    return list(dict.fromkeys(found)) if len(years) == 1 else []


# A year's months up to one named or pointed at: 本年累计, 上年累计, 1-10月累计, 累计, 年初至今.
SO_FAR = re.compile(r"(?:(?:本|今|上|去)年(?:同期)?)?(?:1\s*[-–~至]\s*\d{1,2}\s*月)?累计|年初至今")


def year_so_far(period: str, pointer: str) -> str:
    """The months of a year up to ``period``'s month (or the end of its run of months), as
    ``pointer`` (``SO_FAR``) points at them: 2025年10月 with 本年累计 -> 2025年1-10月累计, with
    上年累计 -> 2024年1-10月累计; ``period`` itself when it names no year and month."""
    years = find_years(period)
    run = month_range(period)
    named = months_named(period)
    last = run[1] if run is not None else (named[0][1] if named else 0)
    if not years or not last:
        return period
    year = int(years[0]) - (1 if pointer[:1] in "上去" else 0)
    return f"{year}年1-{last}月累计"


_MONTH_NAMES = tuple(m[:3].lower() for m in _MONTH_FULL)
# The same in English: November 2025, Nov. 2025.
_MONTH_EN = re.compile(
    r"(?<![a-z])(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    rf"sep(?:t|tember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?,?\s+({_YEAR_DIGITS})(?!\d)",
    re.IGNORECASE,
)


def month_tokens(text: str) -> list[str]:
    """The months ``text`` names (2025年11月, November 2025), as ``2025年11月``: the form a
    table's header is profiled in."""
    out = [f"{year}年{month}月" for year, month in months_named(text) if year]
    for m in _MONTH_EN.finditer(text):
        out.append(f"{m.group(2)}年{_MONTH_NAMES.index(m.group(1).lower()[:3]) + 1}月")
    return out


# A month a question names with or without its year (2025年10月, 10月), not a range's end
# (1-10月) nor a day's month (10月31日).
MONTH_NAMED = re.compile(
    rf"(?:({_YEAR_DIGITS})\s*年\s*)?(?<![\d\-–~至])(1[0-2]|0?[1-9])\s*月(?:份)?(?!\s*\d{{1,2}}\s*日)"
)


def months_named(text: str) -> list[tuple[str, int]]:
    """The months ``text`` names, in order, each as (its year or "", its number): "10月比9月" gives
    ("", 10), ("", 9); a column "2025年10月" gives ("2025", 10)."""
    return [(m.group(1) or "", int(m.group(2))) for m in MONTH_NAMED.finditer(text)]


# A run of months: 1-9月, 1至10月, 2025年1~9月.
_MONTH_RANGE = re.compile(
    r"(?<![\d.])(1[0-2]|0?[1-9])\s*(?:-|–|~|～|至|到)\s*(1[0-2]|0?[1-9])\s*月"
)


# A year's first months counted (前10个月, 前十个月): a run from January.
_FIRST_MONTHS = re.compile(r"前\s*(1[0-2]|[2-9]|十[一二]?|[二三四五六七八九])\s*个月")
_CHINESE_DIGITS = "零一二三四五六七八九"


def month_range(text: str) -> tuple[int, int] | None:
    """The first run of months ``text`` names (1-9月 -> (1, 9), 前10个月 -> (1, 10)), None
    when it names none."""
    match = _MONTH_RANGE.search(text)
    if match is None:
        first = _FIRST_MONTHS.search(text)
        return (1, _months(first.group(1))) if first else None
    if int(match.group(1)) >= int(match.group(2)):
        return None
    return int(match.group(1)), int(match.group(2))


def _months(count: str) -> int:
    """A count of months as written: 10, 十, 十二, 三."""
    if count.isdigit():
        return int(count)
    if count.startswith("十"):
        return 10 + (_CHINESE_DIGITS.index(count[1]) if len(count) > 1 else 0)
    return _CHINESE_DIGITS.index(count)


# A change against the period just before (环比, month on month, sequentially), not a year before.
_SEQUENTIAL = re.compile(
    r"环比|较上月|比上月|\b(?:month[- ]on[- ]month|month[- ]over[- ]month|sequential(?:ly)?|mom)\b",
    re.I,
)


def sequential(text: str) -> bool:
    """Whether ``text`` says 环比 (month on month, sequentially): a column so labelled states a
    change against the period before, not the amount that changes."""
    return _SEQUENTIAL.search(text) is not None


def month_before(text: str) -> tuple[int, int] | None:
    """For a change against the month before (10月环比, October month on month): that month and
    the one before it, (10, 9); None when ``text`` names no one month so compared, or January."""
    months = months_named(text)
    if len(months) != 1 or not _SEQUENTIAL.search(text) or months[0][1] == 1:
        return None
    return months[0][1], months[0][1] - 1


# The quarter just before, as written without 环比: 较上季度, 比上一季度, quarter on quarter, QoQ.
_QUARTER_BEFORE = re.compile(
    r"[较比]上一?个?季度|\b(?:quarter[- ]on[- ]quarter|quarter[- ]over[- ]quarter|qoq)\b", re.I
)


def quarter_named(text: str) -> tuple[str, int] | None:
    """The one quarter ``text`` names, as (its year or "", its number): "2025年三季度" and
    "2025Q3" give ("2025", 3), "三季度" ("", 3); None for none, several, or a run of them
    (前三季度, 上半年)."""
    named = quarter_of(text)
    if named is not None:
        return named
    part = part_months(text)
    return ("", part[1] // 3) if part is not None and part[1] - part[0] == 2 else None


def latest_with(quarter: tuple[str, int], found: Iterable[tuple[str, int]]) -> str:
    """The year of a named quarter: its own, else the latest of ``found`` (quarters a table
    gives) that has it; "" when none does."""
    year, number = quarter
    return year or max((y for y, n in found if n == number), default="")


def quarter_before(text: str) -> tuple[tuple[str, int], tuple[str, int]] | None:
    """For a change against the quarter before (2025年三季度环比, Q3 quarter on quarter): that
    quarter and the one before it, each as (its year or "", its number): ("2025", 3), ("2025",
    2); the first quarter's is the prior year's fourth. None when ``text`` names no one quarter
    so compared, or names a month (a month's change is against the month before)."""
    if not (_SEQUENTIAL.search(text) or _QUARTER_BEFORE.search(text)) or months_named(text):
        return None
    named = quarter_named(text)
    if named is None:
        return None
    year, number = named
    if number > 1:
        return named, (year, number - 1)
    return named, (str(int(year) - 1) if year else "", 4)


# A part of a year, with its year or without: 1-6月, 上半年, 第三季度, 前三季度, Q3, 2025H1.
_PART_NAMED = re.compile(
    r"\d{1,2}\s*[-–~至]\s*\d{1,2}\s*月|半年|季度|(?<![a-z])[qh][1-4](?![0-9a-z])", re.I
)


def names_part_of_year(text: str) -> bool:
    """Whether ``text`` (a question, a column label, a caption) names a part of a year: 1-6月,
    上半年, 第三季度, Q3, 2025H1."""
    return _PART_NAMED.search(text) is not None or PART_OF_YEAR.search(text) is not None


def part_months(text: str) -> tuple[int, int] | None:
    """The run of months a part of a year ``text`` names without its year spans: 上半年 (1, 6),
    下半年 (7, 12), 三季度 (7, 9), 前三季度 (1, 9), and a count of quarters from the first,
    四个季度 (1, 12) (a year's four quarters, not its fourth); None when it names none."""
    found = YEARLESS_PART.search(text)
    if found is None:
        return None
    part = found.group()
    if part.endswith("半年"):
        return (1, 6) if part.startswith("上") else (7, 12)
    quarter = "一二三四".find(part.lstrip("前第")[0]) + 1 or int(part.lstrip("前第")[0])
    counted = "个" in part and not part.startswith("第")
    return (1 if part.startswith("前") or counted else quarter * 3 - 2), quarter * 3


def yearless_quarter(label: str) -> int:
    """The one quarter a column label names without its year (第一季度（1-3月份）, 四季度): its
    number; 0 when it names a year, no quarter or more than one."""
    if find_years(label) or len(YEARLESS_PART.findall(label)) != 1:
        return 0
    run = part_months(label)
    return run[1] // 3 if run is not None and run[1] - run[0] == 2 else 0


_QUARTER_LABEL = re.compile(rf"(?<!\d)({_YEAR_DIGITS})\s*年?\s*Q([1-4])(?![0-9])", re.I)
# A question asking by quarters (有几个季度, which quarters): the unit it counts or compares in.
_BY_QUARTER = re.compile(r"季度|\bquarters?\b", re.I)


def quarter_of(label: str) -> tuple[str, int] | None:
    """The one quarter a column label names, as (its year, its number): "2025Q1" and
    "2025年第一季度" give ("2025", 1); None when it names none or several."""
    found = [(m.group(1), int(m.group(2))) for m in _QUARTER_LABEL.finditer(label)]
    found += [(t[:4], int(t[5])) for t in period_tokens(label) if t[4:5] == "q"]
    found = list(dict.fromkeys(found))
    return found[0] if len(found) == 1 else None


def asks_by_quarter(text: str) -> bool:
    """Whether ``text`` asks by quarters (有几个季度, 一季度和二季度, which quarters)."""
    return _BY_QUARTER.search(text) is not None


# A count of things that are not periods: 有几家, 几只, 几个产品, how many companies; not 有几年,
# 几个季度, 几个月, how many years, nor "的月份有几个" (the periods named before it).
_COUNTS_ROWS = re.compile(
    rf"几\s*(?:家|只|个(?=\s*[{CJK_UNIFIED}])(?!\s*(?:年|月|季度|财年|会计年度)))|"
    r"\bhow\s+many\s+(?!years?\b|months?\b|quarters?\b|times?\b|periods?\b)[a-z]",
    re.I,
)
_COUNTS_PERIODS = re.compile(r"(?:年份|月份|季度)[^，。？?]*几")


def counts_rows(text: str) -> bool:
    """Whether ``text`` counts things other than periods (a table's rows: 有几家, how many
    segments), not years, months or quarters."""
    return _COUNTS_ROWS.search(text) is not None and _COUNTS_PERIODS.search(text) is None
