"""Audit records written straight into a data dir's log, as answered questions leave them: the
Audit page's tests (AppTest and browser) need a known list, not whatever earlier tests asked."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from rag_app.chat.audit import AuditLog, AuditRecord

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
