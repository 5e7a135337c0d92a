"""Saved conversations (rag_app/chat/conversations.py): the store, one user's view, a turn's stored
form from a real pipeline answer, the Markdown export. The store's tests run on a SQLite file and
on the shared PostgreSQL database (tests/backends.py)."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from rag_app.answer.scripted import ScriptedLLM, ScriptedResponse
from rag_app.chat.conversations import (
    Conversation,
    ConversationStore,
    SavedSource,
    SavedTurn,
    saved_turn,
    turn_from_json,
    turn_to_json,
)
from rag_app.chat.export import to_markdown
from rag_app.index.library import Library
from rag_app.models import AskOptions
from rag_app.pipeline.ask import Pipeline
from tests.backends import BACKENDS, backend_url
from tests.conftest import SAMPLE_CONTENT_LIST, hash_library

OPTIONS = AskOptions(kb="示例", mode="hybrid", doc_ids=("d1",), prompt_mode="precise", top_k=5)
QUESTION = "中芯国际2026年预测市盈率是多少？"
SCRIPTED = "2026年预测市盈率为106.2倍 [Source 1]。另见 [Source 99]。"


def turn(question: str = QUESTION, answer: str = "106.2 [Source 1]") -> SavedTurn:
    return SavedTurn(
        question,
        OPTIONS,
        answer=answer,
        answerer="scripted",
        sources=(SavedSource(1, "d1", "smic.zip", "c1", "table", (2, 3), "表1", "106.2"),),
    )


@pytest.fixture(params=BACKENDS)
def url(request: pytest.FixtureRequest) -> str:
    return backend_url(request)


@pytest.fixture
def store(tmp_path: Path, url: str) -> ConversationStore:
    return ConversationStore.in_dir(tmp_path, url)


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory, counter) -> Library:  # type: ignore[no-untyped-def]
    return hash_library(tmp_path_factory.mktemp("conversations"), counter, [SAMPLE_CONTENT_LIST])


def test_conversations_are_listed_most_recently_active_first(store: ConversationStore) -> None:
    first = store.create("", "第一个问题", "示例")
    second = store.create("", "第二个问题", "示例")
    assert [c.id for c in store.list("")] == [second.id, first.id]
    assert store.append("", first.id, turn())
    assert [c.title for c in store.list("")] == ["第一个问题", "第二个问题"]
    assert store.list("")[0].n_turns == 1
    assert [c.id for c in store.list("", limit=1)] == [first.id]


def test_ids_are_url_safe_and_titles_are_one_cut_line(store: ConversationStore) -> None:
    info = store.create("", "  a\nlong   question " + "x" * 300, "示例")
    assert len(info.id) >= 16 and info.id.replace("-", "").replace("_", "").isalnum()
    assert info.title.startswith("a long question x") and len(info.title) == 120
    assert info.title.endswith("…")


def test_rename_and_delete(store: ConversationStore) -> None:
    info = store.create("", "q", "示例")
    store.append("", info.id, turn())
    assert store.rename("", info.id, "  新标题 ")
    assert store.info("", info.id).title == "新标题"  # type: ignore[union-attr]
    assert not store.rename("", info.id, "   ")  # a blank title is refused
    assert store.delete("", info.id)
    assert store.get("", info.id) is None and store.list("") == []
    assert not store.delete("", info.id)
    assert not store.append("", info.id, turn())  # a deleted conversation takes no turn
    # its turns went with it
    assert store._db.execute("SELECT COUNT(*) FROM turns").fetchone() == (0,)


def test_one_user_never_reaches_another_users_conversation(store: ConversationStore) -> None:
    alice = store.create("alice@example.com", "Alice's question", "示例")
    store.append("alice@example.com", alice.id, turn())
    local = store.create("", "the local user's", "示例")
    assert [c.id for c in store.list("bob@example.com")] == []
    assert [c.id for c in store.list("")] == [local.id]
    # knowing the id is not enough: read, append, rename, delete all refuse
    assert store.get("bob@example.com", alice.id) is None
    assert store.get("", alice.id) is None
    assert not store.append("bob@example.com", alice.id, turn("bob's"))
    assert not store.rename("bob@example.com", alice.id, "mine now")
    assert not store.delete("bob@example.com", alice.id)
    kept = store.get("alice@example.com", alice.id)
    assert kept is not None and kept.info.title == "Alice's question"
    assert [t.question for t in kept.turns] == [QUESTION]
    # preferences too
    store.save_preferences("alice@example.com", {"lang": "en"})
    assert store.preferences("bob@example.com") == {} and store.preferences("") == {}
    store.forget_user("alice@example.com")
    assert store.list("alice@example.com") == [] and store.list("") != []


def test_turns_and_preferences_survive_reopening_the_file(tmp_path: Path, url: str) -> None:
    store = ConversationStore.in_dir(tmp_path, url)
    info = store.create("", QUESTION, "示例")
    store.append("", info.id, turn())
    store.append("", info.id, turn("那2026年呢？", "23.5 [Source 1]"))
    store.save_preferences("", {"lang": "en", "mode": "hybrid", "doc_filter": {"示例": ["d1"]}})
    store.close()
    again = ConversationStore(tmp_path / "conversations.sqlite", url)
    found = again.get("", info.id)
    assert found is not None
    assert [t.question for t in found.turns] == [QUESTION, "那2026年呢？"]
    assert found.turns[0] == turn()  # whole, options and sources included
    assert again.preferences("") == {"lang": "en", "mode": "hybrid", "doc_filter": {"示例": ["d1"]}}


def test_two_threads_appending_lose_no_turn_and_keep_each_order(store: ConversationStore) -> None:
    info = store.create("", "q", "示例")
    errors: list[BaseException] = []

    def write(name: str) -> None:
        try:
            for i in range(40):
                assert store.append("", info.id, turn(f"{name}-{i}"))
        except BaseException as exc:  # noqa: BLE001 - reported by the assertion below
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(n,)) for n in ("a", "b")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    found = store.get("", info.id)
    assert found is not None and found.info.n_turns == 80 and len(found.turns) == 80
    for name in ("a", "b"):
        mine = [t.question for t in found.turns if t.question.startswith(name)]
        assert mine == [f"{name}-{i}" for i in range(40)]


def test_a_second_process_connection_sees_committed_turns(tmp_path: Path, url: str) -> None:
    one, two = ConversationStore.in_dir(tmp_path, url), ConversationStore.in_dir(tmp_path, url)
    info = one.create("", "q", "示例")
    one.append("", info.id, turn())
    assert [t.question for t in two.get("", info.id).turns] == [QUESTION]  # type: ignore[union-attr]
    # begun behind one process, the conversation goes on behind the other, and back
    assert two.append("", info.id, turn("那2026年呢？"))
    assert one.append("", info.id, turn("third"))
    found = one.get("", info.id)
    assert found is not None and found.info.n_turns == 3
    assert [t.question for t in found.turns] == [QUESTION, "那2026年呢？", "third"]
    later = two.create("", "later", "示例")
    assert [c.id for c in one.list("")] == [later.id, info.id]
    assert two.rename("", info.id, "renamed") and one.info("", info.id).title == "renamed"  # type: ignore[union-attr]
    one.save_preferences("alice", {"lang": "en"})
    assert two.preferences("alice") == {"lang": "en"}
    assert two.delete("", later.id) and [c.id for c in one.list("")] == [info.id]
    one.close(), two.close()


def test_two_processes_appending_to_one_conversation_lose_no_turn(tmp_path: Path, url: str) -> None:
    stores = [ConversationStore.in_dir(tmp_path, url) for _ in range(2)]
    info = stores[0].create("", "q", "示例")
    errors: list[BaseException] = []

    def write(store: ConversationStore, name: str) -> None:
        try:
            for i in range(15):
                assert store.append("", info.id, turn(f"{name}-{i}"))
        except BaseException as exc:  # noqa: BLE001 - reported by the assertion below
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(s, n)) for s, n in zip(stores, "ab")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    found = stores[1].get("", info.id)
    assert found is not None and found.info.n_turns == 30 and len(found.turns) == 30
    for name in "ab":
        mine = [t.question for t in found.turns if t.question.startswith(name)]
        assert mine == [f"{name}-{i}" for i in range(15)]


def test_conversations_created_in_one_instant_list_newest_first(
    store: ConversationStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Equal times fall back to the order of creation (SQLite's rowid, PostgreSQL's seq)."""
    import rag_app.chat.conversations as module

    monkeypatch.setattr(module, "_now", lambda: "2026-01-01T00:00:00.000000+00:00")
    ids = [store.create("", f"q{i}", "示例").id for i in range(3)]
    assert [c.id for c in store.list("")] == ids[::-1]


def test_a_real_answer_is_stored_with_its_sources_and_citation_check(sample: Library) -> None:
    options = AskOptions(kb="default", mode="hybrid")
    answer = Pipeline(sample.settings, sample, ScriptedLLM(SCRIPTED)).ask(QUESTION, options)
    names = {d.doc_id: d.name for d in sample.documents("default")}
    saved = saved_turn(QUESTION, options, answer, doc_names=names)
    assert saved.answer == answer.text and saved.answerer == answer.answerer
    assert [s.number for s in saved.sources] == [s.number for s in answer.prompt.sources]
    first = answer.prompt.sources[0].hit.chunk
    source = saved.sources[0]
    assert (source.chunk_id, source.doc_id, source.pages) == (
        first.chunk_id,
        first.doc_id,
        first.pages,
    )
    assert source.doc_name == names[first.doc_id] and source.excerpt
    assert saved.dangling == (99,)
    assert [s.cited for s in saved.sentences] == [s.cited for s in answer.citations.sentences]
    assert [s.flagged for s in saved.sentences] == [s.flagged for s in answer.citations.sentences]
    # the JSON round trip keeps all of it, reasons included
    assert turn_from_json(turn_to_json(saved)) == saved
    # the chunk can be found again in the library by its id
    again = {c.chunk_id for c in sample.chunks("default", source.doc_id)}
    assert source.chunk_id in again


def test_an_off_question_mark_survives_the_round_trip(sample: Library) -> None:
    question = "中芯国际2026年预测市盈率是多少？"
    off = ScriptedLLM(ScriptedResponse(text="中芯国际2025年预测市盈率为132.0倍。[Source 1]"))
    options = AskOptions(kb="default", mode="hybrid")
    answer = Pipeline(sample.settings, sample, off).ask(question, options)
    assert answer.hits
    saved = saved_turn(question, options, answer)
    marked = [s for s in saved.sentences if not s.relevant]
    assert marked and marked[0].off_reasons[0].key == "off_period"
    assert turn_from_json(turn_to_json(saved)) == saved


def test_a_failed_turn_is_stored_as_such() -> None:
    saved = saved_turn(QUESTION, OPTIONS, None, "boom")
    assert not saved.answered and saved.failure == "boom" and saved.answer == ""
    assert turn_from_json(turn_to_json(saved)) == saved


def test_markdown_export_lists_the_cited_sources_under_each_answer(
    store: ConversationStore,
) -> None:
    info = store.create("", QUESTION, "示例")
    two = SavedTurn(
        "那2026年呢？",
        OPTIONS,
        answer="2026E 毛利率 23.5% [Source 2]",
        sources=(
            SavedSource(1, "d1", "smic.zip", "c1", "text", (0,), "", "x"),
            SavedSource(2, "d1", "smic.zip", "c2", "table", (4, 5), "盈利预测", "23.5"),
        ),
    )
    store.append("", info.id, turn())
    store.append("", info.id, two)
    store.append("", info.id, saved_turn("third", OPTIONS, None, "the model was unreachable"))
    conversation = store.get("", info.id)
    assert isinstance(conversation, Conversation)
    zh = to_markdown(conversation, "zh")
    assert zh.startswith(f"# {QUESTION}\n")
    assert (
        "## 1. "
        + QUESTION
        + "\n\n106.2 [来源 1]\n\n**来源**\n\n- [来源 1] smic.zip, 第 3–4 页 — 表1"
        in zh
    )
    # the markers as the Chinese UI draws them (issue 26)
    assert "## 2. 那2026年呢？\n\n2026E 毛利率 23.5% [来源 2]\n\n**来源**\n\n" in zh
    assert "- [来源 2] smic.zip, 第 5–6 页 — 盈利预测" in zh and "[Source" not in zh
    assert "[来源 1] smic.zip, 第 1 页" not in zh  # not cited by that answer
    assert "## 3. third\n\n未能回答：the model was unreachable" in zh
    en = to_markdown(conversation, "en")
    assert "- [Source 2] smic.zip, p. 5–6 — 盈利预测" in en and "**Sources**" in en


def test_a_merged_table_source_is_joined_again_from_its_sub_tables() -> None:
    from rag_app.chat.conversations import source_chunk
    from rag_app.models import Chunk

    def part(i: int) -> Chunk:
        rows = "<tr><td>项目</td><td>2026E</td></tr>" + f"<tr><td>row{i}</td><td>{i}</td></tr>"
        return Chunk(
            f"d1:t{i}", "d1", "table", f"row{i}", f"row{i}", (i,), (i,),
            table_html=f"<table>{rows}</table>", header_rows=1, parent_table_id="d1#table1",
            subtable_index=i, subtable_count=2,
        )  # fmt: skip

    chunks = {c.chunk_id: c for c in (part(1), part(2))}
    merged = SavedSource(1, "d1", "x", "d1#table1", "table", part_ids=("d1:t1", "d1:t2"))
    chunk = source_chunk(merged, chunks)
    assert chunk is not None and chunk.chunk_id == "d1#table1"
    assert "row1" in chunk.table_html and "row2" in chunk.table_html
    assert source_chunk(SavedSource(2, "d1", "x", "d1:t2", "table"), chunks) == part(2)
    gone = SavedSource(3, "d1", "x", "d1#table1", "table", part_ids=("d1:t1", "d1:t9"))
    assert source_chunk(gone, chunks) is None


# -- what an answer showed, kept (issue 26) ------------------------------------------------------
def test_a_turn_keeps_what_its_answer_showed_and_redraws_it(
    sample: Library, store: ConversationStore
) -> None:
    from rag_app.chat.conversations import restored_answer
    from rag_app.prompt import Turn

    history = [Turn("中芯国际2025年的毛利率预测是多少？", "2025E 毛利率 21.8% [Source 1]")]
    options = AskOptions(kb="default", mode="smart")
    answer = Pipeline(sample.settings, sample, None).ask("那2026年呢？", options, history)
    assert answer.understood is not None and answer.understood.rewritten
    assert answer.citations is not None and answer.citations.sentences
    names = {d.doc_id: d.name for d in sample.documents("default")}
    info = store.create("", "q", "default")
    store.append("", info.id, saved_turn("那2026年呢？", options, answer, doc_names=names))
    conversation = store.get("", info.id)
    assert conversation is not None
    (saved,) = conversation.turns
    # stored: the understood question, the whole check, the hits, routing, prompt, timings
    assert saved.understood == answer.understood and saved.checked and saved.has_details
    assert saved.retrieval is not None and saved.prompt is not None
    assert [(h.chunk_id, h.rank, h.score, h.strategy, h.signals) for h in saved.retrieval.hits] == [
        (h.chunk.chunk_id, h.rank, h.score, h.strategy, h.signals) for h in answer.hits
    ]
    assert saved.retrieval.routing == answer.retrieval.routing
    assert saved.retrieval.layers == answer.retrieval.layers
    assert saved.prompt.report == answer.prompt.report
    assert saved.timings == answer.timings and dict(saved.doc_names) == {
        d: n for d, n in names.items() if d in {h.chunk.doc_id for h in answer.hits}
    }
    # rebuilt for the same render functions: everything they read is as it was
    again = restored_answer(saved)
    assert again.understood == answer.understood and again.text == answer.text
    assert again.citations.sentences == answer.citations.sentences
    assert again.citations.dangling == answer.citations.dangling
    assert again.citations.relevance_checked == answer.citations.relevance_checked
    assert again.citations.summary() == answer.citations.summary()
    assert [h.chunk.chunk_id for h in again.hits] == [h.chunk.chunk_id for h in answer.hits]
    assert again.prompt.report == answer.prompt.report
    assert again.prompt.chat_messages() == answer.prompt.chat_messages()
    assert [s.number for s in again.prompt.sources] == [s.number for s in answer.prompt.sources]
    assert again.timings == answer.timings and again.answerer == answer.answerer


def test_a_turn_saved_before_the_details_were_kept_still_loads() -> None:
    from rag_app.chat.conversations import restored_answer

    old = {
        "question": QUESTION,
        "options": {"kb": "示例", "mode": "smart", "doc_ids": [], "prompt_mode": "advanced",
                    "top_k": None, "context_budget": None, "system_prompt": None, "user": ""},
        "answer": "106.2 [Source 1]", "answerer": "extractive", "error": "", "error_kind": "",
        "fallback_from": "", "failure": "",
        "sources": [{"number": 1, "doc_id": "d1", "doc_name": "smic", "chunk_id": "c1",
                     "type": "table", "pages": [2], "title": "", "excerpt": "106.2",
                     "status": "kept", "part_ids": []}],
        "sentences": [{"start": 0, "end": 16, "text": "106.2", "cited": [1], "supported": False,
                       "factual": True, "reason": "no overlap",
                       "reasons": [{"key": "no_overlap", "values": []}], "evidence": "",
                       "relevant": True, "off_reasons": []}],
        "dangling": [], "timings": [["total_ms", 12.5]], "asked_at": "2026-01-01T00:00:00",
    }  # fmt: skip
    import json

    saved = turn_from_json(json.dumps(old))
    assert saved.understood is None and not saved.checked and not saved.has_details
    assert saved.sentences[0].support == 0.0 and saved.sentences[0].flagged
    assert saved.timings == (("total_ms", 12.5),) and saved.options.doc_ids == ()
    answer = restored_answer(saved)
    assert answer.citations.sentences[0].flagged and answer.prompt is None
    assert answer.hits == () and answer.text == "106.2 [Source 1]"
    assert turn_from_json(turn_to_json(saved)) == saved


def test_markdown_export_has_the_understood_question_and_the_check() -> None:
    from rag_app.chat.conversations import ConversationInfo, SavedCheck
    from rag_app.models import Understood

    checks = (
        SavedCheck(0, 14, "2026E 毛利率 23.5%", (1,), True, support=0.9),
        SavedCheck(15, 30, "2025E 毛利率 21.8%", (1,), True, relevant=False, off_subject="2025E"),
        SavedCheck(31, 40, "另有增长", (), False),
    )
    two = SavedTurn(
        "那2026年呢？",
        OPTIONS,
        answer="2026E 毛利率 23.5% [Source 1] 2025E 毛利率 21.8% [Source 1] 另有增长",
        sources=(SavedSource(1, "d1", "smic.zip", "c2", "table", (4,), "盈利预测", "23.5"),),
        sentences=checks,
        understood=Understood("中芯国际2026年的毛利率预测是多少？", "carried"),
        checked=True,
        relevance_checked=True,
    )
    info = ConversationInfo("x", "", "t", "示例", "2026-01-01T00:00:00", "", 1)
    zh = to_markdown(Conversation(info, (two,)), "zh")
    assert "## 1. 那2026年呢？\n\n*理解为：中芯国际2026年的毛利率预测是多少？*\n\n2026E" in zh
    assert "**引用核查** ⚠️ 2/2 有来源支持 · 1/2 切题" in zh
    assert "- ⚠️ 2025E 毛利率 21.8% — 不切题 (2025E)" in zh
    assert "- ⚠️ 另有增长 — 未引用来源" in zh
    en = to_markdown(Conversation(info, (two,)), "en")
    assert "*Understood as: 中芯国际2026年的毛利率预测是多少？*" in en
    assert "**Citation check** ⚠️ 2/2 supported · 1/2 about the question" in en
    # a turn with no check (an old one, no sentences) exports as before: no check line
    assert "引用核查" not in to_markdown(Conversation(info, (turn(),)), "zh")
