"""The Library page's facts: the cells each document's tables hold, as the library stored them
at ingest (``Library.facts``; ``rag_app.facts.stored``), one document at a time as a table and
a CSV."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
import streamlit as st

from rag_app.facts.stored import StoredFact
from rag_app.index.library import Library
from ui.i18n import TEXTS, t
from ui.render_hits import fitted_columns


def scale_text(fact: StoredFact) -> str:
    """The scale an amount is written in, in the user's language: % for a percentage, the
    word of its power of ten (万, 亿, 百万; thousand, million), else ""."""
    if fact.scale == "percent" or fact.unit in ("%", "％"):
        return t("scale_percent")
    key = f"scale_{fact.exponent}"
    return t(key) if fact.exponent and key in TEXTS else ""


def facts_table(facts: Sequence[StoredFact]) -> pd.DataFrame:
    """One row a fact: whose, which metric, period and column, the value as written, its unit
    and scale, and its table (caption and page)."""
    rows = []
    for fact in facts:
        page = t("page", page=min(fact.pages) + 1) if fact.pages else ""
        rows.append(
            {
                t("facts_subject"): fact.subject,
                t("facts_metric"): fact.metric,
                t("facts_period"): fact.period,
                t("facts_column"): fact.column,
                t("facts_value"): fact.value,
                t("facts_unit"): fact.unit,
                t("facts_scale"): scale_text(fact),
                t("facts_table"): " · ".join(p for p in (fact.caption, page) if p),
            }
        )
    return pd.DataFrame(rows, columns=[t(k) for k in _COLUMNS])


_COLUMNS = (
    "facts_subject", "facts_metric", "facts_period", "facts_column", "facts_value",
    "facts_unit", "facts_scale", "facts_table",
)  # fmt: skip


def render_facts(lib: Library, kb: str, names: dict[str, str], counts: dict[str, int]) -> None:
    """An expander with one document's facts (picked among those with any) and their CSV."""
    held = [d for d in names if counts.get(d)]
    if not held:
        return
    with st.expander(f"🔢 {t('facts_section', n=sum(counts.get(d, 0) for d in held))}"):
        st.caption(t("facts_caption"))
        doc_id = st.selectbox(
            t("facts_doc"),
            held,
            # the same in both languages: a label that changes with them loses the choice
            format_func=lambda d: f"{names.get(d, d)} · {counts[d]}",
            key=f"facts_doc_{kb}",
        )
        table = facts_table(lib.facts(kb, [doc_id]))
        text = [t(k) for k in _COLUMNS if k not in ("facts_value", "facts_scale")]
        st.dataframe(
            table, hide_index=True, width="stretch", column_config=fitted_columns(table, text)
        )
        st.download_button(
            t("facts_csv"),
            table.to_csv(index=False).encode("utf-8-sig"),
            file_name=f"facts_{doc_id}.csv",
            mime="text/csv",
            key=f"facts_csv_{kb}",
        )
