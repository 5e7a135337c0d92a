"""The API against its own /openapi.json: Schemathesis (every check it has: no 5xx, documented
status codes and content types, responses matching their schemas, schema-valid requests
accepted and invalid ones rejected, the Allow header) over the in-process app with the sample
report, a few examples an operation so the suite stays quick. ../shared/checks/api-contract runs
the same against a real `rag-app serve` with more examples."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

schemathesis = pytest.importorskip("schemathesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis.errors import Unsatisfiable  # noqa: E402

from tests.conftest import SAMPLE_CONTENT_LIST  # noqa: E402
from tests.server.conftest import sample_library  # noqa: E402

pytestmark = pytest.mark.slow

TOKEN = "contract-token+/="


@pytest.fixture(scope="module")
def contract_app(tmp_path_factory, counter) -> Iterator[Any]:  # type: ignore[no-untyped-def]
    from fastapi.testclient import TestClient

    from rag_app.server import create_app

    library = sample_library(tmp_path_factory.mktemp("contract"), counter)
    # The knowledge base the document's examples name, so they reach an answer.
    reports = library.ingest_paths([SAMPLE_CONTENT_LIST], "示例")
    assert [r.status for r in reports] == ["ingested"]
    app = create_app(library.settings, library=library, llm=None)
    with TestClient(app):  # runs the lifespan (warm-up)
        yield schemathesis.openapi.from_asgi("/openapi.json", app)


@pytest.mark.parametrize("mode", ["positive", "negative"])
def test_every_operation_keeps_its_documented_contract(contract_app, mode) -> None:  # type: ignore[no-untyped-def]
    """Valid requests (positive) and invalid ones (negative), a few of each per operation."""
    from schemathesis import GenerationMode

    generation = GenerationMode.POSITIVE if mode == "positive" else GenerationMode.NEGATIVE
    operations = [result.ok() for result in contract_app.get_all_operations()]
    assert len(operations) == 27
    tested = 0
    for operation in operations:

        @given(case=operation.as_strategy(generation_mode=generation))
        @settings(
            max_examples=6,
            deadline=None,
            suppress_health_check=list(HealthCheck),
            derandomize=True,
            database=None,
        )
        def run(case) -> None:  # type: ignore[no-untyped-def]
            case.call_and_validate()

        try:
            run()
            tested += 1
        except Unsatisfiable:
            # an operation with no parameter and no body has no invalid request to make
            assert mode == "negative", operation.label
    assert tested >= (26 if mode == "positive" else 17)


def test_the_document_is_served_behind_the_token_when_one_is_set(make_client) -> None:
    open_client = make_client()
    assert open_client.get("/openapi.json").status_code == 200
    assert open_client.get("/docs").status_code == 200
    client = make_client(token=TOKEN)
    assert client.get("/openapi.json").status_code == 401
    assert client.get("/docs").status_code == 404  # Swagger UI cannot send a token
    doc = client.get("/openapi.json", headers={"Authorization": f"Bearer {TOKEN}"}).json()
    upload = doc["paths"]["/v1/kbs/{kb}/documents"]["post"]
    assert "multipart/form-data" in upload["requestBody"]["content"]
    assert {"200", "207", "409", "413", "415", "422", "429"} <= set(upload["responses"])
    ask = doc["paths"]["/v1/ask"]["post"]["responses"]["200"]["content"]
    assert {"application/json", "text/event-stream"} <= set(ask)
    metrics = doc["paths"]["/metrics"]["get"]["responses"]["200"]["content"]
    assert list(metrics) == ["text/plain"]
