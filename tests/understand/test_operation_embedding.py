"""The operation read from the question's embedding (rag_app/understand/operations.py): only for
the encoder the model was fitted on, from the vector retrieval computes (a question is embedded
once per ask), the words model otherwise."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from rag_app.config import Settings
from rag_app.index.embedder import HashEmbedder
from rag_app.index.library import Library
from rag_app.models import AskOptions
from rag_app.pipeline.ask import Pipeline
from rag_app.understand import analysis
from rag_app.understand.analysis import analyse_query
from rag_app.understand.operations import (
    OperationModel,
    asked_operation,
    load_embedding_model,
    load_model,
    reads_embedding,
)
from tests.conftest import REAL_CACHE_DIR, SAMPLE_CONTENT_LIST


class CountingEmbedder(HashEmbedder):
    """The hash embedder under another name, recording every query text it embeds."""

    def __init__(self, name: str, dimension: int = 384) -> None:
        super().__init__(dimension)
        self.name = name
        self.queries: list[str] = []

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        self.queries.extend(texts)
        return super().embed_queries(texts)


def _shipped_encoder() -> str:
    model = load_embedding_model()
    assert model is not None and model.embed_weights, "data/operations_embedding.json is shipped"
    return model.encoder


def test_the_embedding_term_reads_only_its_encoders_vectors() -> None:
    model = OperationModel(
        ("span", "diff"), {}, (), (0.0, 0.0), "e5", 2.0, ((0.0, 0.0), (1.0, 0.0))
    )
    ahead = np.array([1.0, 0.0], dtype=np.float32)
    assert asked_operation("?", model, ahead, "e5").name == "diff"
    assert model.probabilities("?", ahead, "e5")["diff"] == pytest.approx(1 / (1 + np.exp(-2)))
    # another embedder's vector, or one of another dimension, is not read: the bias decides
    assert model.probabilities("?", ahead, "hash-384") == {"span": 0.5, "diff": 0.5}
    assert model.probabilities("?", np.ones(3, dtype=np.float32), "e5")["diff"] == 0.5
    again = OperationModel.from_json(json.loads(json.dumps(model.to_json())))
    assert again == model


def test_a_hash_embedder_leaves_the_words_model_reading_and_embeds_nothing() -> None:
    embedder = CountingEmbedder("hash-384")
    question = "What was the percentage change in freight revenue from 2018 to 2019?"
    read = analyse_query(question, embedder=embedder).operation
    assert read == analyse_query(question).operation == asked_operation(question, load_model())
    assert embedder.queries == []


def test_the_operation_reuses_the_vector_retrieval_computed() -> None:
    embedder = CountingEmbedder(_shipped_encoder())
    query = analyse_query("2022年到2024年的平均营业收入是多少？", embedder=embedder)
    vector = query.embedding(embedder)
    read = query.operation
    assert embedder.queries == [query.text]  # embedded once, for both
    assert read == asked_operation(query.text, vector=vector, encoder=embedder.name)
    assert reads_embedding(embedder.name) and not reads_embedding("hash-384")


def test_an_asked_question_is_embedded_once_and_its_operation_read_from_it(
    tmp_path: Path, counter, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    embedder = CountingEmbedder(_shipped_encoder())
    settings = Settings(data_dir=tmp_path / "data", cache_dir=REAL_CACHE_DIR)
    library = Library(settings, embedder=embedder, counter=counter)
    assert [r.status for r in library.ingest_paths([SAMPLE_CONTENT_LIST])] == ["ingested"]
    reads: list[bool] = []

    def recording(question, model=None, vector=None, encoder=""):  # type: ignore[no-untyped-def]
        reads.append(vector is not None)
        return asked_operation(question, model, vector, encoder)

    monkeypatch.setattr(analysis, "asked_operation", recording)
    question = "中芯国际2024年营业收入同比增长多少？"
    embedder.queries.clear()
    Pipeline(settings, library).ask(question, AskOptions(kb="default", mode="hybrid"))
    assert embedder.queries.count(question) == 1
    assert reads == [True]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("question", "operation"),
    [
        ("What was the percentage change in freight revenue from 2018 to 2019?", "change_ratio"),
        ("What is the average warehousing revenue for 2018 and 2019?", "average"),
        ("What was the change in total revenue between 2018 and 2019?", "diff"),
        # Chinese, in words of neither the authored rows nor the frozen zh set
        ("2022年到2024年的平均营业收入是多少？", "average"),
        ("2024年营收的同比增速是多少？", "change_ratio"),
        ("有几年的毛利率超过20%？", "count"),
        # 环比 with no unit asks for a rate; a unit asks for the amount
        ("一季度单票收入环比回落了多少？", "change_ratio"),
        ("二季度营收比一季度减少了多少亿元？", "diff"),
        # each of two asked for (分别), not their sum (read as a sum at 0.98 before)
        ("中芯国际2024年和2023年营业收入分别是多少？", "multi-span"),
        ("岳泉酒业和剑阳酒业2026年PE分别是多少？", "multi-span"),
        ("中芯国际2023年和2024年营业收入合计是多少？", "sum"),
    ],
)
def test_the_shipped_model_reads_the_real_encoders_embedding(
    real_embedder, question: str, operation: str
) -> None:  # type: ignore[no-untyped-def]
    assert reads_embedding(real_embedder.name)
    assert analyse_query(question, embedder=real_embedder).operation.name == operation


def test_which_period_stands_out_is_read_as_the_largest_or_the_smallest() -> None:
    # a model leaning to a change (a year before "哪个季度"), the smallest period second
    model = OperationModel(
        ("span", "diff", "year_max", "year_min"),
        {},
        (),
        (0.0, 0.0, 0.0, 0.0),
        "e5",
        2.0,
        ((0.0, 0.0), (1.0, 0.0), (-3.0, 0.0), (0.7, 0.0)),
    )
    ahead = np.array([1.0, 0.0], dtype=np.float32)
    assert model.probabilities("?", ahead, "e5")["diff"] > 0.5
    lowest = asked_operation("中芯国际2024年哪个季度毛利率最低？", model, ahead, "e5")
    assert lowest.name == "year_min" and lowest.confidence > 0.99
    # not asking which period, or not which stands out: the model's reading stands
    assert asked_operation("2024年毛利率比上年下降了多少？", model, ahead, "e5").name == "diff"
    assert asked_operation("2024年哪个季度的毛利率是20.5%？", model, ahead, "e5").name == "diff"
    # however little weight the model gives the two, it tells them apart
    faint = OperationModel(
        ("span", "year_max", "year_min"), {}, (), (0.0, 0.0, 0.0), "e5", 2.0,
        ((5.0, 0.0), (-5.0, 0.0), (-6.0, 0.0)),
    )  # fmt: skip
    highest = asked_operation("Which quarter had the highest margin?", faint, ahead, "e5")
    assert highest.name == "year_max" and highest.runner_up == "year_min"
