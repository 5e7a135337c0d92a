"""The UI's labels shared by every page (ui/i18n.py composes the tables): the app and its
navigation, saved conversations, shared controls, punctuation and units."""

# key -> (Chinese, English). Placeholders use str.format names.
APP_TEXTS: dict[str, tuple[str, str]] = {
    # app / navigation
    "app_title": ("研报问答", "Research Report Q&A"),
    "choose_placeholder": ("请选择", "Choose one"),
    "app_tagline": (
        "上传研报解析结果，提问并核对每一处引用",
        "Upload parsed research reports, ask, and check every citation",
    ),
    # saved conversations (views/ask.py)
    "conv_title": ("对话记录", "Conversations"),
    "conv_new": ("新对话", "New conversation"),
    "conv_none": (
        "还没有保存的对话：提问后自动保存。",
        "No saved conversations yet: asking saves one.",
    ),
    "conv_rename": ("重命名", "Rename"),
    "conv_rename_label": ("对话标题", "Conversation title"),
    "conv_rename_save": ("保存标题", "Save title"),
    "conv_delete": ("删除", "Delete"),
    "conv_delete_confirm": (
        "删除对话「{title}」？此操作无法撤销。",
        'Delete the conversation "{title}"? This cannot be undone.',
    ),
    "conv_delete_yes": ("确认删除", "Delete it"),
    "conv_export": ("导出 Markdown", "Export Markdown"),
    "conv_not_found": (
        "地址中的对话不存在（可能已删除，或属于其他用户），已开始新对话。",
        "The conversation in the address does not exist (deleted, or another user's): "
        "a new one has started.",
    ),
    "conv_save_failed": (
        "这轮问答未能保存到对话记录（数据目录不可写？），刷新页面后将丢失。",
        "This exchange could not be saved (is the data folder writable?): a reload will lose it.",
    ),
    "conv_deleted": ("对话已删除。", "Conversation deleted."),
    "conv_sign_in": ("登录后可保存对话。", "Sign in to keep your conversations."),
    "conv_sign_in_button": ("登录", "Sign in"),
    "conv_restored": (
        "已从对话记录恢复：检索详情与提示词未保存",
        "Restored from the saved conversation: retrieval details and the prompt are not kept",
    ),
    "conv_restored_all": ("已从对话记录恢复", "Restored from the saved conversation"),
    "conv_source_gone": (
        "该来源已不在文档库中（文档已删除或重新导入），以下为保存时的摘录：",
        "This source is no longer in the library (deleted or re-imported); the excerpt as saved:",
    ),
    "nav_ask": ("问答", "Ask"),
    "nav_compare": ("对比", "Compare"),
    "nav_library": ("文档库", "Library"),
    "nav_settings": ("设置", "Settings"),
    "nav_audit": ("审计", "Audit"),
    "understood_as": ("理解为：{question}", "Understood as: {question}"),
    "understood_by": ("（{how}）", " ({how})"),
    "doc_gone": (
        "文档「{name}」已被删除（可能是另一位用户刚删的）。",
        "The document “{name}” was already deleted (perhaps by another user just now).",
    ),
    "expansion_multi_query": ("改写检索", "another phrasing"),
    "expansion_hyde": ("假设答案检索（HyDE）", "hypothetical answer (HyDE)"),
    "expansion_decompose": ("子问题", "sub-question"),
    "expansion_added": ("新增 {n} 个片段", "{n} new chunks"),
    "stage_expanded": ("模型改写增加了 {n} 个检索", "the model's rewrites added {n} searches"),
    "understood_carried": ("沿用上文所指", "carried over from the earlier questions"),
    "understood_model": ("由模型改写", "rewritten by the model"),
    "understood_asked": ("按原问题", "as asked"),
    "understood_model_failed": (
        "模型改写未用：{reason}",
        "the model's rewrite was not used: {reason}",
    ),
    "audit_title": ("审计日志", "Audit log"),
    "audit_caption": (
        "每个已回答的问题：时间、用户、知识库、模式、检索到的片段、提示词 tokens、回答者、各阶段耗时与错误。"
        "保留 {days} 天（RAG_APP_AUDIT_RETENTION_DAYS）；不记录任何密钥。",
        "Every answered question: time, user, knowledge base, mode, retrieved chunks, prompt "
        "tokens, answerer, stage timings and errors. Kept {days} days "
        "(RAG_APP_AUDIT_RETENTION_DAYS); no key is ever recorded.",
    ),
    "audit_unavailable": (
        "无法打开审计日志（数据目录不可写？）",
        "The audit log cannot be opened (is the data dir writable?)",
    ),
    "audit_kb": ("知识库", "Knowledge base"),
    "audit_all": ("全部", "All"),
    "audit_since": ("起始日期", "Since"),
    "audit_user": ("用户", "User"),
    "audit_words": ("问题包含", "Question contains"),
    "audit_words_hint": ("如：毛利率", "e.g. margin"),
    "audit_count": ("{n} 条记录（最新在前）", "{n} records, newest first"),
    "audit_export": ("导出 CSV", "Export CSV"),
    "audit_empty": ("没有符合条件的记录。", "No records match."),
    "audit_flagged": ("未被来源支持的句子", "sentence its sources do not support"),
    "audit_col_time": ("时间", "Time"),
    "audit_col_user": ("用户", "User"),
    "audit_col_kb": ("知识库", "Knowledge base"),
    "audit_col_client": ("来源", "Client"),
    "audit_col_mode": ("模式", "Mode"),
    "audit_col_question": ("问题", "Question"),
    "audit_col_standalone": ("理解为", "Understood as"),
    "audit_col_hits": ("片段数", "Hits"),
    "audit_col_tokens": ("提示词 tokens", "Prompt tokens"),
    "audit_col_answerer": ("回答者", "Answerer"),
    "audit_col_ms": ("耗时 ms", "Time ms"),
    "audit_col_flagged": ("存疑句", "Flagged"),
    "audit_col_error": ("错误", "Error"),
    "audit_col_doc": ("文档", "Document"),
    "audit_col_type": ("类型", "Type"),
    "audit_col_score": ("得分", "Score"),
    "audit_col_strategy": ("策略", "Strategy"),
    "language": ("界面语言", "Language"),
    "sample_importing": (
        "正在后台把示例研报导入知识库「{kb}」（{n}）。页面可照常使用：现在就提问的话，导入完成后立即作答。",
        "Importing the sample report into knowledge base “{kb}” in the background ({n}). The page "
        "works meanwhile: a question asked now is answered as soon as the sample is in.",
    ),
    "sample_held": (
        "示例研报仍在导入中（{n}），导入完成后立即回答这个问题。",
        "The sample is still being indexed ({n}); this question is answered as soon as it is in.",
    ),
    "sample_count": ("已编码 {done}/{total} 段", "{done}/{total} passages encoded"),
    "sample_preparing": ("准备中", "preparing"),
    "sample_model": ("正在加载向量模型", "loading the embedding model"),
    "seed_failed": ("示例研报导入失败：{error}", "Could not import the sample report: {error}"),
    "model_missing": (
        "向量模型不可用：{error}",
        "The embedding model is not available: {error}",
    ),
    "model_loading": ("正在加载嵌入模型…", "Loading the embedding model…"),
    # shared controls
    "kb": ("知识库", "Knowledge base"),
    "docs_filter": ("限定文档", "Limit to documents"),
    "docs_filter_placeholder": ("全部文档", "All documents"),
    "query_mode": ("检索模式", "Retrieval mode"),
    "mode_smart": ("智能", "Smart"),
    "mode_hybrid": ("混合", "Hybrid"),
    "query_mode_help": (
        "智能：判断问题针对文本、表格还是图片，有把握时优先该类型（其余类型照常检索，排序在后），"
        "否则同混合；混合：所有类型一起检索并融合。",
        "Smart: detect whether the question is about text, tables or figures and, when sure, "
        "rank that type's hits first (every type is still searched), else as hybrid; Hybrid: "
        "search every type and fuse the results.",
    ),
    "prompt_mode": ("提示词模式", "Prompt mode"),
    "pmode_simple": ("简洁", "Simple"),
    "pmode_advanced": ("标准", "Advanced"),
    "pmode_precise": ("精确", "Precise"),
    "prompt_mode_help": (
        "简洁：直接作答；标准：结构化回答；精确：只陈述来源中逐字可查的数据。",
        "Simple: answer directly; Advanced: structured answer; Precise: only figures that can "
        "be found verbatim in the sources.",
    ),
    "answerer_offline_here": (
        "当前使用离线抽取式回答：填写模型名称并保存后改用大模型。",
        "Answers are currently extracted offline: enter a model name and save to use a "
        "language model.",
    ),
    "answerer_llm": ("回答模型：{name}", "Answering with: {name}"),
    "answerer_offline": (
        "未配置大模型：使用离线抽取式回答（直接摘录来源原句）。可在「设置」中配置。",
        "No language model configured: answers are extracted offline (sentences quoted from "
        "the sources). Configure one under Settings.",
    ),
    "no_kb": (
        "还没有知识库，请先到「文档库」创建并上传文档。",
        "There is no knowledge base yet: create one and upload documents under Library.",
    ),
    "kb_empty": (
        "知识库「{kb}」还没有文档，请先到「文档库」上传。",
        "Knowledge base “{kb}” has no documents yet: upload some under Library.",
    ),
    "go_library": ("前往文档库", "Open the library"),
    "go_settings": ("前往设置", "Open settings"),
    # misc
    # Punctuation differs too: full-width in Chinese, ASCII (with its space) in English.
    "colon": ("：", ": "),
    "list_separator": ("、", ", "),
    "reason_separator": ("；", "; "),
    "yes": ("是", "yes"),
    "no": ("否", "no"),
    "ms": ("{v:.0f} ms", "{v:.0f} ms"),
    "seconds": ("{v:.1f} 秒", "{v:.1f} s"),
}
