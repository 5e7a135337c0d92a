"""Fit the question-operation models (``rag_app/understand/operations.py``) on the TAT-QA dev
questions of half its documents and report them on the other half: ``make operations``.

Two models: words alone (``data/operations.json``, the read of a question with no embedding or
one by another embedder) and words with the question's query embedding by the product's encoder
(``data/operations_embedding.json``, multilingual-e5-small; the question is embedded here as
retrieval embeds it). Each is chosen on the fitting data by 5-fold cross-validation; the
embedding's gain is reported on the held-out half, on the frozen Chinese set and, with
``--english-only``, as the Chinese read of a fit that saw no Chinese (docs/EVALUATION.md,
session 17).

Labels: a question's answer type (span, multi-span, count; a span of at most four words with a
number in it is a ``value``; a year that is the largest or smallest cell of the question's row
in its table ``year_max`` / ``year_min``; years listed ``years``) or, for an arithmetic one, the
shape of its gold derivation: ``a - b`` diff, ``(a - b) / b`` change_ratio, ``(a + b) / 2``
average, ``a + b`` sum, ``a / b`` divide (``share`` when the answer is a percent), anything
else other (operands may be negative, "-1,421 - (-78,816)"). The halves are fixed by a hash
of the document id, so the held-out half never changes; the model written is the one fitted on
the first half only, which keeps the second half a fair test of everything built on it.

    python -m rag_app.evaluation.operations_fit --eval-dir ../shared/eval [--write]
        [--english-only] [--zh-folds] [--words-only] [--embedding-alone]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import numpy as np

from rag_app.stage_settings import OfflineSettings
from rag_app.text.periods import YEAR
from rag_app.understand.operations import (
    EMBEDDING_MODEL_PATH,
    MODEL_PATH,
    OperationModel,
    features,
)

# An operand: "1,452.4", "$-3", "23.4%", or a negative one in brackets ("(-78,816)").
_NUMBER = r"(?:-?\$?-?[\d,]*\.?\d+%?|\(-\$?[\d,]*\.?\d+%?\))"
_SHAPES = (
    ("change_ratio", re.compile(rf"^\(?{_NUMBER}-{_NUMBER}\)?/{_NUMBER}(\*100)?$")),
    ("change_ratio", re.compile(rf"^{_NUMBER}/{_NUMBER}-1$")),
    ("diff", re.compile(rf"^\(?{_NUMBER}-{_NUMBER}\)?$")),
    ("average", re.compile(rf"^\((?:{_NUMBER}\+)+{_NUMBER}\)/\d$")),
    ("sum", re.compile(rf"^\(?(?:{_NUMBER}\+)+{_NUMBER}\)?$")),
    ("divide", re.compile(rf"^\(?{_NUMBER}/{_NUMBER}\)?(\*100)?$")),
)
_ASSETS = Path(__file__).resolve().parents[2] / "assets"
ZH_TRAIN = (
    _ASSETS / "operations_zh" / "questions.jsonl",
    _ASSETS / "broker_eval" / "questions.jsonl",
    _ASSETS / "broker_eval" / "questions_list.jsonl",
)
# Reported, never fitted on: the second set's arithmetic questions, frozen before any fit.
ZH_TEST = _ASSETS / "second_eval" / "questions_arithmetic.jsonl"
# The weights' strength against overfitting (sklearn's C), chosen on the fitting half by
# 5-fold cross-validation among these (``acted_right``).
STRENGTHS = (0.3, 1.0, 3.0, 10.0)
# The model with the embedding: (C, the scale the unit-length embedding is multiplied by, which
# weighs it against the 0/1 word features), chosen the same way among these. Scales 1 and 3
# and strengths below 10 lost in cross-validation (session 17); 30 read the held-out half worse.
EMBEDDING_GRID = ((10.0, 10.0), (30.0, 10.0), (100.0, 10.0))


def label(row: dict[str, object], eval_dir: Path | None = None) -> str:
    kind = str(row["answer_type"])
    answer = row.get("answer")
    if kind in ("span", "multi-span") and isinstance(answer, list) and answer:
        if all(YEAR.fullmatch(str(a).strip()) for a in answer):
            if kind == "multi-span":
                return "years"  # "In which years was X reported?"
            extreme = _extreme_year(row, str(answer[0]).strip(), eval_dir)
            if extreme:
                return extreme  # "In which year was X larger?"
    if kind == "span" and isinstance(answer, list) and answer:
        gold = str(answer[0])
        if re.search(r"\d", gold) and len(gold.split()) <= 4:
            return "value"  # an amount, a rate, a date: a few words with a number
    if kind != "arithmetic":
        return kind
    derivation = (
        re.sub(r"\s+", "", str(row.get("derivation") or "")).replace("[", "(").replace("]", ")")
    )
    shape = next((name for name, shape in _SHAPES if shape.match(derivation)), "other")
    if shape == "divide" and row.get("scale") == "percent":
        return "share"  # a part as a percentage of a whole, not a ratio of two amounts
    return shape


def _extreme_year(row: dict[str, object], year: str, eval_dir: Path | None) -> str:
    """``year_max`` or ``year_min`` when the gold year is the one whose cell is largest or
    smallest in the row of the question's table that shares most words with it; ""."""
    if eval_dir is None:
        return ""
    from rag_app.facts.cells import table_facts
    from rag_app.models import Chunk
    from rag_app.text.analyzer import match_terms
    from rag_app.text.periods import find_years

    path = eval_dir / "tatqa_dev" / str(row["doc_file"])
    items = json.loads(path.read_text(encoding="utf-8"))
    words = match_terms(str(row["question"]))[0]
    for item in items:
        if item.get("type") != "table" or not item.get("table_body"):
            continue
        chunk = Chunk("t:0", "t", "table", "", "", (0,), table_html=item["table_body"])
        facts = table_facts(chunk)
        if not facts:
            continue
        overlap = {f.metric: len(match_terms(f.metric)[0] & words) for f in facts}
        best = max(overlap.values())
        if not best:
            continue
        rows = {f.row for f in facts if overlap[f.metric] == best}
        by_year: dict[str, float] = {}
        for f in facts:
            years = find_years(f.column)
            if f.row in rows and len(years) == 1 and f.number is not None:
                by_year.setdefault(years[0], f.number)
        if year not in by_year or len(by_year) < 2:
            continue
        if by_year[year] == max(by_year.values()):
            return "year_max"
        if by_year[year] == min(by_year.values()):
            return "year_min"
    return ""


def _chinese_rows() -> list[dict[str, object]]:
    """Chinese questions to fit on: the authored operations (``assets/operations_zh``, over
    the broker reports and the sample) and the broker set's lookups and lists, labelled as
    TAT-QA's rows are."""
    rows: list[dict[str, object]] = []
    for path in ZH_TRAIN:
        rows.extend(json.loads(line) for line in open(path, encoding="utf-8") if line.strip())
    return rows


def half(doc_id: str) -> int:
    return hashlib.sha256(doc_id.encode("utf-8")).digest()[0] % 2


# A question -> its query embedding (the product's encoder, as retrieval embeds it).
Vectors = Mapping[str, np.ndarray]
# What the grid's entries give: the strength alone (words), or the strength and the scale.
Params = tuple[float, ...]


def _matrix(questions: list[str], vocabulary: dict[str, int]):  # type: ignore[no-untyped-def]
    from scipy.sparse import lil_matrix

    x = lil_matrix((len(questions), len(vocabulary)))
    for i, question in enumerate(questions):
        for f in set(features(question)):
            if f in vocabulary:
                x[i, vocabulary[f]] = 1.0
    return x.tocsr()


def fit(
    questions: list[str],
    labels: list[str],
    strength: float,
    vectors: Vectors | None = None,
    scale: float = 1.0,
    encoder: str = "",
    words: bool = True,
) -> OperationModel:
    """The model of the questions' words (a word or pair seen twice is a feature) fitted at
    ``strength``; with ``vectors``, also of their embeddings by ``encoder`` times ``scale``
    (without ``words``, of the embeddings alone)."""
    from scipy.sparse import csr_matrix, hstack
    from sklearn.linear_model import LogisticRegression

    counts = Counter(f for q in questions for f in set(features(q)) if words)
    vocabulary = {f: i for i, f in enumerate(sorted(f for f, n in counts.items() if n >= 2))}
    x = _matrix(questions, vocabulary)
    if vectors is not None:
        dense = np.stack([vectors[q] for q in questions]).astype(np.float64) * scale
        x = hstack([x, csr_matrix(dense)]).tocsr()
    model = LogisticRegression(C=strength, max_iter=2000)
    model.fit(x, labels)
    n = len(vocabulary)
    classes = tuple(str(c) for c in model.classes_)
    weights = tuple(tuple(float(v) for v in model.coef_[:, j]) for j in range(n))
    bias = tuple(float(b) for b in model.intercept_)
    if vectors is None:
        return OperationModel(classes, vocabulary, weights, bias)
    embed = tuple(tuple(float(v) for v in row[n:]) for row in model.coef_)
    return OperationModel(classes, vocabulary, weights, bias, encoder, scale, embed)


def _reads(
    model: OperationModel, questions: Sequence[str], vectors: Vectors | None
) -> list[tuple[str, float]]:
    out = []
    for question in questions:
        vector = vectors.get(question) if vectors is not None else None
        probabilities = model.probabilities(question, vector, model.encoder)
        name = max(probabilities, key=probabilities.__getitem__)
        out.append((name, probabilities[name]))
    return out


def acted_right(
    model: OperationModel,
    questions: Sequence[str],
    labels: Sequence[str],
    vectors: Vectors | None = None,
) -> float:
    """The share of questions read right with at least the confidence the answerer acts on
    (``OfflineSettings.operation_confidence``): what the strength is chosen by, since a read
    below it changes no answer and a confident wrong one gives a wrong line."""
    threshold = OfflineSettings.operation_confidence
    reads = _reads(model, questions, vectors)
    hits = sum(name == y and p >= threshold for (name, p), y in zip(reads, labels))
    return hits / max(1, len(labels))


def accuracy(
    model: OperationModel,
    questions: Sequence[str],
    labels: Sequence[str],
    vectors: Vectors | None = None,
) -> float:
    reads = _reads(model, questions, vectors)
    return sum(name == y for (name, _), y in zip(reads, labels)) / max(1, len(labels))


Fit = Callable[[list[str], list[str], Params], OperationModel]


def choose(
    questions: list[str],
    labels: list[str],
    make: Fit,
    grid: Sequence[Params],
    vectors: Vectors | None = None,
) -> Params:
    """The grid's entry whose fits read most questions right and acted on (``acted_right``)
    over 5 folds of the fitting data (ties: the later entry)."""
    best: tuple[float, Params] = (-1.0, grid[0])
    for params in grid:
        scores = []
        for fold in range(5):
            inside = [i for i in range(len(questions)) if i % 5 != fold]
            model = make([questions[i] for i in inside], [labels[i] for i in inside], params)
            outside = [i for i in range(len(questions)) if i % 5 == fold]
            scores.append(
                acted_right(
                    model, [questions[i] for i in outside], [labels[i] for i in outside], vectors
                )
            )
        mean = sum(scores) / len(scores)
        print(f"  {params}: 5-fold share read right and acted on {mean:.3f}")
        best = max(best, (mean, params))
    return best[1]


def embed_questions(questions: Sequence[str]) -> tuple[str, dict[str, np.ndarray]]:
    """The name of the product's encoder (the settings' model and runtime) and each question's
    query embedding by it."""
    from rag_app.config import load_settings
    from rag_app.index.embedder import load_embedder

    embedder = load_embedder(load_settings())
    unique = sorted(set(questions))
    return embedder.name, dict(zip(unique, embedder.embed_queries(unique)))


def zh_folds(
    make: Fit, params: Params, base: tuple[list[str], list[str]], vectors: Vectors | None = None
) -> tuple[int, int]:
    """How many of the authored Chinese rows a model reads right when each fifth of them is
    left out of its fit (on ``base``, the broker rows and the other four fifths): phrasings
    the model has not seen; and how many rows."""
    authored = [json.loads(line) for line in open(ZH_TRAIN[0], encoding="utf-8")]
    broker = [r for path in ZH_TRAIN[1:] for r in map(json.loads, open(path, encoding="utf-8"))]
    questions = base[0] + [str(r["question"]) for r in broker]
    labels = base[1] + [label(r) for r in broker]
    right = 0
    for fold in range(5):
        inside = [r for i, r in enumerate(authored) if i % 5 != fold]
        outside = [r for i, r in enumerate(authored) if i % 5 == fold]
        model = make(
            questions + [str(r["question"]) for r in inside],
            labels + [str(r["operation"]) for r in inside],
            params,
        )
        reads = _reads(model, [str(r["question"]) for r in outside], vectors)
        right += sum(name == r["operation"] for (name, _), r in zip(reads, outside))
    return right, len(authored)


def _report(
    model: OperationModel,
    tests: dict[str, tuple[list[str], list[str]]],
    vectors: Vectors | None = None,
) -> None:
    for name, (questions, labels) in tests.items():
        got = accuracy(model, questions, labels, vectors)
        acted = acted_right(model, questions, labels, vectors)
        print(
            f"  {name}: read right {got:.3f} ({round(got * len(labels))} of {len(labels)}),"
            f" and acted on {acted:.3f}"
        )
    questions, labels = tests["held-out half"]
    for kind in sorted(set(labels)):
        idx = [i for i, y in enumerate(labels) if y == kind]
        got = accuracy(model, [questions[i] for i in idx], [labels[i] for i in idx], vectors)
        print(f"    {kind}: {got:.3f} of {len(idx)}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--eval-dir", type=Path, default=Path("../shared/eval"))
    ap.add_argument(
        "--write", action="store_true", help="write the models to rag_app/understand/data"
    )
    ap.add_argument("--english-only", action="store_true", help="fit on TAT-QA's half alone")
    ap.add_argument("--words-only", action="store_true", help="no embedding model (no encoder)")
    ap.add_argument(
        "--embedding-alone", action="store_true", help="also report a model of the embedding alone"
    )
    ap.add_argument(
        "--zh-folds", action="store_true", help="also read the authored Chinese rows unseen"
    )
    args = ap.parse_args(argv)
    rows = [json.loads(line) for line in open(args.eval_dir / "tatqa_dev" / "questions.jsonl")]
    train = [r for r in rows if half(str(r["doc_id"])) == 0]
    test = [r for r in rows if half(str(r["doc_id"])) == 1]
    xq, xl = [str(r["question"]) for r in train], [label(r, args.eval_dir) for r in train]
    tq, tl = [str(r["question"]) for r in test], [label(r, args.eval_dir) for r in test]
    tatqa = (list(xq), list(xl))
    zh_rows = _chinese_rows()
    zh = [(str(r["question"]), str(r.get("operation") or label(r))) for r in zh_rows]
    if not args.english_only:  # Chinese rows: authored operations, the broker set's lookups
        xq += [q for q, _ in zh]
        xl += [y for _, y in zh]
    frozen = [json.loads(line) for line in open(ZH_TEST, encoding="utf-8")]
    tests = {
        "held-out half": (tq, tl),
        "zh arithmetic set (frozen, never fitted)": (
            [str(r["question"]) for r in frozen],
            [str(r["operation"]) for r in frozen],
        ),
    }
    if args.english_only:  # the Chinese read of a fit that saw no Chinese
        authored = len([1 for _ in open(ZH_TRAIN[0], encoding="utf-8")])
        tests["zh authored rows"] = ([q for q, _ in zh[:authored]], [y for _, y in zh[:authored]])
        tests["zh broker lookups"] = ([q for q, _ in zh[authored:]], [y for _, y in zh[authored:]])

    def words(questions: list[str], labels: list[str], params: Params) -> OperationModel:
        return fit(questions, labels, params[0])

    def run(name: str, make: Fit, grid: Sequence[Params], vectors: Vectors | None) -> Params:
        print(f"{name}:")
        params = choose(xq, xl, make, grid, vectors)
        print(f"{name}, fitted on {len(xq)} questions ({params}); held-out half: {len(tq)}")
        _report(make(xq, xl, params), tests, vectors)
        if args.zh_folds:
            right, n = zh_folds(make, params, tatqa, vectors)
            print(f"  zh authored rows, each fifth unseen: {right} of {n}")
        return params

    models = {MODEL_PATH: words(xq, xl, run("words", words, [(c,) for c in STRENGTHS], None))}
    if not args.words_only:
        every = xq + [q for q, _ in zh] + [q for qs, _ in tests.values() for q in qs]
        encoder, vectors = embed_questions(every)

        def embedding(questions: list[str], labels: list[str], params: Params) -> OperationModel:
            return fit(questions, labels, params[0], vectors, params[1], encoder)

        def alone(questions: list[str], labels: list[str], params: Params) -> OperationModel:
            return fit(questions, labels, params[0], vectors, params[1], encoder, words=False)

        if args.embedding_alone:  # reported, never written
            run(f"the {encoder} embedding alone", alone, EMBEDDING_GRID, vectors)
        params = run(f"words + the {encoder} embedding", embedding, EMBEDDING_GRID, vectors)
        models[EMBEDDING_MODEL_PATH] = embedding(xq, xl, params)
    if args.write:
        for path, model in models.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(model.to_json(), ensure_ascii=False) + "\n")
            print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
