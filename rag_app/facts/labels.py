"""Which labels of a table a question names: a row's or a column's label, its periods, unit and
lead-ins aside (``names_label``: 桩工机械 is not named by 机械 alone), the unit it writes, and of a
company's own row in another report's ranking the columns that give what it asks."""

from __future__ import annotations

from collections.abc import Sequence

from rag_app.facts.cells import Fact
from rag_app.facts.rows import UNIT, coined_words, label_core
from rag_app.text.analyzer import match_terms
from rag_app.text.periods import PERIOD_SPAN


def names_label(label: str, question_lower: str, words: frozenset[str]) -> int:
    """How many words of ``label`` the question names, all of them or 0 (a sub-item's lead-in,
    "其中：", aside)."""
    label = label_core(label)
    lowered = label.lower().strip()
    terms = match_terms(label)[0]
    # a volume named by its verb (销售生猪 of 生猪销售量): its 量 aside, the verb is the label's
    terms = terms - {w for w in terms if w.endswith("量") and w[:-1] in terms}
    if len(lowered) >= 2 and lowered in question_lower:
        return max(1, len(terms))
    label_words = {w for w in terms if not w.isdigit()}
    if any(r not in question_lower for r in coined_words(lowered, terms)):
        return 0  # 桩工机械 is not named by 机械 alone
    return len(label_words) if label_words and label_words <= words else 0


def unit_asked(label: str, question: str) -> bool:
    """Whether the question writes the unit a label ends with ("多少百万元" of "金额（百万元）")."""
    unit = UNIT.search(label)
    return unit is not None and unit.group()[1:-1].strip().lower() in question


def named_columns(labels: dict[int, str], question: str, words: frozenset[str]) -> set[int]:
    """The columns whose label, its periods and unit aside, the question names ("占比" of
    "2024年 / 占比（%）")."""
    return {
        c
        for c, label in labels.items()
        if (rest := metric_part(label)) and names_label(rest, question, words)
    }


def metric_part(label: str) -> str:
    """What a column label names besides its periods and unit ("营收" of "2024年营收（亿美元）")."""
    parts = [UNIT.sub("", PERIOD_SPAN.sub(" ", p)).strip() for p in label.split(" / ")]
    return " ".join(p for p in parts if p)


def of_company(
    facts: Sequence[Fact], columns: set[int], question: str, words: frozenset[str], dated: bool
) -> set[int]:
    """Of a company's own row in a ranking, the columns naming what is asked (营收 of
    "2024年营收（亿美元）" answers no 月产能), else, the table ``dated`` in the years asked, one
    named undated (市占率（%） of a 2024 ranking)."""
    labels = {f.col: f.column for f in facts if f.number is not None}
    asked = {c: labels[c] for c in columns if c in labels}
    kept = {c for c, label in asked.items() if not metric_part(label)}
    return kept | named_columns(asked, question, words) or (
        named_columns(labels, question, words) if dated else set()
    )
