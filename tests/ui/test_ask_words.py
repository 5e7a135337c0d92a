"""What the Ask page says of a model's failure, of who answered, and which examples it offers,
in the UI's language only (issue 26): the core's two-language failure message worded from its
kind, the offline answerer by what it is, English examples on the English page."""

from __future__ import annotations

import re
from pathlib import Path

from rag_app.answer import ChatMessage, ExtractiveAnswerer, GenerationRequest, LLMError
from rag_app.answer.offline import DECLINED_FALLBACK_NOTICE, FALLBACK_NOTICE
from rag_app.models import Answer, AskOptions, RetrievalTrace, Understood
from ui import resources
from ui.ask_examples import example_questions
from ui.i18n import model_error_text, rewrite_note_text
from ui.render import worded
from ui.render_timings import answerer_label

CJK = re.compile(r"[\u4e00-\u9fff]")


def test_a_model_failure_reads_in_the_users_language_only(lang: str) -> None:
    error = LLMError("connection", "ConnectError").user_message
    assert "/" in error  # the core's message holds both languages
    zh = lang == "zh"
    # The detail names the exception's class only: the worded message alone (issue 26).
    assert model_error_text(error, "connection") == (
        "无法连接大模型服务" if zh else "Could not connect to the language model service"
    )
    for name in ("RemoteProtocolError", "httpx.ConnectTimeout", "ValueError"):
        worded_only = model_error_text(LLMError("connection", name).user_message)
        assert name not in worded_only
    said = LLMError("auth", "HTTP 401: Incorrect API key provided").user_message
    assert model_error_text(said) == (
        "API Key 无效或无权限，请在设置页检查（详情：HTTP 401: Incorrect API key provided）"
        if zh
        else "The API key was rejected; check it on the settings page "
        "(details: HTTP 401: Incorrect API key provided)"
    )  # a detail in words stays
    cut = LLMError("timeout", partial=True).user_message
    assert model_error_text(cut) == (
        "回答中途中断：大模型服务响应超时"
        if zh
        else "The answer was cut off: The language model service timed out"
    )
    assert model_error_text("something else") == "something else"
    note = rewrite_note_text(f"the model failed: {error}")
    assert note.startswith("模型调用失败：无法连接" if zh else "the model failed: Could not")
    assert (CJK.search(note) is None) != zh
    assert rewrite_note_text("no reply within 5 s") == (
        "5 秒内无回复" if zh else "no reply within 5 s"
    )
    answer = Answer(
        "q",
        "",
        RetrievalTrace("q", "smart", ()),
        None,
        None,
        "offline-extractive",
        error=error,
        error_kind="connection",
        fallback_from="gpt-test",
        understood=Understood("q", note=f"the model failed: {error}"),
    )
    shown = worded(answer)
    if zh:
        assert CJK.search(shown.error) and "Could not" not in shown.error
    else:
        assert not CJK.search(shown.error)
    assert shown.understood is not None and "/" not in shown.understood.note


def test_who_answered_reads_in_the_users_language(lang: str) -> None:
    zh = lang == "zh"
    assert answerer_label("offline-extractive") == (
        "离线抽取式回答" if zh else "offline extractive answer"
    )
    assert answerer_label("offline-extractive", "gpt-test") == (
        "离线抽取式回答（gpt-test 调用失败）"
        if zh
        else "offline extractive answer (gpt-test failed)"
    )
    assert answerer_label("gpt-4o-mini") == "gpt-4o-mini"


def test_the_examples_are_in_the_pages_language() -> None:
    path = str(resources.SAMPLE_QUESTIONS)
    english = example_questions(path, "en")
    chinese = example_questions(path, "zh")
    assert len(english) >= 6 and "What was SMIC's revenue in 2024?" in english
    # English words throughout (a company's Chinese name may appear, as the report writes it)
    assert all(len(CJK.findall(q)) <= 4 for q in english), english
    assert len(chinese) >= 6 and all(CJK.search(q) for q in chinese)
    assert not set(english) & set(chinese)


def test_a_declined_answer_in_a_failed_models_place_says_the_model_failed(tmp_path: Path) -> None:
    from rag_app.config import Settings
    from rag_app.index.library import Library
    from rag_app.pipeline.ask import Pipeline
    from rag_app.understand.analysis import analyse_query

    settings = Settings(data_dir=tmp_path)
    pipeline = Pipeline(settings, Library(settings))
    assert pipeline.fallback.declined_notice is DECLINED_FALLBACK_NOTICE

    request = GenerationRequest(
        (ChatMessage("user", "q"),),
        analyse_query("中芯国际2030年的产能是多少？"),
        finding="文档库中没有2030年的数据。",
        declined=True,
    )
    fallback = ExtractiveAnswerer(notice=FALLBACK_NOTICE, declined_notice=DECLINED_FALLBACK_NOTICE)
    text = "".join(e.text for e in fallback.stream(request) if e.kind == "token")
    assert text.startswith("（离线回答：大模型调用失败") and "未配置" not in text
    offline = "".join(e.text for e in ExtractiveAnswerer().stream(request) if e.kind == "token")
    assert offline.startswith("（离线回答：未配置大模型")


def test_a_citation_is_drawn_in_the_users_language_and_stored_as_written(lang: str) -> None:
    """Issue 26: the model writes [Source N] in either language (the citation check parses it,
    the saved answer keeps it); the link the reader clicks says 来源 N in the Chinese UI."""
    from ui.render_citations import answer_markdown, check_quotes, checked_lines

    text = "2024年营业收入为57,796百万元 [Source 1]。另见 [Source 3]。"
    drawn = answer_markdown(text, None, "t2", max_number=2)
    word = "来源" if lang == "zh" else "Source"
    assert f"[\\[{word} 1\\]](#t2-source-1)" in drawn  # a link to the card
    assert f"\\[{word} 3\\]" in drawn and "#t2-source-3" not in drawn  # no card: no link
    assert ("[Source" not in drawn) == (lang == "zh")
    from rag_app.chat.saved_turns import SavedCheck, SavedTurn, restored_answer

    check = SavedCheck(0, 24, text[:24], (1,), True, support=0.9)
    turn = SavedTurn("q", AskOptions(kb="示例"), answer=text, sentences=(check,), checked=True)
    answer = restored_answer(turn)
    assert answer.text.count("[Source ") == 2  # the answer itself is kept as the model wrote it
    quoted = check_quotes(answer, checked_lines(answer))  # the check's quotes name it alike
    assert f"&#91;{word} 1&#93; · 0.90" in quoted
