"""Retrieval evaluation on question sets with gold evidence (format of ../shared/eval).

A retrieved chunk is a hit when it belongs to the question's document and was built from at
least one of the question's ``gold_item_indices``. Scope ``doc`` restricts candidates to that
document (a user asking about the report they uploaded); ``pooled`` searches everything.
"""

from __future__ import annotations

import html
import json
import re
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from rag_app.evaluation.answers import AnswerScores
from rag_app.evaluation.routing import gold_types, routing_summary
from rag_app.index.library import Library
from rag_app.models import Chunk, Hit, Progress, SearchFilter
from rag_app.prompt import PromptSettings, build_prompt
from rag_app.protocols import Embedder
from rag_app.retrieve import Retriever, make_retriever
from rag_app.retrieve.subjects import company_names_by_document
from rag_app.understand.analysis import QueryAnalysis, analyse_query


@dataclass(frozen=True)
class Question:
    id: str
    question: str
    doc_id: str
    gold: frozenset[int]
    answers: tuple[str, ...]
    answer_type: str
    lang: str
    # Questions naming several documents (broker_eval's questions_multi.jsonl): the gold items
    # of every other document, which must all be found too.
    other_gold: tuple[tuple[str, frozenset[int]], ...] = ()
    # Arithmetic questions (TAT-QA): how the answer is computed, "(44.1-56.7)/56.7".
    derivation: str = ""
    # A follow-up's conversation, chat messages oldest first as (role, content): retrieval
    # works on the question made standalone from it, as the chat does.
    history: tuple[tuple[str, str], ...] = ()
    # The same question written out whole (follow-up sets), for the "written out" comparison.
    written_out: str = ""
    # False for a question the library cannot answer (answerability sets): it should be
    # declined, and it counts in no retrieval metric.
    answerable: bool = True
    # The content types of the gold items (where the answer is): smart mode's routing is right
    # when it prefers one of them.
    gold_types: tuple[str, ...] = ()
    # The scale of a numeric gold answer (TAT-QA: "", thousand, million, billion, percent).
    scale: str = ""

    @property
    def earlier_questions(self) -> list[str]:
        return [content for role, content in self.history if role == "user"]

    @property
    def doc_ids(self) -> tuple[str, ...]:
        return (self.doc_id, *(doc for doc, _ in self.other_gold))


def load_questions(path: Path) -> list[Question]:
    """Read a questions.jsonl file; raises ValueError naming the line of a malformed row."""
    out = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            answers = row.get("answer")
            if not isinstance(answers, list):
                answers = [] if answers is None else [answers]
            out.append(
                Question(
                    id=str(row["id"]),
                    question=str(row["question"]),
                    doc_id=str(row["doc_id"]),
                    gold=frozenset(int(i) for i in row["gold_item_indices"]),
                    answers=tuple(str(a) for a in (answers or [])),
                    answer_type=str(row.get("answer_type", "")),
                    lang=str(row.get("lang", "")),
                    other_gold=tuple(
                        (str(g["doc_id"]), frozenset(int(i) for i in g["gold_item_indices"]))
                        for g in row.get("gold_docs", [])
                        if str(g["doc_id"]) != str(row["doc_id"])
                    ),
                    derivation=str(row.get("derivation") or ""),
                    history=_history(row.get("history")),
                    written_out=str(row.get("written_out") or ""),
                    answerable=bool(row.get("answerable", True)),
                    gold_types=tuple(sorted({str(t) for t in row.get("gold_item_types", ())})),
                    scale=str(row.get("scale") or ""),
                )
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"{path}:{n}: not a question row ({exc})") from None
    return out


def _history(raw: object) -> tuple[tuple[str, str], ...]:
    """A row's ``history``: a list of ``{"role": "user" | "assistant", "content": str}``."""
    if raw in (None, ""):
        return ()
    if not isinstance(raw, list):
        raise ValueError("history is not a list of chat messages")
    out = []
    for message in raw:
        if not isinstance(message, dict) or message.get("role") not in ("user", "assistant"):
            raise ValueError("history messages need a role of user or assistant")
        out.append((str(message["role"]), str(message.get("content") or "")))
    return tuple(out)


def find_documents(folders: Iterable[Path]) -> list[Path]:
    files: list[Path] = []
    for folder in folders:
        if folder.is_file():
            files.append(folder)
        else:
            files.extend(sorted(folder.rglob("*.json")))
    return files


def _first_rank(hits: Sequence[Hit], doc_id: str, gold: frozenset[int]) -> int | None:
    for rank, hit in enumerate(hits, start=1):
        if hit.chunk.doc_id == doc_id and gold & set(hit.chunk.item_indices):
            return rank
    return None


def first_hit_rank(hits: Sequence[Hit], question: Question) -> int | None:
    """Rank of the first gold hit; for a question naming several documents, the rank by which
    each of them has had a gold hit (None if one never does)."""
    ranks = [_first_rank(hits, question.doc_id, question.gold)]
    ranks += [_first_rank(hits, doc, gold) for doc, gold in question.other_gold]
    if any(r is None for r in ranks):
        return None
    return max(r for r in ranks if r is not None)


def _share(flags: Sequence[bool]) -> float | None:
    return round(sum(flags) / len(flags), 4) if flags else None


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q`` quantile of ``values``, interpolated between the nearest two (0 for none)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    position = (len(ordered) - 1) * q
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


_TAG = re.compile(r"<[^>]+>")
_CURRENCY_GAP = re.compile(r"([$€£¥￥]) (?=[\d(-])")


def answer_in_context(question: Question, context: str) -> bool | None:
    """For span answers: is every gold answer string inside the context (None otherwise)?

    Compared without case and with white space folded (TAT-QA answers often capitalise the
    first word of a span: "By comparison ..." for "... was determined by comparison ..."),
    against the context as sent and with table tags stripped (a cell's text stands alone).
    """
    if question.answer_type not in ("span", "multi-span") or not question.answers:
        return None

    def fold(text: str) -> str:
        # "$ 8,455" in a table (symbol and number in one cell or two) is the answer "$8,455"
        return _CURRENCY_GAP.sub(r"\1", " ".join(text.split()).casefold())

    plain = fold(html.unescape(_TAG.sub(" ", context)))
    flat = fold(context)
    answers = [fold(a) for a in question.answers]
    return all(a in flat or a in plain for a in answers)


_OPERAND = re.compile(r"\d[\d,]*(?:\.\d+)?")


def operands_in_context(question: Question, context: str) -> bool | None:
    """For arithmetic answers: is every number the derivation computes with in the context (None
    for other questions)? Numbers are compared without thousands commas; the constants of a
    percentage or an average (100, 2, 3, 4, 12) are not asked for."""
    if question.answer_type != "arithmetic" or not question.derivation:
        return None
    operands = {m.replace(",", "") for m in _OPERAND.findall(question.derivation)}
    operands -= {"100", "2", "3", "4", "12"}
    if not operands:
        return None
    present = {m.replace(",", "") for m in _OPERAND.findall(context)}
    return operands <= present


def _asked(
    question: Question, conversation: str, library: Library, kb: str, embedder: Embedder | None
) -> QueryAnalysis:
    """The question as the evaluation asks it (written out, or made standalone from its
    conversation as the pipeline makes it), analysed once for every stage; ``embedder`` the
    library's, as the pipeline hands it (the operation read shares retrieval's vector), with the
    library's companies by document, as the pipeline reads them (what a report titled by its
    section is about)."""
    companies = company_names_by_document(library, kb)
    if conversation == "written" and question.written_out:
        return analyse_query(question.written_out, embedder=embedder, companies=companies)
    if conversation == "history" and question.history:
        from rag_app.pipeline.followups import understand

        earlier = question.earlier_questions
        answers = [content for role, content in question.history if role == "assistant"]
        answer = answers[-1] if answers and question.history[-1][0] == "assistant" else ""
        understood = understand(
            question.question, earlier, library, kb, library.settings, answer=answer
        )
        return analyse_query(question.question, understood, embedder, companies)
    return analyse_query(question.question, embedder=embedder, companies=companies)


def evaluate(
    library: Library,
    kb: str,
    questions: Sequence[Question],
    retriever_name: str,
    scope: str,
    k: int = 10,
    progress: Callable[[Progress], None] = lambda p: None,
    context_budget: int | None = 3000,
    retriever: Retriever | None = None,
    context_k: int | None = None,
    prompt_settings: PromptSettings | None = None,
    offline_answers: Mapping[str, Callable[[QueryAnalysis, Sequence[tuple[int, Chunk]]], str]]
    | None = None,
    conversation: str = "history",
    routing_labels: Mapping[str, tuple[str, str]] | None = None,
    answers: AnswerScores | None = None,
) -> dict[str, object]:
    """Run every question and return the metrics.

    recall@1/3/5/10 and mrr@10 of the first gold hit; with ``context_budget``, also
    ``answer_in_context`` (span answers whose every gold string is in the context the token
    budget kept from the top ``context_k`` hits: the app's ``top_k`` unless given) and the
    latency of retrieval plus context building. With ``offline_answers`` (name -> a function of
    question and numbered sources giving the offline answer; "" for the default answerer), also
    ``answer_in_offline`` (``answer_in_offline NAME`` for the others): span answers whose every
    gold string the offline answer quotes from the prompt's sources. ``operands_in_context``:
    arithmetic answers whose every operand is in the context. ``conversation`` says how a
    follow-up (a row with ``history``) is asked: "history" makes it standalone from its
    conversation as the chat does (``standalone`` in its row), "none" asks it alone, "written"
    asks its ``written_out`` form. A smart retriever's rows carry its ``routing`` (type,
    single_type, confidence) and the metrics a ``routing`` summary (``routing_summary``, with
    accuracy against ``routing_labels`` when given). With ``answers``, each answerable row gets
    its ``answer`` (text, short answer, scale, and TAT-QA's em / f1 against the gold) and the
    metrics an ``answers`` summary.
    """
    if conversation not in ("history", "none", "written"):
        raise ValueError("conversation must be history, none or written")
    if scope not in ("doc", "pooled"):
        raise ValueError("scope must be doc or pooled")
    retriever = retriever or make_retriever(retriever_name, library, kb, library.settings)
    # The prompt is built from as many hits as the app retrieves for a question (top_k).
    context_k = context_k or library.settings.top_k
    # Retrieval depth: the metrics need 10, the context the app's depth.
    depth = max(k, 10, context_k if context_budget else 0)
    ranks: list[int | None] = []
    latencies: list[float] = []
    context_latencies: list[float] = []
    in_context: list[bool] = []
    in_offline: dict[str, list[bool]] = {name: [] for name in offline_answers or {}}
    operands: list[bool] = []
    per_question = []
    library.snapshot(kb)  # build or load the keyword index before timing
    embedder = None if retriever_name == "bm25" else library.embedder
    if embedder is not None:
        embedder.embed_queries(["warm up"])
    prompt_settings = replace(
        prompt_settings or library.settings.prompt, context_budget=context_budget or 3000
    )
    names = {d.doc_id: d.name for d in library.documents(kb)}
    chunk_types: dict[str, list[tuple[frozenset[int], str]]] = {}
    # Answerability sets: each question is held against the library (rag_app.trust.answerability).
    checks = any(not q.answerable for q in questions)
    declined: dict[bool, list[bool]] = {True: [], False: []}
    for n, question in enumerate(questions):
        search_filter = SearchFilter(doc_ids=question.doc_ids) if scope == "doc" else SearchFilter()
        asked = _asked(question, conversation, library, kb, embedder)
        start = time.perf_counter()
        hits = retriever.retrieve(asked, depth, search_filter)
        latencies.append((time.perf_counter() - start) * 1000)
        rank = first_hit_rank(hits, question)
        row: dict[str, object] = {
            "id": question.id,
            "rank": rank,
            "top": [h.chunk.chunk_id for h in hits[:3]],
        }
        routing = getattr(retriever, "last_routing", None)
        if routing is not None:
            row["routing"] = {
                "type": routing.detected_type,
                "single_type": routing.single_type,
                "confidence": routing.confidence,
            }
            types = question.gold_types or gold_types(library, kb, question, chunk_types)
            if types:
                row["gold_types"] = list(types)
        if asked.text != question.question:
            row["standalone"] = asked.text
        refused = False
        if checks:
            from rag_app.trust.answerability import assess

            refused = assess(asked, library, kb, search_filter.doc_ids).declines
            declined[question.answerable].append(refused)
            row["declined"] = refused
        if not question.answerable:
            per_question.append(row)
            continue
        ranks.append(rank)
        if context_budget:
            prompt = build_prompt(
                asked,
                hits[:context_k],
                settings=prompt_settings,
                counter=library.counter,
                doc_names=names,
            )
            context_latencies.append((time.perf_counter() - start) * 1000)
            computed = operands_in_context(question, prompt.context)
            if computed is not None:
                operands.append(computed)
                row["operands_in_context"] = computed
            found = answer_in_context(question, prompt.context)
            sources = [(source.number, source.hit.chunk) for source in prompt.sources]
            if found is not None:
                in_context.append(found)
                row["answer_in_context"] = found
                for name, answer in (offline_answers or {}).items():
                    # a declined answer quotes nothing
                    quoted = not refused and bool(
                        answer_in_context(question, answer(asked, sources))
                    )
                    in_offline[name].append(quoted)
                    row[f"answer_in_offline {name}".strip()] = quoted
            if answers is not None:
                row["answer"] = answers.row(
                    asked,
                    sources,
                    question.answers,
                    question.answer_type,
                    question.scale,
                    declined=refused,
                )
        per_question.append(row)
        if n % 25 == 0:
            progress(Progress("questions", n, len(questions)))
    progress(Progress("questions", len(questions), len(questions)))
    total = len(ranks) or 1

    def recall(at: int) -> float:
        return round(sum(1 for r in ranks if r is not None and r <= at) / total, 4)

    extra: dict[str, object] = {}
    if context_budget:
        extra = {
            f"answer_in_context@{context_budget}": round(sum(in_context) / len(in_context), 4)
            if in_context
            else None,
            "answer_in_context": round(sum(in_context) / len(in_context), 4)
            if in_context
            else None,
            "n_span_questions": len(in_context),
            **(
                {"operands_in_context": round(sum(operands) / len(operands), 4)} if operands else {}
            ),
            **{
                f"answer_in_offline {name}".strip(): round(sum(found) / len(found), 4)
                for name, found in in_offline.items()
                if found
            },
            "retrieval_context_ms_p50": round(percentile(context_latencies, 0.5), 2),
            "retrieval_context_ms_p95": round(percentile(context_latencies, 0.95), 2),
        }
    return {
        "n_questions": len(questions),
        "retriever": retriever_name,
        "scope": scope,
        "k": k,
        "recall@1": recall(1),
        "recall@3": recall(3),
        "recall@5": recall(5),
        "recall@10": recall(10),
        f"recall@{k}": recall(k),
        "mrr@10": round(sum(1 / r for r in ranks if r is not None and r <= 10) / total, 4),
        "query_ms_p50": round(percentile(latencies, 0.5), 2),
        "query_ms_p95": round(percentile(latencies, 0.95), 2),
        **extra,
        **({"answers": answers.summary()} if answers is not None else {}),
        **(
            {
                "n_unanswerable": len(declined[False]),
                "declined_unanswerable": _share(declined[False]),
                "answered_answerable": _share([not d for d in declined[True]]),
            }
            if checks
            else {}
        ),
        **(
            {"routing": routing_summary(per_question, routing_labels)}
            if any("routing" in row for row in per_question)
            else {}
        ),
        "per_question": per_question,
    }
