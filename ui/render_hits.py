"""The retrieval trace as the Ask and Compare pages show it: smart mode's routing (the type
preferred, its confidence and cues), the hits per content type with every signal, the layers.

Smart mode searches every type, as hybrid does; a confident routing only ranks the preferred
type's hits first. What is drawn here says so: every type has its tab, the preferred one is
marked, and no line says one type only was searched.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd
import streamlit as st

from rag_app.models import Answer, Chunk, Hit, Reason, RetrievalTrace, Routing
from ui.i18n import (
    TEXTS,
    labelled,
    layer_reason,
    ms,
    reason_text,
    rewrite_note_text,
    strategy_label,
    t,
    type_label,
)
from ui.sanitize import escape_label

TYPE_ICONS = {"text": "📝", "table": "📊", "image": "🖼️", "qa": "💬"}
HIT_TABS = ("text", "table", "image", "qa")


def chunk_title(chunk: Chunk, limit: int = 36) -> str:
    title = chunk.caption or (chunk.heading_path[-1] if chunk.heading_path else "") or chunk.text
    title = " ".join(title.split())
    return title if len(title) <= limit else title[: limit - 1] + "…"


def display_units(text: str) -> int:
    """``text``'s width in narrow characters (a wide one, as in Chinese, counts two)."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


# The widest a text column gets: the longest text a table shows (a 60-character title of wide
# characters, ~940 px) whole. The grid offers no tooltip on a cell, so a cut cell would be read
# only by double-clicking it.
MAX_TEXT_PX = 1000


def text_width(texts: Sequence[str], least: int = 60, most: int = MAX_TEXT_PX) -> int:
    """Pixels a table column needs to show the longest of ``texts`` whole (at the grid's
    14 px font, a narrow character ~7.6 px), within ``least`` and ``most``."""
    units = max((display_units(str(text)) for text in texts), default=0)
    return max(least, min(most, round(units * 7.6) + 28))


def fitted_columns(
    frame: pd.DataFrame, names: Sequence[str], helps: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """Column settings sizing the text columns ``names`` of ``frame`` to their content (the
    table scrolls sideways rather than cut a cell short), with a header's help when given."""
    helps = helps or {}
    return {
        name: st.column_config.TextColumn(
            name, width=text_width([name, *frame[name]]), help=helps.get(name)
        )
        for name in names
        if name in frame.columns
    }


def signal_label(name: str) -> str:
    """A hit signal's column label (``smart_fused`` -> 智能融合（偏好）); an unknown one as is."""
    key = f"signal_{name}"
    return t(key) if key in TEXTS else name


def why_text(reason: Reason) -> str:
    """A note the core gives as a key and values (``Hit.why``, ``RetrievalTrace.why``) in the
    user's language, its types, layers and rewrites named by their labels; "" for a key without
    a wording."""
    if reason.key not in TEXTS:
        return ""
    values = dict(reason.values)
    if "type" in values:
        values["type"] = type_label(values["type"])
    for name in ("layer", "by", "kinds"):
        if name in values:
            values[name] = strategy_label(values[name])
    if "kind" in values and f"expansion_{values['kind']}" in TEXTS:
        values["kind"] = t(f"expansion_{values['kind']}")
    if "error" in values:
        values["error"] = rewrite_note_text(values["error"])
    return t(reason.key, **values)


def hit_note(hit: Hit) -> str:
    """A hit's note (which layer found it, what moved it) in the user's language; the core's
    English note when it gives no keys (a turn saved before they existed)."""
    words = [why_text(reason) for reason in hit.why]
    if not words or not all(words):
        return hit.note
    return t("note_separator").join(words)


def trace_notes(trace: RetrievalTrace) -> list[str]:
    """The trace's notes in the user's language (the core's English where it gives no key)."""
    if len(trace.why) != len(trace.notes):
        return list(trace.notes)
    return [why_text(why) or note for note, why in zip(trace.notes, trace.why, strict=True)]


_CUE = re.compile(r"(text|table|image|qa)([:~])(.+)", re.S)


def cue_text(cue: str) -> str:
    """A routing cue (``Routing.evidence``: ``table:表6`` a table named, ``table~产能`` a word
    hinting at tables, ``image:caption「…」`` a caption matched) in the user's language."""
    found = _CUE.fullmatch(cue)
    if found is None:
        return cue
    kind, mark, word = found.groups()
    key = "cue_hint" if mark == "~" else "cue_named"
    if mark == ":" and word.startswith("caption「") and word.endswith("」"):
        key, word = "cue_caption", word.removeprefix("caption「").removesuffix("」")
    return t(key, type=type_label(kind), word=word)


def preferred_type(routing: Routing | None) -> str | None:
    """The type smart mode ranked first, or None when it set no preference."""
    return routing.detected_type if routing is not None and routing.single_type else None


def _signal_cell(hit: Hit, name: str) -> str:
    signal = hit.signal(name)
    if signal is None:
        return ""
    return f"{signal.score:.3f}" + (f" (#{signal.rank})" if signal.rank else "")


def hits_frame(
    hits: Sequence[Hit], doc_names: Mapping[str, str], in_prompt: Mapping[str, int]
) -> pd.DataFrame:
    names = sorted({name for hit in hits for name, _ in hit.signals})
    rows = []
    for hit in hits:
        chunk = hit.chunk
        row = {
            t("col_rank"): hit.rank,
            t("col_score"): round(hit.score, 4),
            t("col_in_prompt"): t("source_marker", n=in_prompt[chunk.chunk_id])
            if chunk.chunk_id in in_prompt
            else "",
            t("col_doc"): doc_names.get(chunk.doc_id, chunk.doc_id),
            t("col_page"): ", ".join(str(p + 1) for p in chunk.pages),
            t("col_strategy"): strategy_label(hit.strategy),
            t("col_note"): hit_note(hit),
        }
        for name in names:
            row[signal_label(name)] = _signal_cell(hit, name)
        row[t("col_preview")] = chunk_title(chunk, 60)
        rows.append(row)
    return pd.DataFrame(rows)


def _in_prompt(answer: Answer) -> dict[str, int]:
    out: dict[str, int] = {}
    for source in answer.prompt.sources if answer.prompt is not None else ():
        out[source.hit.chunk.chunk_id] = source.number
        for part in source.parts:
            out.setdefault(part.chunk.chunk_id, source.number)
    return out


def routing_line(routing: Routing) -> str:
    """The routing as one Markdown line: the type detected, its confidence, the cues behind it
    and what was done (preferred, every type still searched; or no preference, as hybrid)."""
    cues = " ".join(f"`{cue_text(e).replace('`', '')}`" for e in routing.evidence)
    return t(
        "routing_decision",
        type=type_label(routing.detected_type),
        confidence=routing.confidence,
        cues=labelled("routing_evidence", cues or t("routing_none")),
        scope=t("routing_single") if routing.single_type else t("routing_all"),
    )


def render_routing(trace: RetrievalTrace) -> None:
    routing = trace.routing
    if trace.mode != "smart" or routing is None:
        st.caption("🔀 " + t("routing_hybrid"))
        return
    st.markdown("🧭 " + routing_line(routing))
    scores = " · ".join(f"{type_label(k)} {v:.2f}" for k, v in routing.scores)
    reason = escape_label(reason_text((routing.why,), routing.reason))
    st.caption(labelled("routing_scores", scores) + "  \n" + labelled("routing_reason", reason))


def hit_tab_label(kind: str, count: int, preferred: str | None) -> str:
    name = t("tab_preferred", type=type_label(kind)) if kind == preferred else type_label(kind)
    return f"{TYPE_ICONS[kind]} {name} ({count})"


def searched_line(trace: RetrievalTrace, kinds: Sequence[str]) -> str:
    """What was searched: every type, smart and hybrid alike; the preferred one said."""
    line = t("hits_searched", types=t("list_separator").join(type_label(k) for k in kinds))
    preferred = preferred_type(trace.routing) if trace.mode == "smart" else None
    if preferred:
        line += t("reason_separator") + t("hits_preferred", type=type_label(preferred))
    return line


def render_hits(answer: Answer, doc_names: Mapping[str, str]) -> None:
    trace = answer.retrieval
    in_prompt = _in_prompt(answer)
    present = [k for k in HIT_TABS if k != "qa" or trace.by_type("qa")]
    preferred = preferred_type(trace.routing) if trace.mode == "smart" else None
    labels = [hit_tab_label(k, len(trace.by_type(k)), preferred) for k in present]
    busiest = max(range(len(present)), key=lambda i: len(trace.by_type(present[i])))
    first = present.index(preferred) if preferred in present else busiest
    st.caption(searched_line(trace, present))
    tabs = st.tabs(labels + ["🪜 " + t("layers")], default=labels[first])
    for tab, kind in zip(tabs, present, strict=False):
        with tab:
            hits = trace.by_type(kind)
            if not hits:
                st.caption(t("hits_none"))
                continue
            frame = hits_frame(hits, doc_names, in_prompt)
            text_columns = ("col_doc", "col_strategy", "col_note", "col_preview")
            st.dataframe(
                frame,
                hide_index=True,
                width="stretch",
                column_config=fitted_columns(frame, [t(c) for c in text_columns]),
            )
    with tabs[-1]:
        if trace.layers:
            layers = pd.DataFrame(
                [
                    {
                        t("col_type"): type_label(step.type),
                        t("col_layer"): strategy_label(step.layer),
                        t("col_threshold"): step.threshold,
                        t("col_found"): step.found,
                        t("col_total"): step.total,
                        t("col_ran"): t("yes") if step.ran else t("no"),
                        t("col_reason"): layer_reason(step),
                    }
                    for step in trace.layers
                ]
            )
            st.dataframe(
                layers,
                hide_index=True,
                width="stretch",
                column_config=fitted_columns(layers, (t("col_layer"), t("col_reason"))),
            )
        extra = []
        if trace.expanded_terms:
            extra.append(labelled("expanded_terms", t("list_separator").join(trace.expanded_terms)))
        if trace.notes:
            notes = t("note_separator").join(trace_notes(trace))
            extra.append(labelled("trace_notes", notes))
        extra.append(labelled("retrieve_ms", ms(trace.ms)))
        st.caption("  \n".join(escape_label(line) for line in extra))


def render_retrieval(answer: Answer, doc_names: Mapping[str, str]) -> None:
    with st.expander(f"🔎 {t('retrieval_details')}", expanded=False):
        render_routing(answer.retrieval)
        render_expansions(answer.retrieval)
        render_hits(answer, doc_names)


def render_expansions(trace: RetrievalTrace) -> None:
    """The queries model rewrites added (multi-query, HyDE, sub-questions), with what each
    brought, and the rewrites that failed."""
    for expansion in trace.expansions:
        st.caption(
            f"➕ {t('expansion_' + expansion.kind)}: {escape_label(expansion.query)} · "
            + t("expansion_added", n=len(expansion.added))
        )
    failed = [why_text(why) for why in trace.why if why.key == "note_rewrite_failed"] or (
        [n for n in trace.notes if "failed" in n] if not trace.why else []
    )
    for note in failed:
        st.caption(f"⚠️ {escape_label(note)}")
