"""Query expansion with a finance synonym dictionary (seed 004's third/fourth layer).

Groups are interchangeable names for one quantity as reports and readers write them; a query
term from a group brings the others in. Extendable from settings (``extra_synonyms``).
"""

from __future__ import annotations

import re

SYNONYM_GROUPS: tuple[tuple[str, ...], ...] = (
    ("营收", "营业收入", "营业总收入", "收入", "销售收入", "revenue", "revenues", "sales"),
    ("净利润", "归母净利润", "归属于母公司股东的净利润", "归母净利", "net profit", "net income"),
    ("扣非净利润", "扣非归母净利润", "扣除非经常性损益"),
    ("毛利率", "毛利", "gross margin", "gross profit"),
    ("净利率", "净利润率", "net margin"),
    ("每股收益", "eps", "earnings per share"),
    ("市盈率", "pe", "p/e", "price-earnings"),
    ("市净率", "pb", "p/b"),
    ("净资产收益率", "roe", "return on equity"),
    ("产能", "月产能", "产量", "capacity"),
    ("产能利用率", "稼动率", "utilization", "utilisation"),
    ("产线", "生产线", "工厂", "晶圆厂", "fab", "fabs", "厂区", "production line"),
    ("工艺节点", "制程", "工艺", "技术节点", "process node", "node"),
    ("资本开支", "资本支出", "capex", "capital expenditure"),
    ("研发费用", "研发投入", "研发支出", "r&d"),
    ("经营性现金流", "经营活动现金流量净额", "经营现金流", "operating cash flow"),
    ("同比", "同比增长", "yoy", "year-over-year", "year on year"),
    ("环比", "qoq", "quarter-over-quarter"),
    ("目标价", "target price"),
    ("评级", "投资评级", "rating"),
    ("风险提示", "风险", "risk", "risks"),
    ("预测", "预计", "forecast", "estimate", "guidance"),
    ("折旧", "折旧摊销", "depreciation"),
    ("市场份额", "市占率", "market share"),
    ("出货量", "销量", "shipments", "volume"),
)


class SynonymDictionary:
    def __init__(self, groups: tuple[tuple[str, ...], ...] = SYNONYM_GROUPS) -> None:
        self._groups = [tuple(t.lower() for t in g) for g in groups]

    def expand(self, query: str) -> list[str]:
        """Synonyms of terms found in the query that the query does not already contain."""
        lowered = query.lower()
        out: list[str] = []
        for group in self._groups:
            if any(_contains(lowered, term) for term in group):
                out.extend(t for t in group if not _contains(lowered, t) and t not in out)
        return out


def _contains(text: str, term: str) -> bool:
    if term.isascii():
        # whole words for latin terms ("pe" must not match "operating"), plurals included
        # ("gross margins" is "gross margin")
        pattern = rf"(?<![a-z0-9]){re.escape(term)}(?:e?s)?(?![a-z0-9])"
        return re.search(pattern, text) is not None
    return term in text


# The built-in dictionary, built once: retrieval and the offline answerer use it on every query.
FINANCE_SYNONYMS = SynonymDictionary()
