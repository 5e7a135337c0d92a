"""Fit the question-operation model (``rag_app/understand/operations.py``) on the TAT-QA dev
questions of half its documents and report it on the other half: ``make operations``.

Labels: a question's answer type (span, multi-span, count; a span of at most four words with a
number in it is a ``value``; a year that is the largest or smallest cell of the question's row
in its table ``year_max`` / ``year_min``; years listed ``years``) or, for an arithmetic one, the
shape of its gold derivation: ``a - b`` diff, ``(a - b) / b`` change_ratio, ``(a + b) / 2``
average, ``a + b`` sum, ``a / b`` divide (``share`` when the answer is a percent), anything
else other (operands may be negative, "-1,421 - (-78,816)"). The halves are fixed by a hash
of the document id, so the held-out half never changes; the model written is the one fitted on
the first half only, which keeps the second half a fair test of everything built on it.

    python -m rag_app.evaluation.operations_fit --eval-dir ../shared/eval [--write]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from collections import Counter
from pathlib import Path

from rag_app.stage_settings import OfflineSettings
from rag_app.text.periods import YEAR
from rag_app.understand.operations import MODEL_PATH, OperationModel, features

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


def _matrix(questions: list[str], vocabulary: dict[str, int]):  # type: ignore[no-untyped-def]
    from scipy.sparse import lil_matrix

    x = lil_matrix((len(questions), len(vocabulary)))
    for i, question in enumerate(questions):
        for f in set(features(question)):
            if f in vocabulary:
                x[i, vocabulary[f]] = 1.0
    return x.tocsr()


def fit(questions: list[str], labels: list[str], strength: float) -> OperationModel:
    from sklearn.linear_model import LogisticRegression

    counts = Counter(f for q in questions for f in set(features(q)))
    vocabulary = {f: i for i, f in enumerate(sorted(f for f, n in counts.items() if n >= 2))}
    model = LogisticRegression(C=strength, max_iter=2000)
    model.fit(_matrix(questions, vocabulary), labels)
    classes = tuple(str(c) for c in model.classes_)
    weights = tuple(tuple(float(v) for v in model.coef_[:, j]) for j in range(len(vocabulary)))
    return OperationModel(classes, vocabulary, weights, tuple(float(b) for b in model.intercept_))


def acted_right(model: OperationModel, questions: list[str], labels: list[str]) -> float:
    """The share of questions read right with at least the confidence the answerer acts on
    (``OfflineSettings.operation_confidence``): what the strength is chosen by, since a read
    below it changes no answer and a confident wrong one gives a wrong line."""
    threshold = OfflineSettings.operation_confidence
    hits = 0
    for question, truth in zip(questions, labels):
        probabilities = model.probabilities(question)
        name = max(probabilities, key=probabilities.__getitem__)
        hits += name == truth and probabilities[name] >= threshold
    return hits / max(1, len(labels))


def accuracy(model: OperationModel, questions: list[str], labels: list[str]) -> float:
    hits = sum(
        max(p := model.probabilities(q), key=p.__getitem__) == y for q, y in zip(questions, labels)
    )
    return hits / max(1, len(labels))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--eval-dir", type=Path, default=Path("../shared/eval"))
    ap.add_argument("--write", action="store_true", help=f"write the model to {MODEL_PATH}")
    ap.add_argument("--english-only", action="store_true", help="fit on TAT-QA's half alone")
    args = ap.parse_args(argv)
    rows = [json.loads(line) for line in open(args.eval_dir / "tatqa_dev" / "questions.jsonl")]
    train = [r for r in rows if half(str(r["doc_id"])) == 0]
    test = [r for r in rows if half(str(r["doc_id"])) == 1]
    xq, xl = [str(r["question"]) for r in train], [label(r, args.eval_dir) for r in train]
    tq, tl = [str(r["question"]) for r in test], [label(r, args.eval_dir) for r in test]
    if not args.english_only:  # Chinese rows: authored operations, the broker set's lookups
        for row in _chinese_rows():
            xq.append(str(row["question"]))
            xl.append(str(row.get("operation") or label(row)))
    best = (0.0, STRENGTHS[0])
    for strength in STRENGTHS:
        scores = []
        for fold in range(5):
            inside = [i for i in range(len(xq)) if i % 5 != fold]
            model = fit([xq[i] for i in inside], [xl[i] for i in inside], strength)
            outside = [i for i in range(len(xq)) if i % 5 == fold]
            scores.append(acted_right(model, [xq[i] for i in outside], [xl[i] for i in outside]))
        mean = sum(scores) / len(scores)
        print(f"C={strength}: 5-fold share read right and acted on {mean:.3f}")
        best = max(best, (mean, strength))
    model = fit(xq, xl, best[1])
    print(f"fitted on {len(xq)} questions (C={best[1]}); held-out half: {len(tq)} questions")
    print(f"held-out accuracy {accuracy(model, tq, tl):.3f}; labels {dict(Counter(tl))}")
    for name in sorted(set(tl)):
        idx = [i for i, y in enumerate(tl) if y == name]
        got = accuracy(model, [tq[i] for i in idx], [tl[i] for i in idx])
        print(f"  {name}: {got:.3f} of {len(idx)}")
    zh = [json.loads(line) for line in open(ZH_TEST, encoding="utf-8")]
    zq, zl = [str(r["question"]) for r in zh], [str(r["operation"]) for r in zh]
    print(f"zh arithmetic set (frozen, never fitted): {accuracy(model, zq, zl):.3f} of {len(zq)}")
    if args.write:
        MODEL_PATH.parent.mkdir(parents=True, exist_ok=True)
        MODEL_PATH.write_text(json.dumps(model.to_json(), ensure_ascii=False) + "\n")
        print(f"wrote {MODEL_PATH}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
