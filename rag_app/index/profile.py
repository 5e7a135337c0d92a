"""A document's profile, read off its chunks at ingest: what it is about (its subject), the
entities it names (with the tickers and other names the report gives them), the metrics it
reports (with units), the periods its tables cover, and its tables and figures by number and
caption. Like a term dictionary built at index time: derived from the document, no word list.

A table is read by its shape (``rag_app.text.tables``): periods across the columns make its row
labels metrics; periods down the first column make its column headers metrics; otherwise its
first column of distinct names holds entities and the other headers are metrics. A label's unit
is the bracketed tail it carries ("营业收入（百万元）", "同比（%）"), else its caption's.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass

from rag_app.facts.ranks import NUMERIC, SENTENCE, is_ordinal, is_period, name_column, periods_of
from rag_app.facts.rows import labelled_residual, labelled_total
from rag_app.models import Chunk
from rag_app.text.language import CJK_UNIFIED
from rag_app.text.periods import PERIOD_SPAN, RELATIVE_PERIOD
from rag_app.text.phrasing import content_references
from rag_app.text.spans import strip_modifiers
from rag_app.text.subjects import TICKER, subject_names
from rag_app.text.tables import Grid, TableTooLarge, column_labels, parse_table

# "营业收入（百万元）" -> ("营业收入", "百万元"); a bracketed tail of up to 8 characters.
_UNIT_TAIL = re.compile(r"^(.*?\S)\s*[（(]([^()（）]{1,8})[)）]\s*$")
# A listed company as reports write it: a name, then its ticker in brackets: "中芯国际（688981.SH）",
# "Orchestra BioMed (NASDAQ: OBIO)"; the exchange code is the data's own (SH, SZ, HK, NYSE...).
_TICKER = TICKER
_TICKER_ONLY = re.compile(TICKER)
_NAMED_TICKER = re.compile(
    rf"([{CJK_UNIFIED}]{{2,12}}|[A-Z][A-Za-z&.\-]*(?:\s+[A-Z][A-Za-z&.\-]*){{0,4}})\s*"
    rf"[（(]\s*((?:{_TICKER})(?:\s*[,，;；/、]\s*(?:{_TICKER}))*)\s*[)）]"
)
# A Chinese name with its Latin name in brackets: "中芯国际（SMIC）", "宁德时代（CATL）".
_LATIN_ALIAS = re.compile(
    rf"([{CJK_UNIFIED}]{{2,12}})[（(]([A-Z][A-Za-z&.\-]*(?:\s+[A-Z][A-Za-z&.\-]*){{0,5}})[)）]"
)
_CJK_START = re.compile(f"[{CJK_UNIFIED}]")


@dataclass(frozen=True)
class Entity:
    """A name the document gives, with its tickers and other names ("SMIC")."""

    name: str
    tickers: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True)
class Metric:
    """A quantity the document reports (a row label or column header), with its unit if given,
    or a term it defines."""

    name: str
    unit: str = ""
    alias: str = ""  # a defined term's other name: "CIS" of 图像传感器（CIS）


@dataclass(frozen=True)
class Exhibit:
    """A table or figure (``kind`` "table" / "image"): its number ("表3", "图1", "Figure 2"),
    caption and page (None when unknown)."""

    kind: str
    label: str
    caption: str
    page: int | None = None


@dataclass(frozen=True)
class DocumentProfile:
    """What one document (or, merged, a library) is about and mentions."""

    doc_id: str
    subject: str
    entities: tuple[Entity, ...] = ()
    metrics: tuple[Metric, ...] = ()
    periods: tuple[str, ...] = ()
    exhibits: tuple[Exhibit, ...] = ()

    @property
    def subject_names(self) -> tuple[str, ...]:
        """Its subject's names as ``profile_of`` read them (``text.subjects.subject_names``): the
        main one, then its tickers and other names; () when it names no subject."""
        if not self.subject:
            return ()
        own = next((e for e in self.entities if e.name == self.subject), None)
        return (own.name, *own.tickers, *own.aliases) if own else (self.subject,)

    @property
    def tables(self) -> tuple[Exhibit, ...]:
        return tuple(e for e in self.exhibits if e.kind == "table")

    @property
    def figures(self) -> tuple[Exhibit, ...]:
        return tuple(e for e in self.exhibits if e.kind == "image")


def profile_of(chunks: Sequence[Chunk]) -> DocumentProfile:
    """The profile of one document from its chunks, in their order."""
    doc_id = chunks[0].doc_id if chunks else ""
    names = subject_names(chunks)
    subject = names[0] if names else ""
    entities: dict[str, Entity] = {}
    if subject:
        tickers = tuple(n for n in names[1:] if _TICKER_ONLY.fullmatch(n))
        aliases = tuple(n for n in names[1:] if n not in tickers)
        entities[subject] = Entity(subject, tickers, aliases)
    metrics: dict[Metric, None] = {}
    periods: set[str] = set()
    exhibits: list[Exhibit] = []
    seen_tables: set[str] = set()
    texts = _texts(chunks)
    whole = "\n".join(texts)
    for text in texts:
        _named(text, entities, whole)
    for chunk in chunks:
        if chunk.type not in ("table", "image"):
            continue
        key = chunk.parent_table_id or chunk.chunk_id
        if key not in seen_tables:
            seen_tables.add(key)
            if chunk.caption or chunk.type == "table":
                ref = content_references(chunk.caption).get(chunk.type, "")
                label = ref if ref and chunk.caption.lstrip().startswith(ref) else ""
                exhibits.append(Exhibit(chunk.type, label, chunk.caption, chunk.page))
        periods.update(periods_of(chunk.caption))
        if chunk.type == "table" and chunk.table_html:
            try:
                grid = parse_table(chunk.table_html, chunk.header_rows)
            except TableTooLarge:
                continue
            _read_table(grid, _unit(chunk.caption)[1], entities, metrics, periods)
    _aliases(texts, entities, metrics)  # after the tables: their names are known by then
    return DocumentProfile(
        doc_id=doc_id,
        subject=subject,
        entities=tuple(entities.values()),
        metrics=tuple(metrics),
        periods=tuple(sorted(periods)),
        exhibits=tuple(exhibits),
    )


def merge_profiles(profiles: Iterable[DocumentProfile]) -> DocumentProfile:
    """The union of several documents' profiles (a library's): subjects joined by " / ",
    entities merged by name, metrics, periods and exhibits of every document."""
    subjects: dict[str, None] = {}
    entities: dict[str, Entity] = {}
    metrics: dict[Metric, None] = {}
    periods: set[str] = set()
    exhibits: list[Exhibit] = []
    for profile in profiles:
        if profile.subject:
            subjects[profile.subject] = None
        for entity in profile.entities:
            _add(entities, entity)
        metrics.update(dict.fromkeys(profile.metrics))
        periods.update(profile.periods)
        exhibits.extend(profile.exhibits)
    return DocumentProfile(
        "", " / ".join(subjects), tuple(entities.values()), tuple(metrics),
        tuple(sorted(periods)), tuple(exhibits),
    )  # fmt: skip


# How profiles are read: a stored profile of another version is read again from its document's
# chunks (``LibraryProfiles``), so a better reading reaches a library ingested before it.
# 2: a legal name's part before its form is a short name (嵘城银行 of 嵘城银行股份有限公司).
# 3: a column of tickers makes its rows companies, not metrics (可比公司估值); 本报告期 | 上年同期
# headers are periods, their rows metrics.
# 4: a Latin legal name in capitals or with "of" ("BANK OF RONGCHENG CO., LTD.") is read, and its
# part before the form is a name ("Bank of Rongcheng").
# 5: a title's leading name the document writes again anywhere (not only on its first page) is
# its subject (an industry report's 动力电池行业, not a company its first page names).
# 6: a title's company name ends at its legal form (not "…股份有限公司关于").
# 7: a name before its ticker is cut to a tail only where the document writes that tail alone
# (not 酒业 of 岳泉酒业); a column of tickers is read past a summary row spanning the first
# columns (平均值), that row a metric; a ranking's 合计 and 其他 rows are no entities.
# 8: a metric headed under its period in a table of periods across ("2024年 新业务价值率（%）")
# is a metric too, not only the row labels.
# 9: a row named by a period alone (a monthly table's 10月份) is no entity.
PROFILE_VERSION = 9


def profile_to_json(profile: DocumentProfile) -> str:
    return json.dumps({**asdict(profile), "version": PROFILE_VERSION}, ensure_ascii=False)


def profile_from_json(data: str) -> DocumentProfile:
    """A profile stored by ``profile_to_json``; raises ValueError / KeyError / TypeError when
    malformed or of another version."""
    raw = json.loads(data)
    if raw.get("version", 1) != PROFILE_VERSION:
        raise ValueError(f"a profile of version {raw.get('version', 1)}")
    return DocumentProfile(
        doc_id=raw["doc_id"],
        subject=raw["subject"],
        entities=tuple(
            Entity(e["name"], tuple(e["tickers"]), tuple(e["aliases"])) for e in raw["entities"]
        ),
        metrics=tuple(Metric(m["name"], m["unit"], m["alias"]) for m in raw["metrics"]),
        periods=tuple(raw["periods"]),
        exhibits=tuple(Exhibit(**e) for e in raw["exhibits"]),
    )


def period_range(periods: Sequence[str]) -> str:
    """ "2019q1–2026" for a sorted period list; "" when empty."""
    if not periods:
        return ""
    return periods[0] if len(periods) == 1 else f"{periods[0]}–{periods[-1]}"


# reading ----------------------------------------------------------------------------------------
def _texts(chunks: Sequence[Chunk]) -> list[str]:
    """The document's title and text, once each (a title repeats on every chunk)."""
    titles = {c.heading_path[0] for c in chunks if c.heading_path}
    return sorted(titles) + [c.text for c in chunks if c.type == "text"]


def _named(text: str, entities: dict[str, Entity], whole: str = "") -> None:
    for match in _NAMED_TICKER.finditer(text):
        tickers = tuple(t.strip() for t in re.split(r"[,，;；/、]", match.group(2)) if t.strip())
        _add(entities, Entity(_name_end(match.group(1).strip(), whole or text), tickers))


def _name_end(run: str, whole: str) -> str:
    """The name a run of Chinese characters ends with: the longest tail the document writes
    more often than the run, and somewhere as a name of its own, not the end of a longer one
    ("宁德时代" of "公司与宁德时代"; not "酒业" of "岳泉酒业" for 剑阳酒业's), else the run (a Latin
    name as is)."""
    if not _CJK_START.match(run):
        return run
    seen = whole.count(run)
    for start in range(1, len(run) - 1):
        tail = run[start:]
        if whole.count(tail) > seen and re.search(
            f"(?:^|[^{CJK_UNIFIED}]){re.escape(tail)}", whole
        ):
            return tail
    return run


def _aliases(texts: Sequence[str], entities: dict[str, Entity], terms: dict[Metric, None]) -> None:
    """A Chinese name with a Latin one in brackets: another name of an entity the document
    names elsewhere ("中芯国际（SMIC）"), else a term it defines ("图像传感器（CIS）")."""
    whole = "\n".join(texts)
    for text in texts:
        for match in _LATIN_ALIAS.finditer(text):
            name, latin = _name_end(match.group(1), whole), match.group(2).strip()
            if name in entities:
                _add(entities, Entity(name, (), (latin,)))
            else:
                terms[Metric(name, "", latin)] = None


def _add(entities: dict[str, Entity], entity: Entity) -> None:
    old = entities.get(entity.name)
    if old is None:
        entities[entity.name] = entity
        return
    entities[entity.name] = Entity(
        old.name,
        tuple(dict.fromkeys(old.tickers + entity.tickers)),
        tuple(dict.fromkeys(old.aliases + entity.aliases)),
    )


def _read_table(
    grid: Grid,
    caption_unit: str,
    entities: dict[str, Entity],
    metrics: dict[Metric, None],
    periods: set[str],
) -> None:
    if not grid.rows:
        return
    labels = column_labels(grid)
    rows = grid.data_rows
    firsts = [row[0].strip() for row in rows if row and row[0].strip()]
    header_periods = [periods_of(label) for label in labels]
    first_periods = [periods_of(cell) for cell in firsts]
    for found in header_periods + first_periods:
        periods.update(found)
    codes = _ticker_column(grid)
    if codes is not None:
        # a column of tickers (可比公司估值): the rows are companies, each with its ticker, and
        # the headers, their periods aside ("EPS（元） 2025E"), the metrics
        _companies(grid, codes, entities, metrics, caption_unit)
        for label in labels:
            name = " ".join(PERIOD_SPAN.sub(" ", label).split()) if periods_of(label) else ""
            if name and not SENTENCE.search(name):
                metrics[_metric(name, caption_unit)] = None
        return
    # 本报告期 | 上年同期: periods named from the report's own, columns of periods all the same
    relative = [bool(RELATIVE_PERIOD.fullmatch(label.strip())) for label in labels]
    across = sum(1 for p, r in zip(header_periods, relative, strict=True) if p or r)
    if across >= 2 or not grid.header_rows:
        # periods across (or a two-column fact sheet): the row labels are the metrics
        for cell in firsts:
            if not (periods_of(cell) or NUMERIC.match(cell) or SENTENCE.search(cell)) and not (
                RELATIVE_PERIOD.fullmatch(cell)
            ):
                metrics[_metric(cell, caption_unit)] = None
        for label, found in zip(labels, header_periods, strict=True):
            # a metric headed under its period ("2024年 新业务价值率（%）"): its words
            name = " ".join(PERIOD_SPAN.sub(" ", label).split()) if found else ""
            if _headed_metric(name):
                metrics[_metric(name, caption_unit)] = None
        return
    for c, label in enumerate(labels):
        # a column of values is a metric; a column of names or words (排名's, 厂商's) is not
        values = [row[c].strip() for row in rows if c < len(row) and row[c].strip()]
        numeric = 0 if is_ordinal(values) else sum(1 for v in values if NUMERIC.match(v))
        if (
            label
            and numeric * 2 > len(values)
            and not periods_of(label)
            and not relative[c]
            and not SENTENCE.search(label)
        ):
            metrics[_metric(label, caption_unit)] = None
    key = name_column(grid)
    if key is None:
        return
    for row in rows:
        cell = row[key].strip()
        if _NAMED_TICKER.search(cell):  # a name with its ticker in the cell: "华虹（1347.HK）"
            _named(cell, entities)
        elif cell and not (labelled_total(cell) or labelled_residual(cell) or is_period(cell)):
            _add(entities, Entity(cell))  # not 合计 or 其他 of a ranking, nor a month's row


def _headed_metric(name: str) -> bool:
    """Whether what a column header says besides its period names a metric: not what is left
    of a date (31日), not a quarter's own label (Q1), not a modifier alone (实际值, 预测值: which
    period, not what is measured), not a period named from the report's own (上年同期)."""
    core = _unit(name)[0]
    return (
        bool(core)
        and not any(ch.isdigit() for ch in core)
        and len(strip_modifiers(core).rstrip("值")) >= 2
        and not periods_of(core)
        and not RELATIVE_PERIOD.fullmatch(core)
        and not SENTENCE.search(core)
    )


def _ticker_column(grid: Grid) -> int | None:
    """The column whose data cells are all tickers (605376.SH, 9988.HK), None when none is."""
    rows = grid.data_rows
    for c in range(grid.n_cols):
        cells = [
            row[c].strip()
            for row in rows
            if c < len(row)
            and row[c].strip() not in ("", "—", "-")
            and not (c and row[c] == row[0])  # 平均值 spanning the row's first columns
        ]
        if len(cells) >= 2 and all(_TICKER_ONLY.fullmatch(cell) for cell in cells):
            return c
    return None


def _companies(
    grid: Grid, codes: int, entities: dict[str, Entity], metrics: dict[Metric, None], unit: str
) -> None:
    """Each row's name (its first cell that is not the ticker) as an entity with the row's
    ticker; a row with no ticker (可比公司平均, 平均值: what the rows come to) as a metric."""
    for row in grid.data_rows:
        name = next((cell.strip() for c, cell in enumerate(row) if c != codes and cell.strip()), "")
        code = row[codes].strip() if codes < len(row) else ""
        if name and _TICKER_ONLY.fullmatch(code):
            _add(entities, Entity(name, (code,)))
        elif name and not (NUMERIC.match(name) or SENTENCE.search(name)):
            metrics[_metric(name, unit)] = None


def _metric(label: str, caption_unit: str) -> Metric:
    name, unit = _unit(label)
    return Metric(name, unit or caption_unit)


def _unit(label: str) -> tuple[str, str]:
    match = _UNIT_TAIL.match(label.strip())
    if match is None:
        return label.strip(), ""
    return match.group(1), match.group(2).strip()
