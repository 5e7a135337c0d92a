"""The Audit page's own labels beyond its filters and columns (views/audit.py, ui/audit_table.py):
the open record's sections and the words for values the log stores as names (client, the
understanding stage). Modes, chunk types, strategies, the other stages and provider errors are
worded as the Ask page words them (ui/i18n.py)."""

# key -> (Chinese, English). Placeholders use str.format names.
AUDIT_TEXTS: dict[str, tuple[str, str]] = {
    "audit_col_chunk": ("片段", "Chunk"),
    "audit_answer": ("回答", "Answer"),
    "audit_hits": ("检索到的片段", "Retrieved chunks"),
    "audit_doubtful": ("存疑句（{n}）", "Flagged sentences ({n})"),
    "audit_flagged_help": (
        "回答中被标 ⚠️ 的句子数：未被来源支持、没有引用来源，或与问题不符（每句只计一次）。",
        "Answer sentences marked ⚠️: not supported by their sources, citing none, or not about "
        "the question (each counted once).",
    ),
    "audit_full_text_help": (
        "勾选该行可在下方看到完整内容。",
        "Tick the row to see the full text below.",
    ),
    # rag_app.chat.audit.AuditRecord.client
    "audit_client_app": ("网页", "Web app"),
    "audit_client_cli": ("命令行", "CLI"),
    "audit_client_api": ("接口", "API"),
    "audit_client_eval": ("评测", "Evaluation"),
    # the stage the Ask page's timings line does not show (the question's analysis)
    "audit_t_understand_ms": ("理解", "understand"),
    "audit_answered_offline": ("{answerer}代为作答", "{answerer} answered in its place"),
    "audit_col_feedback": ("反馈", "Feedback"),
    "audit_feedback_by": ("反馈（{who}）：{text}", "Feedback ({who}): {text}"),
    "audit_feedback": ("反馈", "Feedback"),
    "audit_feedback_all": ("全部", "All"),
    "audit_feedback_any": ("有反馈", "Any"),
    "audit_feedback_up": ("👍", "👍"),
    "audit_feedback_down": ("👎", "👎"),
    "audit_eval_rows": (
        "导出 {n} 条反馈为评测题（jsonl）",
        "Export {n} rated answers as evaluation rows (jsonl)",
    ),
    "feedback_note": ("反馈说明", "Feedback note"),
    "feedback_note_hint": (
        "哪里不对？应该是什么？（可选）",
        "What is wrong, what should it be? (optional)",
    ),
    "feedback_saved": ("已记录反馈，审计页可见", "Feedback saved; see the Audit page"),
}
