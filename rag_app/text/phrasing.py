"""What a sentence or a question's phrasing says, beyond its words: a sentence that continues the
one before it, a question that asks for a list rather than one value."""

from __future__ import annotations

import re

# A sentence continuing the one before: it refers back to it ("The increase was due to ...").
_CONTINUES = re.compile(
    r"^(?:this|these|that|those|it|its|such|they|their|also|the (?:increase|decrease|decline|"
    r"growth|change|rise|improvement|reduction|drop|difference|shortfall)s?)\b"
    r"|^(?:这|此|该|其|主要(?:系|是|由于|受|因为|原因)|原因)",
    re.I,
)


def continues(sentence: str) -> bool:
    """Whether a sentence continues the one before ("The increase was due to ...", "这主要由于")."""
    return _CONTINUES.match(sentence.strip()) is not None


# How a paragraph that leads to a table ends: a colon, or words pointing at what follows.
_INTRODUCES = re.compile(
    r"[:：]\s*$|如下|下表|见表|详见|表\s*\d|following|below|as follows|table", re.IGNORECASE
)


def introduces_what_follows(paragraph: str) -> bool:
    """Whether a paragraph's end points at what follows it ("如下：", "see the table below")."""
    return _INTRODUCES.search(paragraph[-60:]) is not None


# A question asking for a list: "有哪些产线", "列出…", "Which segments are …", "What are the …".
_ASKS_FOR_LIST = re.compile(
    r"有哪些|哪几|列出|列举|分别是(?:什么|哪)|包括哪|包含哪"
    r"|\b(?:which|what)\s+(?:[\w-]+\s+){0,3}?(?:are|were)\b"
    r"|\bwhich\s+(?:[\w-]+\s+){0,2}?(?!(?:has|was|is|does|its|this)\b)[\w-]*[^\Ws]s\b"
    r"|\blist\b|\bname the\b",
    re.I,
)
# ... unless it asks for the one that stands out: "哪些公司的毛利率最高", "Which segments grew most".
_SUPERLATIVE = re.compile(
    r"最|\b(?:most|least|best|worst|(?:high|low|larg|small|bigg|great|fast|strong|weak)est)\b",
    re.I,
)


def asks_for_superlative(question: str) -> bool:
    """Whether ``question`` asks for the one that stands out ("毛利率最高", "grew the most")."""
    return _SUPERLATIVE.search(question) is not None


# What joins two things asked in parallel: 中芯国际和宁德时代, 营收与净利润, "SMIC and CATL".
_AND = frozenset({"和", "与", "及", "以及", "、", "跟", "and", ","})


def joins(between: str) -> bool:
    """Whether the words between two names or metrics join them as parallel ("和", " and ")."""
    return between.strip().lower() in _AND


# Which period: 哪一年, 哪个季度, 哪几个月, "which quarter", "in which year".
_WHICH_PERIOD = re.compile(
    r"哪\s*(?:一|个|几个)?\s*(?:年|季度|季|个月|月|期)|\bwhich\s+(?:years?|quarters?|months?|periods?)\b",
    re.I,
)


def asks_which_period(question: str) -> bool:
    """Whether ``question`` asks which period (哪个季度, "which year"): a period answers it."""
    return _WHICH_PERIOD.search(question) is not None


def asks_for_list(question: str) -> bool:
    """Whether ``question`` asks for a list of things ("中芯国际的产线有哪些？", "What are the
    segments of revenue?", "Which fabs does SMIC have?") rather than one value or the one that
    stands out ("Which segment grew most?")."""
    return _ASKS_FOR_LIST.search(question) is not None and not asks_for_superlative(question)


# A question pointing at a numbered table or figure: "表3", "table 2", "图1", "Fig. 3".
_REFERENCES = {
    "table": re.compile(r"表\s*[0-9一二三四五六七八九十]+|\btable\s*\d+", re.I),
    "image": re.compile(r"图\s*[0-9一二三四五六七八九十]+|\b(fig\.?|figure)\s*\d+", re.I),
}


def content_references(question: str) -> dict[str, str]:
    """Per content type, the numbered table or figure ``question`` points at ("图3"), in the
    words it uses; types it points at none of are left out."""
    out = {}
    for kind, pattern in _REFERENCES.items():
        match = pattern.search(question)
        if match:
            out[kind] = match.group(0)
    return out


_CN_DIGITS = {c: i for i, c in enumerate("一二三四五六七八九", 1)}
# How a caption or a sentence names a numbered table or figure ("图3：", "Figure 3.", "如表6所示").
_NAMING = {"table": r"(?:表|table)", "image": r"(?:图表|图|figure|fig\.?)"}


def reference_number(ref: str) -> str:
    """The number of a table or figure reference: "图3" -> "3", "图十二" -> "12", "Figure 3"
    -> "3"; "" for none."""
    digits = "".join(ch for ch in ref if ch.isdigit())
    if digits:
        return digits
    chinese = "".join(ch for ch in ref if ch in _CN_DIGITS or ch == "十")
    if not chinese:
        return ""
    if "十" not in chinese:
        return str(_CN_DIGITS.get(chinese, 0) or "")
    tens, _, units = chinese.rpartition("十")
    return str(_CN_DIGITS.get(tens, 1) * 10 + _CN_DIGITS.get(units, 0))


def is_caption_of(caption: str, kind: str, number: str) -> bool:
    """Whether ``caption`` is the caption of ``kind`` ("table" / "image") number ``number``: it
    opens with its label ("图3：…", "Figure 3. …")."""
    label = _NAMING.get(kind)
    if not label or not number:
        return False
    return re.match(rf"\s*{label}\s*{number}(?!\d)", caption, re.I) is not None


def names_reference(text: str, kind: str, number: str) -> bool:
    """Whether ``text`` names ``kind`` number ``number`` anywhere ("如图2所示", "see Figure 2")."""
    label = _NAMING.get(kind)
    if not label or not number:
        return False
    return re.search(rf"{label}\s*{number}(?!\d)", text, re.I) is not None


# A question about what a figure shows: it points at one ("图3", "Figure 1") or asks for a trend.
_ASKS_FOR_TREND = re.compile(
    r"趋势|走势|变化|增速|增长|哪一?年|\btrends?\b|\bchange\b|\bgrowth\b", re.I
)
# A figure description's sentence about how it is drawn, not what it shows: axes, legend, unit.
_AXES = re.compile(
    r"横轴|纵轴|横坐标|纵坐标|[左右]轴|坐标轴|图例|单位[为:：]|柱状图|折线图|饼图|表示|"
    r"\b(?:x-axis|y-axis|axis|axes|legend|bar chart|line chart)\b",
    re.I,
)
# ... and one stating what it shows: a direction, a peak, a rate of growth.
_TREND = re.compile(
    r"增长|增加|上升|提升|提高|下降|下滑|减少|回落|回升|走高|走低|攀升|萎缩|持平|波动|最高|最低|峰值|"
    r"增速|同比|环比|翻倍|\b(?:grew|grow|growth|rose|rise|increased?|decreased?|declined?|fell|"
    r"peak(?:ed)?|highest|lowest|doubled)\b",
    re.I,
)


def asks_about_figure(question: str) -> bool:
    """Whether ``question`` points at a figure ("图3显示的…") or asks for a trend ("趋势如何")."""
    return "image" in content_references(question) or _ASKS_FOR_TREND.search(question) is not None


# What a sentence says happened; an axis sentence names series ("折线为营收同比增速") but
# states no direction.
_DIRECTION = re.compile(
    r"增长(?!率)|增加|上升|提升|提高|下降|下滑|减少|回落|回升|走高|走低|攀升|萎缩|持平|最高|最低|"
    r"峰值|转正|转负|翻倍|\b(?:grew|rose|increased|decreased|declined|fell|peaked|doubled)\b",
    re.I,
)


def describes_axes(sentence: str) -> bool:
    """Whether a figure description's sentence says how the chart is drawn ("横轴为季度",
    "柱状图为…（亿元，左轴）") rather than what it shows."""
    return _AXES.search(sentence) is not None and _DIRECTION.search(sentence) is None


def describes_trend(sentence: str) -> bool:
    """Whether a sentence states a direction, peak or growth rate ("营收逐季增长")."""
    return _TREND.search(sentence) is not None


def states_direction(sentence: str) -> bool:
    """Whether a sentence says which way something went or where it peaked ("单季最高",
    "由负转正"), as a figure's conclusion does; a sentence listing values with their growth
    rates ("同比增速分别为…") names the series but states no direction."""
    return _DIRECTION.search(sentence) is not None
