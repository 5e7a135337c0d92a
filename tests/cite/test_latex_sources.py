"""A source's MinerU math reads as text in the offline answer, in the citation check and in the
export, and the check still finds the answer's numbers in it (issue 21, item 11)."""

from __future__ import annotations

import re

from rag_app.chat.conversations import Conversation, ConversationInfo, saved_turn
from rag_app.chat.export import to_markdown
from rag_app.index.library import Library
from rag_app.models import AskOptions
from rag_app.pipeline.ask import Pipeline

OPTIONS = AskOptions(kb="default", mode="hybrid")
# Written after the battery datasheet's shapes in ../shared/eval/mineru_fixtures.
DATASHEET = [
    {"type": "text", "text": "星河电芯规格书", "text_level": 1},
    {
        "type": "text",
        "text": r"星河电芯的标准充电温度为$2 5 { \pm } 3 ^ { \circ } \mathrm { C }$，"
        r"充电截止电压为$4 . 2 5 \mathrm { V }$。",
    },
    {
        "type": "text",
        "text": r"星河电芯的额定容量为$\geq 1 5 0 ~ \mathrm { A h }$，工作温度为"
        r"${ } _ { - 2 0 } \mathrm { { } ^ { \circ } C }$至$5 5 ~ ^ { \circ } \mathrm { C }$。",
    },
]
_LEFTOVER = re.compile(r"\\[A-Za-z]|\$|[{}]|\^\s*°|mathrm|circ")


def test_quoted_math_is_text_and_its_numbers_are_found(library: Library, ingest_json) -> None:  # type: ignore[no-untyped-def]
    assert ingest_json(DATASHEET, "xinghe_content_list.json").status == "ingested"
    answer = Pipeline(library.settings, library).ask("星河电芯的标准充电温度是多少？", OPTIONS)
    assert "25±3°C" in answer.text, answer.text
    assert not _LEFTOVER.search(answer.text), answer.text
    assert answer.citations is not None
    quoted = [s for s in answer.citations.sentences if "25±3°C" in s.text]
    assert quoted and all(s.supported for s in quoted), quoted
    assert not [s for s in quoted if "number" in s.reason and "not" in s.reason], quoted

    info = ConversationInfo("c1", "", "星河", "default", "2026-01-01T00:00:00", "", 1)
    exported = to_markdown(Conversation(info, (saved_turn(answer.question, OPTIONS, answer),)))
    body = exported.split("\n## 1.", 1)[1]
    assert "25±3°C" in body and not _LEFTOVER.search(body), body


def test_an_export_reads_a_models_latex_as_text() -> None:
    from rag_app.chat.conversations import SavedTurn

    info = ConversationInfo("c1", "", "t", "default", "2026-01-01T00:00:00", "", 1)
    turn = SavedTurn("q", OPTIONS, answer=r"充电温度为 $25 \pm 3 ^{\circ} \mathrm{C}$ [Source 1]")
    exported = to_markdown(Conversation(info, (turn,)))
    assert "充电温度为 25±3°C [来源 1]" in exported
