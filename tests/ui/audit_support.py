"""Audit records written straight into a data dir's log, as answered questions leave them: the
Audit page's tests (AppTest and browser) need a known list, not whatever earlier tests asked."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from rag_app.chat.audit import AuditHit, AuditLog, AuditRecord, AuditSource
from rag_app.chat.saved_turns import SavedCheck
from rag_app.models import Reason, Understood

# Shown newest first: 甲 乙 丙 丁. "营业收入" leaves 甲 丙 丁 (乙 filtered away, 丙 in its row),
# "丁" leaves one row (乙's row is past the list's end).
TICK_QUESTIONS = [
    f"勾选测试 {w}" for w in ("营业收入 丁", "营业收入 丙", "毛利率 乙", "营业收入 甲")
]
TICKED = TICK_QUESTIONS[2]  # 乙, the second row


def write_audit_records(data_dir: Path, user: str, questions: list[str]) -> None:
    """One record per question, oldest first, a second apart, by ``user``."""
    log = AuditLog.in_dir(data_dir)
    now = datetime.now(UTC)
    try:
        for n, question in enumerate(questions):
            when = now - timedelta(seconds=len(questions) - n)
            log.add(
                AuditRecord(
                    time=when.isoformat(timespec="milliseconds"),
                    user=user,
                    kb="示例",
                    client="cli",
                    mode="smart",
                    question=question,
                    standalone_question=question,
                    detected_type="text",
                    hits=(),
                    prompt_tokens=100,
                    answerer="offline",
                    model="offline",
                    timings={"total_ms": 10.0},
                )
            )
    finally:
        log.close()


# A follow-up answered through a model that could not be reached (the offline answerer in its
# place): one sentence supported and about the question, one supported but about 2025.
FOLLOW_UP = "那2026年呢？"
MEANT = "中芯国际2026年预测市盈率是多少？"
ON_QUESTION = "中芯国际2026年预测市盈率为106.2倍。"
OFF_QUESTION = "2025年的预测值为132.0倍。"
ANSWER = f"{ON_QUESTION[:-1]} [Source 1]。\n{OFF_QUESTION[:-1]} [Source 1]。"
CONNECT_ERROR = (
    "无法连接大模型服务 / Could not connect to the language model service (ConnectError)"
)


def answered_record() -> AuditRecord:
    """A record as the pipeline writes it now: the answer, how the question was understood,
    the numbered sources and each sentence's verdict, with a provider's connection error."""
    first_end = ANSWER.index("\n")
    return AuditRecord(
        time=datetime.now(UTC).isoformat(timespec="milliseconds"),
        user="local",
        kb="示例",
        client="app",
        mode="smart",
        question=FOLLOW_UP,
        standalone_question=MEANT,
        detected_type="table",
        hits=(
            AuditHit("smic:1", "smic_report", "table", 1.75, "semantic"),
            AuditHit("smic:2", "smic_report", "text", 1.2, "keyword"),
        ),
        prompt_tokens=3000,
        answerer="offline-extractive",
        model="openai-compatible:gpt-test",
        timings={"understand_ms": 1.0, "retrieve_ms": 98.0, "cite_ms": 16.0, "total_ms": 208.0},
        error=CONNECT_ERROR,
        error_kind="connection",
        fallback_from="openai-compatible:gpt-test",
        off_question=(f"{OFF_QUESTION}: 2025年, the question asks 2026年",),
        answer_chars=len(ANSWER),
        answer=ANSWER,
        understood=Understood(MEANT, how="carried", carried=("中芯国际", "市盈率")),
        sources=(AuditSource(1, "smic:1"),),
        sentences=(
            SavedCheck(0, first_end, ON_QUESTION, (1,), True, support=0.93, best_source=1),
            SavedCheck(
                first_end + 1,
                len(ANSWER),
                OFF_QUESTION,
                (1,),
                True,
                support=0.88,
                best_source=1,
                relevant=False,
                off_reasons=(Reason("off_period", (("about", "2025年"), ("asked", "2026年"))),),
                off_subject="2025年, the question asks 2026年",
            ),
        ),
        checked=True,
        relevance_checked=True,
    )
