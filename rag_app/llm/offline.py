"""The offline answerer: quotes the best-matching sentences of the sources, honestly labelled.

Used when no language model is configured. It never writes anything of its own beyond a notice:
the answer is 2-4 sentences (or table rows, or figure descriptions) copied from the top sources,
each followed by its ``[Source N]``, chosen by weighted term overlap with the question. If no
sentence shares a term with the question it says the sources do not contain the answer.

Scoring, per candidate sentence ``s`` and question terms ``T``:
``sum(idf(t) * w(t) for t in T if t in s)`` with ``idf`` computed over all candidate sentences
(terms found everywhere, like a table's header, count little), ``w`` 1 for words and 0.3 for
Chinese character bigrams (a fallback when jieba cuts the question and the text differently),
plus bonuses for numbers, for table rows whose first cell is named in the question, and for
terms in the chunk's caption or heading path.
"""

from __future__ import annotations

import logging
import math
import re
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from html.parser import HTMLParser

from rag_app.llm.base import LLMEvent, split_stream_pieces
from rag_app.models import Chunk

NOTICE = {
    "zh": "（离线抽取式回答：未配置大模型，以下句子直接摘自参考资料）",
    "en": (
        "(Offline extractive answer: no language model is configured; the sentences below are "
        "quoted from the sources.)"
    ),
}
NOT_FOUND = {
    "zh": "参考资料中未找到相关信息。",
    "en": "The sources do not contain the answer.",
}

# Weight of a CJK character bigram relative to a jieba word: bigrams only rescue matches the
# word segmentation missed, so they should not outvote real word matches.
BIGRAM_WEIGHT = 0.3
# Bonuses, as fractions of the largest idf among the question's terms (so they scale with it).
FIRST_CELL_BONUS = 1.0  # a table row whose label (first cell) the question names
NUMBER_BONUS = 0.25  # research questions mostly ask for figures
CONTEXT_WEIGHT = 0.3  # question terms in the chunk's caption / heading path / intro paragraph
# Beyond ``min_sentences``, a sentence joins the answer only if it scores at least this fraction
# of the best one: tuned by hand on the tests' report snippets so a row that merely shares the
# column header with the answer row stays out.
RELATIVE_CUTOFF = 0.5
# Sentences longer than this are cut (with an ellipsis) so one run-on paragraph cannot fill the
# answer; about three lines of Chinese in the UI.
MAX_SENTENCE_CHARS = 220
MAX_SPAN = 50  # colspan/rowspan beyond this is treated as a parser error

_CJK_CHAR = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_CJK_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
_WORDISH = re.compile(r"[0-9A-Za-z\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_DIGIT = re.compile(r"\d")
# Sentence ends: Chinese and full-width marks, newlines, and ". ! ? ;" followed by a space
# (so "3.5" and "U.S.A" stay whole).
_SENTENCE_END = re.compile(r"(?<=[。！？；!?;])|(?<=[.](?=\s))|\n+")
_MARKDOWN_NOISE = re.compile(r"^\s*(?:#{1,6}\s+|[-*+]\s+|\d+[.)]\s+|>\s*)")

# Function words and question words that say nothing about where the answer is.
_ZH_STOP = frozenset(
    "的 了 和 与 及 或 是 在 有 对 为 之 等 也 都 这 那 其 吗 呢 吧 啊 被 将 把 从 到 由 以 于 "
    "多少 什么 哪些 哪个 哪家 哪里 如何 怎么 怎样 为什么 是否 请问 一下 介绍 说明 分别 "
    "主要 情况 相关 以及 通过 进行 我们 你们 他们 这个 那个 这些 那些 可以 能否 根据".split()
)
_EN_STOP = frozenset(
    "a an the of in on at to for from by with and or is are was were be been being do does did "
    "what which who whom whose when where why how much many about into than that this these "
    "those it its as per vs can could would should will shall may might please tell me give "
    "show list there their they them we our you your i".split()
)
# Characters that make a Chinese bigram uninformative ("的产", "是多").
_ZH_STOP_CHARS = frozenset("的了和与及或是在有对为之等也都这那其吗呢吧啊被将把从到由以于个")

_jieba_lock = threading.Lock()
_jieba_ready = False


def _cut(text: str) -> list[str]:
    global _jieba_ready
    import jieba  # lazily: building its dictionary takes about 0.6 s the first time

    if not _jieba_ready:
        with _jieba_lock:
            if not _jieba_ready:
                jieba.setLogLevel(logging.WARNING)
                jieba.initialize()
                _jieba_ready = True
    return jieba.lcut_for_search(text)


def _stem(word: str) -> str:
    # Just enough English normalisation for "revenues" ~ "revenue", "margins" ~ "margin".
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def tokenize(text: str) -> tuple[set[str], set[str]]:
    """(words, bigrams) of ``text``: jieba search-mode words (Chinese of 2+ characters, English
    words lower-cased and lightly stemmed, numbers) without stopwords, and Chinese character
    bigrams without function characters."""
    words: set[str] = set()
    for token in _cut(text):
        token = token.strip().lower()
        if not token or not _WORDISH.search(token):
            continue
        if _CJK_CHAR.search(token):
            if len(token) >= 2 and token not in _ZH_STOP:
                words.add(token)
        elif token not in _EN_STOP:
            words.add(_stem(token))
    from rag_app.index.keywords import period_tokens

    words.update(period_tokens(text))  # 2024年第二季度 meets a row labelled 2024Q2
    bigrams: set[str] = set()
    for run in _CJK_RUN.findall(text):
        for i in range(len(run) - 1):
            pair = run[i : i + 2]
            if pair[0] not in _ZH_STOP_CHARS and pair[1] not in _ZH_STOP_CHARS:
                bigrams.add(pair)
    bigrams -= _ZH_STOP
    return words, bigrams


# -- tables --------------------------------------------------------------------------------------


@dataclass
class _Cell:
    text: str = ""
    header: bool = False
    colspan: int = 1
    rowspan: int = 1


@dataclass
class _Row:
    cells: list[_Cell] = field(default_factory=list)
    in_head: bool = False


class _TableParser(HTMLParser):
    """Collects the rows and cells of the first table level (nested tables become text)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.rows: list[_Row] = []
        self._cell: _Cell | None = None
        self._row: _Row | None = None
        self._in_head = False
        self._depth = 0
        self._skip = 0  # inside <script>/<style>: not cell text

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style"):
            self._skip += 1
            return
        if tag == "table":
            self._depth += 1
        if self._depth > 1:
            if tag in ("td", "th", "br", "tr") and self._cell is not None:
                self._cell.text += " "
            return
        if tag == "thead":
            self._in_head = True
        elif tag == "tr":
            self._close_row()
            self._row = _Row(in_head=self._in_head)
        elif tag in ("td", "th"):
            self._close_cell()
            if self._row is None:
                self._row = _Row(in_head=self._in_head)
            values = dict(attrs)
            self._cell = _Cell(
                header=tag == "th",
                colspan=_span(values.get("colspan")),
                rowspan=_span(values.get("rowspan")),
            )
        elif tag == "br" and self._cell is not None:
            self._cell.text += " "

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style"):
            self._skip = max(0, self._skip - 1)
            return
        if tag == "table":
            self._depth -= 1
            if self._depth == 0:
                self._close_row()
            return
        if self._depth > 1:
            return
        if tag in ("td", "th"):
            self._close_cell()
        elif tag == "tr":
            self._close_row()
        elif tag == "thead":
            self._close_row()
            self._in_head = False

    def handle_data(self, data: str) -> None:
        if self._cell is not None and not self._skip:
            self._cell.text += data

    def close(self) -> None:
        super().close()
        self._close_row()

    def _close_cell(self) -> None:
        if self._cell is not None and self._row is not None:
            self._cell.text = " ".join(self._cell.text.split())
            self._row.cells.append(self._cell)
        self._cell = None

    def _close_row(self) -> None:
        self._close_cell()
        if self._row is not None and self._row.cells:
            self.rows.append(self._row)
        self._row = None


def _span(value: str | None) -> int:
    try:
        return min(max(int(str(value).strip()), 1), MAX_SPAN)
    except ValueError:
        return 1


@dataclass(frozen=True)
class TableGrid:
    """A table laid out on a grid: ``cells[r][c]`` is ``(cell_id, text)``; a merged cell repeats
    its id and text over every position it covers. ``header_rows`` leading rows are headers."""

    cells: tuple[tuple[tuple[int, str], ...], ...]
    header_rows: int

    @property
    def n_cols(self) -> int:
        return max((len(row) for row in self.cells), default=0)

    def column_labels(self) -> list[str]:
        """Per column, its header cells top to bottom joined with " / " (merged cells once)."""
        labels = []
        for c in range(self.n_cols):
            parts: list[str] = []
            seen: set[int] = set()
            for r in range(self.header_rows):
                cell_id, text = self.cells[r][c] if c < len(self.cells[r]) else (-1, "")
                if text and cell_id not in seen and text not in parts:
                    parts.append(text)
                seen.add(cell_id)
            labels.append(" / ".join(parts))
        return labels

    def body_rows(self) -> list[tuple[str, str]]:
        """(first cell, "header1: value1; header2: value2") for every body row."""
        labels = self.column_labels()
        rows = []
        for r in range(self.header_rows, len(self.cells)):
            row = self.cells[r]
            parts: list[str] = []
            last_id = None
            for c, (cell_id, text) in enumerate(row):
                if cell_id == last_id:
                    continue  # the rest of a cell merged across columns
                last_id = cell_id
                if not text:
                    continue
                label = labels[c] if c < len(labels) else ""
                parts.append(f"{label}: {text}" if label and label != text else text)
            if parts:
                first = next((text for _, text in row if text), "")
                rows.append((first, "; ".join(parts)))
        return rows


def parse_table(html: str, header_rows: int = 0) -> TableGrid:
    """Lay out an HTML table on a grid, expanding colspan and rowspan.

    ``header_rows`` is how many leading rows are headers; 0 means unknown, and then the leading
    rows in ``<thead>`` or made only of ``<th>`` cells are taken as headers.
    """
    parser = _TableParser()
    parser.feed(html)
    parser.close()
    rows = parser.rows

    grid: dict[tuple[int, int], tuple[int, str]] = {}
    cell_id = 0
    for r, row in enumerate(rows):
        c = 0
        for cell in row.cells:
            while (r, c) in grid:
                c += 1
            for dr in range(min(cell.rowspan, len(rows) - r)):
                for dc in range(cell.colspan):
                    grid.setdefault((r + dr, c + dc), (cell_id, cell.text))
            c += cell.colspan
            cell_id += 1
    n_cols = max((c + 1 for _, c in grid), default=0)
    cells = tuple(
        tuple(grid.get((r, c), (-1 - r * n_cols - c, "")) for c in range(n_cols))
        for r in range(len(rows))
    )
    if header_rows <= 0:
        header_rows = 0
        for row in rows:
            if row.in_head or all(cell.header for cell in row.cells):
                header_rows += 1
            else:
                break
    # A table that is all header has no rows to answer from; keep its last row as body.
    header_rows = min(header_rows, max(len(rows) - 1, 0))
    return TableGrid(cells, header_rows)


# -- candidates ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Candidate:
    """A sentence, table row or figure description that may be quoted."""

    source: int  # the N of [Source N]
    order: int  # position of its source in the list, then within the source (tie-break)
    text: str
    words: frozenset[str]
    bigrams: frozenset[str]
    context: frozenset[str] = frozenset()  # caption, heading path, intro paragraph words
    row_label: str = ""  # a table row's first cell


def split_sentences(text: str) -> list[str]:
    """Sentences of ``text``, with Markdown list/heading markers removed."""
    out = []
    for part in _SENTENCE_END.split(text):
        part = _MARKDOWN_NOISE.sub("", part or "").strip()
        if len(part) >= 4 and _WORDISH.search(part):
            out.append(_clip(part))
    return out


def _clip(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_SENTENCE_CHARS else text[: MAX_SENTENCE_CHARS - 1] + "…"


def chunk_candidates(number: int, rank: int, chunk: Chunk) -> list[Candidate]:
    """The quotable units of one chunk: table rows, figure caption/description sentences, or
    text sentences."""
    context_text = " ".join([*chunk.heading_path, chunk.caption, chunk.context])
    context = frozenset(tokenize(context_text)[0]) if context_text.strip() else frozenset()
    units: list[tuple[str, str]] = []  # (text, row label)
    if chunk.type == "table" and chunk.table_html:
        # Rows only: a caption alone answers nothing; it still counts as context for its rows.
        units = [
            (_clip(text), label)
            for label, text in parse_table(chunk.table_html, chunk.header_rows).body_rows()
        ]
    elif chunk.type == "image":
        description = split_sentences(chunk.description)
        caption = _clip(chunk.caption.strip())
        if caption and description:
            # The caption says what the figure is; prefix it to the first description sentence.
            description[0] = _clip(f"{caption}：{description[0]}")
        units = [(s, "") for s in description] or ([(caption, "")] if caption else [])
    if not units:
        units = [(s, "") for s in split_sentences(chunk.text)]
    out = []
    for i, (text, label) in enumerate(units):
        words, bigrams = tokenize(text)
        out.append(
            Candidate(
                number,
                rank * 10_000 + i,
                text,
                frozenset(words),
                frozenset(bigrams),
                context,
                label,
            )
        )
    return out


# -- the answerer --------------------------------------------------------------------------------


@dataclass(frozen=True)
class ScoredSentence:
    candidate: Candidate
    score: float
    matched: tuple[str, ...]


class ExtractiveAnswerer:
    """Answers by quoting the sources; needs no model and no network.

    ``max_sentences`` (2-4) bounds the answer; ``min_sentences`` sentences are given when that
    many share a term with the question. ``piece_chars`` sets the size of streamed pieces.
    """

    name = "offline-extractive"

    def __init__(
        self, max_sentences: int = 3, min_sentences: int = 2, piece_chars: int = 4
    ) -> None:
        if not 1 <= min_sentences <= max_sentences:
            raise ValueError("need 1 <= min_sentences <= max_sentences")
        self.max_sentences = max_sentences
        self.min_sentences = min_sentences
        self.piece_chars = piece_chars

    def select(self, question: str, sources: Sequence[tuple[int, Chunk]]) -> list[ScoredSentence]:
        """The sentences the answer quotes, best first (empty when none overlaps the question)."""
        q_words, q_bigrams = tokenize(question)
        q_bigrams -= q_words  # a two-character word is counted once, as a word
        if not q_words and not q_bigrams:
            return []
        candidates = [
            cand
            for rank, (number, chunk) in enumerate(sources)
            for cand in chunk_candidates(number, rank, chunk)
        ]
        if not candidates:
            return []
        idf = _idf(candidates, q_words | q_bigrams)
        top_idf = max(idf.values(), default=1.0)
        question_lower = question.lower()

        scored: list[ScoredSentence] = []
        for cand in candidates:
            matched_words = sorted(q_words & cand.words)
            matched_bigrams = sorted(q_bigrams & cand.bigrams)
            # Enough overlap to quote: a shared word, or two shared bigrams (a name jieba cut
            # differently in the question and in the text).
            if not matched_words and len(matched_bigrams) < 2:
                continue
            score = sum(idf[t] for t in matched_words)
            score += BIGRAM_WEIGHT * sum(idf[t] for t in matched_bigrams)
            score += CONTEXT_WEIGHT * sum(idf.get(t, 0.0) for t in q_words & cand.context)
            if cand.row_label and _label_named(cand.row_label, question_lower, q_words):
                score += FIRST_CELL_BONUS * top_idf
            if _DIGIT.search(cand.text):
                score += NUMBER_BONUS * top_idf
            scored.append(ScoredSentence(cand, score, tuple(matched_words + matched_bigrams)))
        if not scored:
            return []
        scored.sort(key=lambda s: (-s.score, s.candidate.order))

        best = scored[0].score
        chosen: list[ScoredSentence] = []
        for item in scored:
            if len(chosen) >= self.max_sentences:
                break
            if len(chosen) >= self.min_sentences and item.score < RELATIVE_CUTOFF * best:
                break
            if any(_same_text(item.candidate.text, c.candidate.text) for c in chosen):
                continue
            chosen.append(item)
        return chosen

    def answer_text(
        self, question: str, sources: Sequence[tuple[int, Chunk]], lang: str = "zh"
    ) -> str:
        """The whole answer ``stream`` would send, as one string."""
        lang = "en" if lang == "en" else "zh"
        chosen = self.select(question, sources)
        if not chosen:
            body = NOT_FOUND[lang]
        else:
            body = "\n".join(f"- {s.candidate.text} [Source {s.candidate.source}]" for s in chosen)
        return f"{NOTICE[lang]}\n\n{body}"

    def stream(
        self, question: str, sources: Sequence[tuple[int, Chunk]], lang: str = "zh"
    ) -> Iterator[LLMEvent]:
        """Stream an extractive answer to ``question`` from ``sources`` ((N, chunk) pairs, N
        being the number cited as ``[Source N]``): ``token`` events, then ``done``.

        ``lang`` ("zh" or "en") picks the language of the notice and of the not-found message;
        quoted sentences stay in the language of the sources. Deterministic.
        """
        text = self.answer_text(question, sources, lang)
        for piece in split_stream_pieces(text, self.piece_chars):
            yield LLMEvent.token(piece)
        yield LLMEvent.done("stop")


def _idf(candidates: Sequence[Candidate], terms: set[str]) -> dict[str, float]:
    n = len(candidates)
    idf = {}
    for term in terms:
        df = sum(1 for c in candidates if term in c.words or term in c.bigrams)
        # BM25's idf, kept positive: a term in every sentence still counts a little.
        idf[term] = math.log(1.0 + (n - df + 0.5) / (df + 0.5))
    return idf


def _label_named(label: str, question_lower: str, q_words: set[str]) -> bool:
    label_lower = label.strip().lower()
    if len(label_lower) >= 2 and label_lower in question_lower:
        return True
    label_words = tokenize(label)[0]
    return bool(label_words) and label_words <= q_words


def _same_text(a: str, b: str) -> bool:
    return a == b or a in b or b in a
