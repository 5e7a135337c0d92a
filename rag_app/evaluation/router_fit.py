"""Train smart mode's router (``rag_app/retrieve/router.py``) and report it on questions it was
not fitted on: ``make router`` (about 10 minutes, mostly one first look per question).

Labelled questions, from three sources that differ in language, documents and phrasing:
- tatqa: TAT-QA dev's ``answer_from`` (table / text / table-text), 1668 English questions over
  annual-report pages, with a pooled and a per-document first look;
- crud: CRUD's 200 Chinese news questions, all answered by paragraphs (text);
- broker: our broker questions and list questions with their hand labels
  (``assets/broker_eval/routing_labels.jsonl``: table / text / image / mixed) and the sample
  report's example questions, pooled and per document.
A mixed question (table-text) counts half for table and half for text.

Reported: cross-set (fit on two sources, test on the third) and 5-fold within all of them
(folds by question), each as accuracy, the share of single-type questions routed to their own
type and to a wrong one at the threshold, and the reliability of the confidence. The model
written is fitted on everything; its file is ``rag_app/retrieve/data/router.json``.

    python -m rag_app.evaluation.router_fit --eval-dir ../shared/eval --out eval-results [--report F]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from rag_app.config import load_settings
from rag_app.evaluation.evaluate import find_documents, load_questions
from rag_app.evaluation.routing import load_routing_labels
from rag_app.index.library import Library
from rag_app.models import SearchFilter
from rag_app.retrieve.options import options_from
from rag_app.retrieve.router import MODEL_PATH, SCALAR_NAMES, RouterModel, scalar_vector
from rag_app.retrieve.routing import TYPES
from rag_app.stage_settings import StrategyOptions

REPO = Path(__file__).resolve().parents[2]
BROKER = REPO / "assets" / "broker_eval"
SAMPLE = REPO / "assets" / "sample_report"
# Embedding values of a unit vector are about 1/sqrt(384) each: scaled to about 1, so one L2
# strength treats them and the 0-1 evidence features alike.
EMBED_SCALE = 3.0
# Routes are measured at smart mode's own threshold.
THRESHOLD = StrategyOptions.smart_threshold


@dataclass(frozen=True)
class Row:
    source: str  # tatqa / crud / broker
    qid: str
    question: str
    target: tuple[float, ...]  # probability per TYPES
    scalars: tuple[float, ...]
    vector: np.ndarray
    available: tuple[str, ...]


def _target(kind: str) -> tuple[float, ...]:
    kinds = {"table-text": ("table", "text"), "mixed": ("table", "text")}.get(kind, (kind,))
    return tuple((1.0 / len(kinds)) if t in kinds else 0.0 for t in TYPES)


def _library(base, out: Path, name: str, folders: Sequence[Path], embedder) -> Library:  # type: ignore[no-untyped-def]
    library = Library(replace(base, data_dir=out / "index" / name), embedder=embedder)
    library.ingest_paths(find_documents(folders), "eval")
    return library


def collect(eval_dir: Path, out: Path) -> list[Row]:
    """One row per labelled question and first look (pooled, and per document where the set
    has that scope), with exactly the features smart mode computes."""
    from rag_app.index.embedder import load_embedder
    from rag_app.retrieve.strategies import routing_inputs
    from rag_app.understand.analysis import analyse_query

    base = load_settings()
    embedder = load_embedder(base)
    options = options_from(base)
    rows: list[Row] = []

    def add(source: str, library: Library, qid: str, text: str, kind: str, flt: SearchFilter):
        features, vector, types = routing_inputs(library, "eval", analyse_query(text), flt, options)
        if vector is None:
            raise RuntimeError(f"{source}: the library has no chunks to embed against")
        rows.append(
            Row(source, qid, text, _target(kind), tuple(scalar_vector(features)), vector, types)
        )

    started = time.perf_counter()
    tatqa = _library(base, out, "tatqa", [eval_dir / "tatqa_dev" / "docs"], embedder)
    for line in (eval_dir / "tatqa_dev" / "questions.jsonl").read_text().splitlines():
        q = json.loads(line)
        for flt in (SearchFilter(), SearchFilter(doc_ids=(q["doc_id"],))):
            add("tatqa", tatqa, q["id"], q["question"], q["answer_from"], flt)
    print(f"tatqa: {len(rows)} rows, {time.perf_counter() - started:.0f} s", file=sys.stderr)
    crud_dir = eval_dir / "crud_zh_dev"
    crud = _library(base, out, "crud", [crud_dir / "docs", crud_dir / "distractors"], embedder)
    for q in load_questions(crud_dir / "questions.jsonl"):
        add("crud", crud, q.id, q.question, "text", SearchFilter())
    labels = load_routing_labels(BROKER / "routing_labels.jsonl")
    broker = _library(base, out, "broker", [BROKER / "docs"], embedder)
    for name in ("questions.jsonl", "questions_list.jsonl"):
        for q in load_questions(BROKER / name):
            for flt in (SearchFilter(), SearchFilter(doc_ids=q.doc_ids)):
                add("broker", broker, q.id, q.question, labels[q.id][0], flt)
    sample = _library(base, out, "sample", [SAMPLE], embedder)
    for q in json.loads((SAMPLE / "questions.json").read_text(encoding="utf-8")):
        qid = f"sample_{q['id']}"
        add("broker", sample, qid, q["question"], labels[qid][0], SearchFilter())
    print(f"all: {len(rows)} rows, {time.perf_counter() - started:.0f} s", file=sys.stderr)
    return rows


def save_rows(rows: Sequence[Row], path: Path) -> None:
    meta = [
        {
            "source": r.source,
            "qid": r.qid,
            "question": r.question,
            "target": r.target,
            "scalars": r.scalars,
            "available": r.available,
        }
        for r in rows
    ]
    np.savez_compressed(
        path,
        vectors=np.stack([r.vector for r in rows]),
        meta=np.asarray(json.dumps(meta, ensure_ascii=False)),
    )


def load_rows(path: Path) -> list[Row]:
    data = np.load(path)
    meta = json.loads(str(data["meta"]))
    return [
        Row(
            m["source"],
            m["qid"],
            m["question"],
            tuple(m["target"]),
            tuple(m["scalars"]),
            v,
            tuple(m["available"]),
        )
        for m, v in zip(meta, data["vectors"])
    ]


def _design(rows: Sequence[Row], embedding: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(X, y, sample weight): a row per (question, type with target mass)."""
    xs, ys, ws = [], [], []
    for row in rows:
        x = np.asarray(row.scalars, dtype=np.float64)
        if embedding:
            x = np.concatenate([x, row.vector.astype(np.float64) * EMBED_SCALE])
        for label, mass in enumerate(row.target):
            if mass > 0:
                xs.append(x)
                ys.append(label)
                ws.append(mass)
    return np.stack(xs), np.asarray(ys), np.asarray(ws)


def fit(rows: Sequence[Row], c: float, embedding: bool, embedder: str) -> RouterModel:
    """Multinomial logistic regression (scikit-learn's lbfgs, L2 with strength 1/c)."""
    from sklearn.linear_model import LogisticRegression

    x, y, w = _design(rows, embedding)
    present = sorted(set(y.tolist()))
    model = LogisticRegression(C=c, max_iter=2000)
    model.fit(x, y, sample_weight=w)
    n_scalar = len(SCALAR_NAMES)
    coef = np.zeros((len(TYPES), x.shape[1]))
    bias = np.full(len(TYPES), -20.0)  # a class never seen in training is never predicted
    for row, label in enumerate(present):
        # scikit-learn keeps one row for two classes (the second's logit against the first's)
        coef[label] = model.coef_[row] if model.coef_.shape[0] > 1 else model.coef_[0]
        bias[label] = model.intercept_[row] if model.coef_.shape[0] > 1 else model.intercept_[0]
    if len(present) == 2:
        coef[present[0]], bias[present[0]] = 0.0, 0.0
    return RouterModel(
        classes=TYPES,
        embedder=embedder if embedding else "",
        embed_scale=EMBED_SCALE,
        embed_weights=coef[:, n_scalar:].astype(np.float32),
        scalar_weights=coef[:, :n_scalar].astype(np.float32),
        bias=bias.astype(np.float32),
    )


def predict(model: RouterModel, row: Row, embedder: str) -> dict[str, float]:
    return model.probabilities(row.scalars, row.vector, embedder, row.available)


def score(
    model: RouterModel, rows: Sequence[Row], embedder: str, threshold: float = THRESHOLD
) -> dict[str, object]:
    """Accuracy of the top type (a mixed question's table or text is right), routes at the
    threshold of single-type questions (own type / wrong type), and reliability bins of the
    single-type questions (confidence band -> count, share right): a mixed question is right
    either way, so it would flatter the curve."""
    right = 0
    own = wrong = single = 0
    bins: dict[str, list[int]] = {}
    for row in rows:
        probs = predict(model, row, embedder)
        best = max(probs, key=probs.__getitem__)
        ok = row.target[TYPES.index(best)] > 0
        right += ok
        if max(row.target) == 1.0:
            low = min(int(probs[best] * 10), 9) / 10
            bins.setdefault(f"{low:.1f}", []).append(int(ok))
            single += 1
            if probs[best] >= threshold:
                own += ok
                wrong += not ok
    return {
        "n": len(rows),
        "accuracy": round(right / len(rows), 3),
        "single": single,
        "own_type_routes": round(own / single, 3) if single else None,
        "wrong_type_routes": round(wrong / single, 3) if single else None,
        "reliability": {k: (len(v), round(sum(v) / len(v), 2)) for k, v in sorted(bins.items())},
    }


def fold_of(rows: Sequence[Row], k: int = 5) -> dict[str, int]:
    """Each question's fold (of k), at random but fixed."""
    qids = sorted({r.qid for r in rows})
    rng = np.random.default_rng(0)
    return {str(q): i % k for i, q in enumerate(rng.permutation(qids))}


def folds(rows: Sequence[Row], k: int = 5) -> list[list[int]]:
    """Row indices in k folds, the rows of one question always together."""
    order = fold_of(rows, k)
    return [[i for i, r in enumerate(rows) if order[r.qid] == f] for f in range(k)]


def heldout_retrieval(
    rows: Sequence[Row], eval_dir: Path, out: Path, c: float, embedder_name: str
) -> list[dict[str, object]]:
    """Smart against hybrid where every smart question is routed by a router not fitted on it
    (the 5-fold models), on each labelled set and scope: recall@1/5, answer in context, and the
    routing of single-type questions."""
    from rag_app.evaluation.evaluate import evaluate
    from rag_app.index.embedder import load_embedder
    from rag_app.retrieve.strategies import StrategyRetriever

    base = load_settings()
    embedder = load_embedder(base)
    order = fold_of(rows)
    paths = []
    for f in range(5):
        model = fit([r for r in rows if order[r.qid] != f], c, True, embedder_name)
        path = out / f"router_fold{f}.json"
        path.write_text(json.dumps(model.to_json()), encoding="utf-8")
        paths.append(path)
    crud = eval_dir / "crud_zh_dev"
    sets = [
        (
            "tatqa",
            [eval_dir / "tatqa_dev" / "docs"],
            eval_dir / "tatqa_dev" / "questions.jsonl",
            ("pooled", "doc"),
        ),
        ("crud", [crud / "docs", crud / "distractors"], crud / "questions.jsonl", ("pooled",)),
        ("broker", [BROKER / "docs"], BROKER / "questions.jsonl", ("pooled", "doc")),
    ]
    results: list[dict[str, object]] = []
    for name, folders, questions_path, scopes in sets:
        library = _library(base, out, name, folders, embedder)
        settings = library.settings
        questions = load_questions(questions_path)
        for scope in scopes:
            hybrid = evaluate(library, "eval", questions, "hybrid", scope, 10)
            rows_smart: list[dict] = []
            for f, path in enumerate(paths):
                part = [q for q in questions if order.get(q.id) == f]
                if not part:
                    continue
                options = replace(options_from(settings), router_path=str(path))
                retriever = StrategyRetriever(library, "eval", "smart", settings, options)
                got = evaluate(library, "eval", part, "smart", scope, 10, retriever=retriever)
                rows_smart.extend(got["per_question"])  # type: ignore[arg-type]
            results.append(
                {
                    "set": name,
                    "scope": scope,
                    "hybrid": _summary(hybrid["per_question"]),  # type: ignore[arg-type]
                    "smart": _summary(rows_smart),
                }
            )
            print(json.dumps(results[-1]), file=sys.stderr, flush=True)
    return results


def _summary(per_question: Sequence[dict]) -> dict[str, object]:
    from rag_app.evaluation.routing import routing_summary

    n = len(per_question)
    ranks = [row.get("rank") for row in per_question]
    found = [row["answer_in_context"] for row in per_question if "answer_in_context" in row]
    out: dict[str, object] = {
        "n": n,
        "recall@1": round(sum(1 for r in ranks if r is not None and r <= 1) / n, 4),
        "recall@5": round(sum(1 for r in ranks if r is not None and r <= 5) / n, 4),
        "answer_in_context": round(sum(found) / len(found), 4) if found else None,
    }
    if any("routing" in row for row in per_question):
        out["routing"] = routing_summary(per_question)
    return out


def evaluate_router(rows: Sequence[Row], c: float, embedding: bool, embedder: str) -> dict:
    """Cross-set (each source held out) and 5-fold figures of a router with these settings."""
    report: dict[str, object] = {"c": c, "embedding": embedding}
    for held in ("tatqa", "crud", "broker"):
        train = [r for r in rows if r.source != held]
        test = [r for r in rows if r.source == held]
        report[f"cross {held}"] = score(fit(train, c, embedding, embedder), test, embedder)
    per_fold: dict[str, list[dict]] = {}
    for fold in folds(rows):
        held_out = set(fold)
        model = fit([r for i, r in enumerate(rows) if i not in held_out], c, embedding, embedder)
        # scored right away with the fold's own model
        for source in ("tatqa", "crud", "broker", "all"):
            part = [rows[i] for i in fold if source in ("all", rows[i].source)]
            if part:
                per_fold.setdefault(source, []).append(score(model, part, embedder))
    for source, scores in per_fold.items():
        report[f"kfold {source}"] = _pool(scores)
    return report


def _pool(scores: Sequence[dict]) -> dict[str, object]:
    n = sum(s["n"] for s in scores)
    single = sum(s["single"] for s in scores)

    def mean(key: str, weight: str) -> float | None:
        total = sum(s[weight] for s in scores if s[key] is not None)
        if not total:
            return None
        return round(sum(s[key] * s[weight] for s in scores if s[key] is not None) / total, 3)

    bins: dict[str, list[float]] = {}
    for s in scores:
        for low, (count, acc) in s["reliability"].items():
            got = bins.setdefault(low, [0, 0.0])
            got[0] += count
            got[1] += acc * count
    return {
        "n": n,
        "accuracy": mean("accuracy", "n"),
        "single": single,
        "own_type_routes": mean("own_type_routes", "single"),
        "wrong_type_routes": mean("wrong_type_routes", "single"),
        "reliability": {k: (int(c), round(a / c, 2)) for k, (c, a) in sorted(bins.items())},
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--eval-dir", type=Path, default=REPO.parent / "shared" / "eval")
    parser.add_argument("--out", type=Path, default=REPO / "eval-results")
    parser.add_argument("--report", type=Path, default=None, help="write the figures as JSON")
    parser.add_argument("--c", type=float, default=1.0)
    parser.add_argument(
        "--embedding",
        action="store_true",
        help="also read the question's embedding (fits each source, generalises worse across "
        "them: docs/ROUTING.md)",
    )
    parser.add_argument("--model", type=Path, default=MODEL_PATH)
    parser.add_argument(
        "--reuse", action="store_true", help="reuse OUT/router_rows.npz from the last run"
    )
    parser.add_argument(
        "--retrieval",
        action="store_true",
        help="also measure smart against hybrid with each question routed by a 5-fold model",
    )
    args = parser.parse_args(argv)
    from rag_app.index.embedder import load_embedder

    embedder = load_embedder(load_settings()).name
    cache = args.out / "router_rows.npz"
    if args.reuse and cache.exists():
        rows = load_rows(cache)
    else:
        rows = collect(args.eval_dir, args.out)
        save_rows(rows, cache)
    embedding = args.embedding
    report = evaluate_router(rows, args.c, embedding, embedder)
    model = fit(rows, args.c, embedding, embedder)
    report["all (fitted on)"] = score(model, rows, embedder)
    if args.retrieval:
        report["retrieval, 5-fold routers"] = heldout_retrieval(
            rows, args.eval_dir, args.out, args.c, embedder
        )
    args.model.parent.mkdir(parents=True, exist_ok=True)
    args.model.write_text(json.dumps(model.to_json()) + "\n", encoding="utf-8")
    text = json.dumps(report, indent=1, ensure_ascii=False)
    print(text)
    if args.report:
        args.report.write_text(text + "\n", encoding="utf-8")
    print(f"router written to {args.model} ({args.model.stat().st_size} bytes)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
