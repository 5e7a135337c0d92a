"""A restored answer's source cards draw as the live answer's did (issue 26): after a reload the
cards of a saved turn (ui/render_saved.py) kept their header, their ✂️ note, the part of a table
they show, their section (章节) line, the lines citing them ("cited by") and the cells those
lines quote; a turn saved before the section and the sub-tables were kept reads them off the
library. Drawn by AppTest from a real (hash-embedded) library, in zh and en."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from rag_app.answer.scripted import ScriptedLLM
from rag_app.chat.conversations import saved_turn, turn_to_json
from rag_app.index.library import Library
from rag_app.models import AskOptions
from rag_app.pipeline.ask import Pipeline
from tests.conftest import SAMPLE_CONTENT_LIST, hash_library

QUESTION = "中芯京城的规划产能和当前产能是多少？"
# A small source budget, so that the first source (表6, merged from its two sub-tables) is cut.
OPTIONS = AskOptions(kb="default", mode="hybrid", context_budget=900)
SCRIPTED = "中芯京城: 规划产能 10.0; 当前产能 5.0 [Source 1]。"


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory, counter: Any) -> Library:
    return hash_library(tmp_path_factory.mktemp("restored-cards"), counter, [SAMPLE_CONTENT_LIST])


def _cards(kind: str, answer: object, lib: object, payload: str) -> None:
    from rag_app.chat.conversations import restored_answer, turn_from_json
    from ui.render_saved import render_saved_sources
    from ui.render_sources import render_sources

    if kind == "live":
        names = {d.doc_id: d.name for d in lib.documents("default")}  # type: ignore[attr-defined]
        render_sources(answer, lib, "default", names)  # type: ignore[arg-type]
    else:
        saved = turn_from_json(payload)
        render_saved_sources(saved, restored_answer(saved), lib, "")  # type: ignore[arg-type]


def _drawn(kind: str, answer: Any, lib: Library, payload: str, lang: str) -> list[Any]:
    at = AppTest.from_function(_cards, args=(kind, answer, lib, payload), default_timeout=60)
    at.session_state["lang"] = lang
    at.run()
    assert not at.exception, at.exception
    return [(e.label, [m.value for m in e.markdown]) for e in at.expander]


def test_a_restored_card_draws_as_the_live_one(sample: Library, lang: str) -> None:
    answer = Pipeline(sample.settings, sample, ScriptedLLM(SCRIPTED)).ask(QUESTION, OPTIONS)
    first = answer.prompt.sources[0]
    assert first.status == "cut" and first.hit.chunk.caption.startswith("表6")
    names = {d.doc_id: d.name for d in sample.documents("default")}
    saved = saved_turn(QUESTION, OPTIONS, answer, doc_names=names)
    live = _drawn("live", answer, sample, "", lang)
    restored = _drawn("saved", None, sample, turn_to_json(saved), lang)
    assert live == restored
    label, body = restored[0]
    text = "\n".join(body)
    zh = lang == "zh"
    assert label.startswith("**[来源 1]**" if zh else "**[Source 1]**")
    assert ("✂️ 仅前半部分" if zh else "✂️ ") in text
    assert ("章节：" if zh else "Section: ") + "3 产能扩张" in text
    assert ("引用它的句子" if zh else "Cited by") in text and "中芯京城: 规划产能 10.0" in text
    # the quoted cells marked, as live, and the cells its traced numbers link to anchored
    assert re.search(r'class="rag-hit"(?: id="[^"]+")?>5\.0<', text)
    assert 'id="source-1-cell-' in text

    # a turn saved before the card's section and sub-tables were kept: read off the library
    old = json.loads(turn_to_json(saved))
    for source in old["sources"]:
        for field in ("section", "subtables", "subtable_count"):
            del source[field]
    assert _drawn("saved", None, sample, json.dumps(old), lang) == restored
