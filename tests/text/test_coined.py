"""Names written in capitals point at the documents that mention them (issue 24: "Which datasets
are used to evaluate KEHGCN?" over a library with another paper)."""

from __future__ import annotations

from rag_app.answer.offline import ExtractiveAnswerer
from rag_app.cite import check_answer
from rag_app.models import Chunk
from rag_app.text.coined import coined_names, naming_documents
from rag_app.understand.analysis import analyse_query

PAPER = Chunk(
    chunk_id="graph:0002",
    doc_id="graph",
    type="text",
    text=(
        "Extensive experiments on the LUMEN-2 and ORCA-9 datasets demonstrate that TRELLIS "
        "outperforms strong baselines."
    ),
    search_text="Hypergraph medication recommendation > Introduction",
    item_indices=(2,),
)
OTHER = Chunk(
    chunk_id="river:0007",
    doc_id="river",
    type="text",
    text="The Nash coefficient was used to evaluate the fit between observed and predicted flows.",
    search_text="Zero flow days in catchments > Methods",
    item_indices=(7,),
)
QUESTION = "Which datasets are used to evaluate TRELLIS?"


def test_names_in_capitals_are_names_not_metrics_or_periods() -> None:
    assert coined_names(QUESTION) == ("TRELLIS",)
    assert coined_names("What is CATL's EPS in FY2024?") == ("CATL",)
    assert coined_names("What does Figure 3 show?") == ()


def test_a_name_points_at_the_documents_that_mention_it() -> None:
    texts = {"graph": PAPER.text, "river": OTHER.text}
    assert naming_documents(["TRELLIS"], texts) == {"graph"}
    assert naming_documents(["NOWHERE"], texts) is None


def test_the_answer_quotes_the_paper_the_question_names() -> None:
    text = ExtractiveAnswerer().answer_text(analyse_query(QUESTION), [(1, OTHER), (2, PAPER)], "en")
    lines = [line for line in text.splitlines() if line.startswith("- ")]
    assert lines and all(line.endswith("[Source 2]") for line in lines)
    assert "LUMEN-2" in lines[0]


def test_a_sentence_from_another_document_is_off_question() -> None:
    answer = (
        "- The Nash coefficient was used to evaluate the fit between observed and predicted "
        "flows. [Source 1]\n- Extensive experiments on the LUMEN-2 and ORCA-9 datasets "
        "demonstrate that TRELLIS outperforms strong baselines. [Source 2]"
    )
    report = check_answer(answer, {1: OTHER, 2: PAPER}, None, analyse_query(QUESTION))
    other, paper = [s for s in report.sentences if s.factual]
    assert not other.relevant and "TRELLIS" in other.off_subject
    assert paper.relevant
