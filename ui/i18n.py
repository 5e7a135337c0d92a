"""Every label of the UI in Chinese and English: ``t(key, **values)`` in the user's language.

The language is per user (``st.session_state["lang"]``, ``zh`` or ``en``); Chinese is the
default. A missing key is a bug, caught by a test that renders every page in both languages.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import streamlit as st

LANGUAGES = {"zh": "中文", "en": "English"}
DEFAULT_LANGUAGE = "zh"

# key -> (Chinese, English). Placeholders use str.format names.
TEXTS: dict[str, tuple[str, str]] = {
    # app / navigation
    "app_title": ("研报问答", "Research Report Q&A"),
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
    # ask page
    "ask_title": ("研报问答", "Ask the reports"),
    "ask_caption": (
        "回答中的 [Source N] 可点击，跳转到对应的段落、表格或图片。",
        "Click a [Source N] in an answer to jump to the paragraph, table or figure it cites.",
    ),
    "chat_placeholder": (
        "输入问题，例如：中芯国际2026年预测市盈率是多少？",
        "Ask a question, e.g. What is SMIC's forecast P/E for 2026?",
    ),
    "examples": ("示例问题", "Example questions"),
    "clear_chat": ("清空对话", "Clear conversation"),
    "turns_count": (
        "已有 {n} 轮对话，后续问题会带上前文。",
        "{n} earlier turns; follow-up questions include them.",
    ),
    "stage_retrieving": ("检索中…", "Retrieving…"),
    "stage_retrieved": ("检索到 {n} 条结果", "Found {n} hits"),
    "stage_building_prompt": ("构建提示词…", "Building the prompt…"),
    "stage_prompt_built": ("提示词 {n} tokens", "Prompt: {n} tokens"),
    "stage_generating": ("生成中…", "Generating…"),
    "stage_first_token": ("首字 {ms}", "First token after {ms}"),
    "stage_done": ("完成 · {ms}", "Done · {ms}"),
    "stage_failed": ("出错了", "Failed"),
    "retrying": ("重试：{text}", "Retrying: {text}"),
    "ask_failed": ("无法回答：{error}", "Could not answer: {error}"),
    "provider_error": (
        "大模型调用出错（已保留已生成的内容）：{error}",
        "The language model failed (the text so far is kept): {error}",
    ),
    "provider_fallback": (
        "大模型调用失败：{error}。下面是同一检索结果的离线抽取式回答（直接摘自参考资料）。"
        "请在「设置」中检查服务地址、模型名和密钥，或稍后重试。",
        "The language model failed: {error}. Below is the offline extractive answer from the "
        "same retrieval (quoted from the sources). Check the endpoint, model and key in Settings, "
        "or try again later.",
    ),
    "provider_failed": (
        "大模型调用失败：{error}。请在「设置」中检查服务地址、模型名和密钥，或稍后重试。",
        "The language model failed: {error}. Check the endpoint, model and key in Settings, or "
        "try again later.",
    ),
    "empty_answer": ("（没有生成任何内容）", "(nothing was generated)"),
    # answer rendering
    "sources": ("来源", "Sources"),
    "sources_caption": (
        "提示词中的 {n} 条来源；点击回答中的 [Source N] 直接打开。",
        "The prompt's {n} sources; click a [Source N] in the answer to open one.",
    ),
    "no_sources": ("没有检索到可用的来源。", "No sources were retrieved."),
    "page": ("第 {page} 页", "p. {page}"),
    "page_short": ("页", "Page"),
    "type_text": ("文本", "Text"),
    "type_table": ("表格", "Table"),
    "type_image": ("图片", "Figure"),
    "type_qa": ("问答", "Q&A"),
    "source_cut": (
        "仅前半部分放入了提示词（超出预算）",
        "Only its start fitted in the prompt (budget)",
    ),
    "merged_parts": ("由 {n} 个子表合并", "Merged from {n} sub-tables"),
    "subtable": ("子表 {i}/{n}", "Sub-table {i}/{n}"),
    "section_path": ("章节", "Section"),
    "cited_by": ("引用它的句子", "Cited by"),
    "supported": ("有来源支持", "Supported by its sources"),
    "unsupported": ("未被来源支持", "Not supported by its sources"),
    "unsupported_mark": (
        "此句未被所引来源支持：{reason}",
        "Not supported by the cited sources: {reason}",
    ),
    "uncited_mark": ("此句没有引用来源", "This sentence cites no source"),
    "dangling": (
        "回答引用了不存在的来源：{numbers}",
        "The answer cites sources that do not exist: {numbers}",
    ),
    "citation_check": ("引用核查", "Citation check"),
    "citation_summary": (
        "{supported}/{total} 处带引用的陈述有来源支持",
        "{supported} of {total} cited statements are supported by their sources",
    ),
    "citation_unavailable": ("引用核查暂不可用", "Citation checking is not available"),
    "image_missing": ("（图片文件缺失，仅显示标题）", "(image file missing; caption only)"),
    "image_description": ("图片描述", "Description"),
    "table_context": ("上下文", "Context"),
    "footnote": ("注", "Note"),
    "other_sources": (
        "其余 {n} 条检索结果未放入提示词，见「检索详情」。",
        "{n} more hits did not fit in the prompt; see Retrieval details.",
    ),
    # retrieval details
    "retrieval_details": ("检索详情", "Retrieval details"),
    "routing": ("智能路由", "Smart routing"),
    "routing_hybrid": (
        "混合模式：文本、表格、图片一起检索，融合排序。",
        "Hybrid mode: text, tables and figures are searched together and fused.",
    ),
    "routing_decision": (
        "判定为 **{type}** · 置信度 {confidence:.2f} · {cues} · {scope}",
        "Detected **{type}** · confidence {confidence:.2f} · {cues} · {scope}",
    ),
    "routing_single": (
        "优先该类型（其余类型照常检索，排序靠后）",
        "that type preferred (every type still searched, ranked after it)",
    ),
    "routing_all": ("置信度不足，不设偏好（同混合）", "not confident: no preference (as hybrid)"),
    "routing_evidence": ("依据", "Evidence"),
    "routing_reason": ("原因", "Reason"),
    "routing_scores": ("各类型得分", "Per-type scores"),
    "routing_none": ("无", "none"),
    "hits_none": ("该类型没有命中。", "No hits of this type."),
    "hits_searched": ("已检索全部类型：{types}", "Every type searched: {types}"),
    "hits_preferred": ("{type}优先，其命中排在前面", "{type} preferred, its hits ranked first"),
    "tab_preferred": ("{type}（优先）", "{type} (preferred)"),
    # a hit's signals (rag_app.retrieve: scoring, strategies), as hit table columns
    "signal_dense": ("语义相似度", "Dense (semantic)"),
    "signal_bm25": ("关键词 BM25", "Keyword BM25"),
    "signal_structure": ("结构匹配", "Structure"),
    "signal_expansion": ("同义词扩展", "Synonym expansion"),
    "signal_phrase": ("短语匹配", "Phrase match"),
    "signal_numbers": ("数字匹配", "Number match"),
    "signal_introduced_by": ("引导段落", "Introduced by"),
    "signal_document": ("文档证据", "Document evidence"),
    "signal_smart_fused": ("智能融合（偏好）", "Smart fused (preference)"),
    "col_rank": ("排名", "Rank"),
    "col_score": ("得分", "Score"),
    "col_doc": ("文档", "Document"),
    "col_page": ("页", "Page"),
    "col_strategy": ("召回层/策略", "Layer / strategy"),
    "col_note": ("说明", "Note"),
    "col_preview": ("内容", "Content"),
    "col_in_prompt": ("提示词", "In prompt"),
    "layers": ("分层召回", "Layered recall"),
    "col_type": ("类型", "Type"),
    "col_layer": ("层", "Layer"),
    "col_threshold": ("阈值", "Threshold"),
    "col_found": ("新增", "Found"),
    "col_total": ("累计", "Total"),
    "col_ran": ("执行", "Ran"),
    "col_reason": ("原因", "Reason"),
    "expanded_terms": ("同义词扩展", "Expanded terms"),
    "trace_notes": ("备注", "Notes"),
    "retrieve_ms": ("检索", "Retrieval"),
    # prompt inspector
    "prompt_inspector": ("提示词检查", "Prompt inspector"),
    "prompt_tokens": ("提示词", "Prompt"),
    "context_tokens": ("来源", "Sources"),
    "history_tokens": ("历史对话", "History"),
    "answer_reserve": ("回答预留", "Answer reserve"),
    "window_total": ("合计（窗口 {window}）", "Total (window {window})"),
    "context_limit": ("来源（上限 {limit}）", "Sources (limit {limit})"),
    "history_limit": ("历史对话（上限 {limit}）", "History (limit {limit})"),
    "tokens_by_section": ("各部分 tokens", "Tokens by section"),
    "tokens_sent": ("已发送", "Sent"),
    "tokens_not_sent": ("未发送", "Not sent"),
    "col_section": ("部分", "Section"),
    "col_kind": ("类别", "Kind"),
    "col_tokens": ("tokens", "Tokens"),
    "col_full": ("完整", "Full"),
    "col_status": ("状态", "Status"),
    "status_kept": ("✅ 保留", "✅ kept"),
    "status_cut": ("✂️ 截断", "✂️ cut"),
    "status_dropped": ("⛔ 丢弃", "⛔ dropped"),
    "messages": ("发送的消息", "Messages sent"),
    "counter_note": ("计数器：{counter}", "Counter: {counter}"),
    "counter": ("计数器", "Counter"),
    "no_prompt": ("没有构建提示词。", "No prompt was built."),
    # timings
    "timings": ("耗时", "Timings"),
    "t_retrieve_ms": ("检索", "retrieve"),
    "t_prompt_ms": ("提示词", "prompt"),
    "t_first_token_ms": ("首字", "first token"),
    "t_generate_ms": ("生成", "generate"),
    "t_cite_ms": ("引用核查", "citations"),
    "t_self_rag_ms": ("补充检索与修订", "Self-RAG"),
    "t_total_ms": ("总计", "total"),
    "usage": ("用量：输入 {p} · 输出 {c} tokens{est}", "Usage: {p} in · {c} out tokens{est}"),
    "usage_estimated": ("（估算）", " (estimated)"),
    "answer_meta": ("{answerer} · {mode} · {pmode}", "{answerer} · {mode} · {pmode}"),
    # compare page
    "compare_title": ("智能 vs 混合", "Smart vs hybrid"),
    "compare_caption": (
        "同一个问题分别用智能检索与混合检索回答，并排比较路由、命中（哪些排名变了、哪些仅一方找到）、"
        "提示词与答案。",
        "One question answered with smart and with hybrid retrieval, side by side: routing, "
        "hits (which moved, which only one found), prompt and answer.",
    ),
    "compare_question": ("问题", "Question"),
    "compare_run": ("对比", "Compare"),
    "compare_empty": ("输入问题后点击「对比」。", "Enter a question and press Compare."),
    "hits_title": ("命中（前 {n} 条）", "Hits (top {n})"),
    "shared_hits": ("两种模式共同命中 {n} 条", "{n} hits found by both modes"),
    "col_change": ("混合→智能", "Hybrid → smart"),
    "change_smart_only": ("★ 仅智能找到", "★ smart only"),
    "change_hybrid_only": ("★ 仅混合找到", "★ hybrid only"),
    "diff_preferred": (
        "智能模式优先{type}（置信度 {confidence:.2f}）",
        "Smart preferred {type} (confidence {confidence:.2f})",
    ),
    "diff_unrouted": ("智能模式未设偏好", "Smart set no preference"),
    "diff_separator": ("，", ", "),
    "diff_moved": ("{n} 处排名变化", "{n} places changed"),
    "diff_smart_only": ("{n} 条仅智能找到", "{n} found by smart only"),
    "diff_hybrid_only": ("{n} 条仅混合找到", "{n} found by hybrid only"),
    "diff_same": (
        "智能与混合的前 {n} 条命中相同",
        "Smart and hybrid gave the same hits (top {n})",
    ),
    "diff_same_preferred": (
        "智能模式优先{type}，混合检索已把它们排在前面",
        "smart preferred {type}, which hybrid already ranked first",
    ),
    "answer": ("回答", "Answer"),
    # library page
    "library_title": ("文档库", "Library"),
    "library_caption": (
        "管理知识库与文档：上传 MinerU 解析结果（content_list .json、.zip）、Markdown 或表格。",
        "Manage knowledge bases and documents: upload MinerU outputs (content_list .json, "
        ".zip), Markdown or sheets.",
    ),
    "kb_section": ("知识库", "Knowledge bases"),
    "kb_current": ("当前知识库", "Current knowledge base"),
    "kb_new": ("新建知识库", "New knowledge base"),
    "kb_new_placeholder": ("名称，例如：半导体", "Name, e.g. semiconductors"),
    "kb_create": ("创建", "Create"),
    "kb_created": ("已创建知识库「{kb}」", "Created knowledge base “{kb}”"),
    "kb_exists": ("知识库「{kb}」已存在", "Knowledge base “{kb}” already exists"),
    "kb_delete": ("删除知识库", "Delete knowledge base"),
    "kb_delete_confirm": (
        "确定删除知识库「{kb}」及其全部 {n} 个文档？此操作不可撤销。",
        "Delete knowledge base “{kb}” and all its {n} documents? This cannot be undone.",
    ),
    "kb_deleted": ("已删除知识库「{kb}」", "Deleted knowledge base “{kb}”"),
    "confirm": ("确认删除", "Delete"),
    "cancel": ("取消", "Cancel"),
    "upload_section": ("上传文档", "Upload documents"),
    "uploader": ("选择文件（可多选）", "Choose files (several at once)"),
    "uploader_help": (
        "支持 MinerU content_list .json、MinerU 下载的 .zip（含图片）、.md，以及 .xlsx/.csv/.json 问答表。",
        "MinerU content_list .json, a MinerU .zip download (with images), .md, and "
        ".xlsx/.csv/.json Q&A sheets.",
    ),
    "uploader_limits": (
        "大小上限：.zip 每个 {zip}，其他文件每个 {file}。",
        "Size limits: {zip} per .zip file, {file} per other file.",
    ),
    "ingest_button": ("导入 {n} 个文件到「{kb}」", "Import {n} files into “{kb}”"),
    "ingest_button_one": ("导入 1 个文件到「{kb}」", "Import 1 file into “{kb}”"),
    "ingest_stage_chunk": ("解析切分", "parsing"),
    "ingest_stage_embed": ("向量化 {done}/{total}", "embedding {done}/{total}"),
    "ingest_stage_index": ("写入索引", "indexing"),
    "ingest_stage_done": ("完成", "done"),
    "ingest_waiting": ("等待中", "waiting"),
    "ingest_outcome_ingested": ("✅ 已导入", "✅ imported"),
    "ingest_outcome_duplicate": ("ℹ️ 重复，未导入", "ℹ️ duplicate, skipped"),
    "ingest_outcome_rejected": ("❌ 未导入", "❌ not imported"),
    "ingest_outcome_conflict": ("⚠️ 需要选择", "⚠️ needs a choice"),
    "conflict": (
        "⚠️ {name}：库中已有同名文档「{doc}」，内容不同。未写入任何内容，请选择：",
        "⚠️ {name}: the library already holds a different document “{doc}” under this name. "
        "Nothing was written; choose:",
    ),
    "conflict_replace": ("替换「{doc}」", "Replace “{doc}”"),
    "conflict_keep_both": ("两者都保留", "Keep both"),
    "conflict_gone": ("请重新上传该文件后再选择。", "Upload the file again to choose."),
    "kept_beside": ("另存为「{doc}」", "kept as “{doc}”"),
    "changed": ("变化：{what}", "what changed: {what}"),
    "duplicate_pair": (
        "ℹ️ {name}：这是 MinerU 写在内容列表旁的 Markdown；保留内容列表（含页码），未替换",
        "ℹ️ {name}: the markdown MinerU writes beside the content list; the content list (with "
        "pages) is kept, nothing replaced",
    ),
    "ingest_results": ("导入结果", "Import results"),
    "ingested": (
        "✅ {name}：已导入，{n} 个片段（{counts}）",
        "✅ {name}: imported, {n} chunks ({counts})",
    ),
    "replaced": ("替换了旧版本", "replaced the earlier version"),
    "duplicate": (
        "ℹ️ {name}：内容与已有文档「{doc}」相同，未重复导入",
        "ℹ️ {name}: same content as document “{doc}” already in the library; skipped",
    ),
    "rejected": ("❌ {name}：未导入，{reason}", "❌ {name}: not imported: {reason}"),
    "ingest_warning": ("⚠️ {name}：{warning}", "⚠️ {name}: {warning}"),
    "ingest_error": ("导入出错：{error}", "Import failed: {error}"),
    "docs_section": ("文档（{n}）", "Documents ({n})"),
    "no_docs": ("这个知识库还没有文档。", "This knowledge base has no documents yet."),
    "col_name": ("名称", "Name"),
    "col_format": ("格式", "Format"),
    "col_chunks": ("片段", "Chunks"),
    "col_pages": ("页数", "Pages"),
    "col_size": ("大小", "Size"),
    "col_date": ("导入时间", "Imported"),
    "preview_section": ("预览与删除", "Preview and delete"),
    "preview_doc": ("选择文档", "Document"),
    "preview_types": ("类型", "Types"),
    "preview_page": ("页码（每页 {n} 条）", "Page ({n} per page)"),
    "preview_count": ("共 {n} 个片段", "{n} chunks"),
    "doc_delete": ("删除该文档", "Delete this document"),
    "doc_delete_confirm": (
        "确定删除文档「{name}」？其片段、向量与图片都会移除。",
        "Delete document “{name}”? Its chunks, vectors and images are removed.",
    ),
    "doc_deleted": ("已删除文档「{name}」", "Deleted document “{name}”"),
    # settings page
    "settings_title": ("设置", "Settings"),
    "provider_section": ("大模型服务", "Language model provider"),
    "provider_caption": (
        "任何兼容 OpenAI Chat API 的服务：OpenAI、通义千问（兼容模式）、DeepSeek、本地 vLLM/Ollama 等。"
        "模型名称留空则使用离线抽取式回答。",
        "Any OpenAI-compatible chat API: OpenAI, Qwen (compatible mode), DeepSeek, a local "
        "vLLM/Ollama server... Leave the model empty to use the offline extractive answerer.",
    ),
    "base_url": ("Base URL", "Base URL"),
    "base_url_help": ("留空即 OpenAI 官方地址", "Empty means OpenAI's own endpoint"),
    "model": ("模型名称", "Model"),
    "model_help": (
        "例如 gpt-4o-mini、qwen-plus、deepseek-chat",
        "e.g. gpt-4o-mini, qwen-plus, deepseek-chat",
    ),
    "temperature": ("温度", "Temperature"),
    "max_tokens": ("最大输出 tokens", "Max output tokens"),
    "timeout": ("超时（秒）", "Timeout (s)"),
    "api_key": ("API Key", "API key"),
    "api_key_help": (
        "只保存在本次会话的内存中，不会显示、不会写入日志。留空则保留当前密钥。",
        "Kept in this session's memory only; never shown or logged. Leave empty to keep the "
        "current key.",
    ),
    "api_key_placeholder": ("输入新的 API Key", "Enter a new API key"),
    "key_status": ("当前密钥：{masked}（来源：{source}）", "Current key: {masked} (from {source})"),
    "key_none": (
        "当前没有 API Key（本地服务通常不需要）。",
        "No API key set (local servers usually need none).",
    ),
    "key_source_typed": ("本会话输入", "typed in this session"),
    "key_source_secrets": ("st.secrets", "st.secrets"),
    "key_source_env": ("环境变量 {name}", "environment variable {name}"),
    "key_clear": ("清除输入的密钥", "Forget the typed key"),
    "save": ("保存", "Save"),
    "saved": ("已保存", "Saved"),
    "provider_active": ("当前回答方式：{name}", "Currently answering with: {name}"),
    "test_connection": ("测试连接", "Test connection"),
    "test_ok_models": (
        "连接成功：服务提供 {n} 个模型{hint}",
        "Connected: the service offers {n} models{hint}",
    ),
    "test_model_listed": ("，包含「{model}」", ", including “{model}”"),
    "test_model_not_listed": ("，但列表中没有「{model}」", ", but “{model}” is not among them"),
    "test_ok_chat": ("连接成功：模型「{model}」已应答", "Connected: model “{model}” answered"),
    "test_failed": ("连接失败：{error}", "Connection failed: {error}"),
    "test_needs_model": ("请先填写模型名称。", "Enter a model name first."),
    "retrieval_section": ("检索与提示词", "Retrieval and prompt"),
    "top_k": ("检索条数 top-k", "Hits to retrieve (top-k)"),
    "context_budget": ("来源 token 预算", "Source token budget"),
    "context_budget_help": (
        "放入提示词的来源最多占用的 tokens（cl100k 计数）",
        "At most this many tokens of sources go into the prompt (cl100k)",
    ),
    "system_prompt": ("自定义系统提示词（可选）", "Custom system prompt (optional)"),
    "system_prompt_help": (
        "替换模式默认的角色说明；引用规则始终保留。",
        "Replaces the mode's role sentence; the citation rules always stay.",
    ),
    "reset_defaults": ("恢复默认", "Reset to defaults"),
    "embedding_section": ("向量模型", "Embedding model"),
    "embedding_name": ("模型", "Model"),
    "embedding_path": ("路径", "Path"),
    "embedding_dim": ("维度", "Dimension"),
    "data_dir": ("数据目录", "Data folder"),
    "embedding_not_loaded": ("尚未加载", "not loaded yet"),
    "interface_section": ("界面", "Interface"),
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


# Reasons the core gives as keys (rag_app.models.Reason): Chinese wordings. English uses the
# core's own wording, so each key appears once here and a new key falls back to English.
REASONS_ZH: dict[str, str] = {
    # smart routing
    "no_cues": "未发现类型线索：检索全部类型（混合）",
    "single": "{type}置信度 {confidence} ≥ {threshold}：优先{type}，其余类型照常检索",
    "hybrid": "{type}置信度 {confidence} < {threshold}：不设偏好，同混合检索",
    # citation checks
    "not_factual": "非事实陈述（{kind}）",
    "uncited_supported": "未标注引用；来源 {other} 支持这句话",
    "uncited_unsupported": "未标注引用；没有来源支持这句话",
    "cites_missing": "引用了不存在的来源 {sources}",
    "other_supports": "来源 {other} 支持这句话",
    "supported_by": "来源 {best} 支持这句话",
    "cited_unsupported_other_does": "所引来源不支持这句话；来源 {other} 支持",
    "numbers_not_found": "数字 {numbers} 不在来源 {sources} 中",
    "not_supported": "来源 {sources} 不支持这句话",
    # the prompt budget (rag_app.prompt.Section.why)
    "always_sent": "始终发送",
    "template": "「{mode}」模板：任务、分组标题、回答要求",
    "question_cut": "问题本身超出窗口剩余空间（{room} tokens），已截断",
    "duplicate": "重复：同一片段检索到两次，使用得分较高的一次",
    "fits": "放得下：上下文 {used}/{limit} tokens",
    "no_fit_even_cut": "截断后仍放不进 {limit} tokens",
    "first_cut_rows": "最佳来源单独超长（{total} > {limit} tokens）：保留前 {shown} 行（共 {rows} 行）",
    "first_cut_text": "最佳来源单独超长（{total} > {limit} tokens）：在 token 边界截断",
    "excerpt_after": "排在前 {whole} 个来源之后：节选与问题相关的 {kept}/{total} {unit}",
    "excerpt_large": "完整放入将超过预算的 {share}（{tokens} tokens）：节选与问题相关的 {kept}/{total} {unit}",
    "excerpt_no_room": "完整放不下（还需 {needs} tokens，仅剩 {left}）：节选与问题相关的 {kept}/{total} {unit}",
    "dropped_no_room": "还需 {needs} tokens，预算 {limit} 仅剩 {left}",
    "framing": "分组标题与来源之间的分隔",
    "formatting": "每条消息 {per} 个、引导回复 {priming} 个，以及连接符",
    "reserve": "为回答预留（即大模型的 max_tokens）",
    "history_old": "早于最近 {n} 轮",
    "history_incomplete": "不完整的一轮（缺问题或回答）",
    "history_after_stop": "较新的一轮未能完整放入：更早的轮次一并舍弃，保持对话连贯",
    "history_fits": "放得下：历史 {used}/{limit} tokens",
    "history_cut": "最新一轮过长（{full} > {limit} tokens）：回答已截断",
    "history_no_room": "需要 {full} tokens，历史预算 {limit} 仅剩 {left}",
    # layered recall (rag_app.models.LayerStep, worded from its fields)
    "layer_enough": "候选已足够（{total}）",
    "layer_fill": "低于最低阈值：按排名补足候选",
}


_UNITS_ZH = {"table rows": "行", "sentences": "句"}


def reason_text(reasons: Sequence[Any], english: str) -> str:
    """The core's ``reasons`` (keys and values) in the user's language; ``english`` is the
    core's wording, used in English and for any key without a Chinese wording."""
    if lang() == "en" or not reasons:
        return english
    parts = []
    for reason in reasons:
        template = REASONS_ZH.get(reason.key)
        if template is None:
            return english
        values = dict(reason.values)
        if "type" in values:
            values["type"] = type_label(values["type"])
        if "mode" in values and f"pmode_{values['mode']}" in TEXTS:
            values["mode"] = t(f"pmode_{values['mode']}")
        if "unit" in values:
            values["unit"] = _UNITS_ZH.get(values["unit"], values["unit"])
        values = {k: v.replace(", ", "、") for k, v in values.items()}
        parts.append(template.format_map(_Missing(values)))
    return t("reason_separator").join(parts)


class _Missing(dict):  # type: ignore[type-arg]
    def __missing__(self, key: str) -> str:
        return ""


def layer_reason(step: Any) -> str:
    """Why a layer of layered recall did or did not run, in the user's language."""
    if lang() == "en" or not step.reason:
        return str(step.reason)
    if step.layer == "fill":
        return REASONS_ZH["layer_fill"]
    if not step.ran:
        return REASONS_ZH["layer_enough"].format(total=step.total)
    return str(step.reason)


def lang() -> str:
    value = st.session_state.get("lang", DEFAULT_LANGUAGE)
    return value if value in LANGUAGES else DEFAULT_LANGUAGE


def t(key: str, **values: object) -> str:
    """The label ``key`` in the current user's language, formatted with ``values``."""
    zh, en = TEXTS[key]
    text = en if lang() == "en" else zh
    return text.format(**values) if values else text


def labelled(key: str, value: str) -> str:
    """``label: value`` with the label ``key``, in the language's own colon (``依据：…``,
    ``Evidence: …``)."""
    return t(key) + t("colon") + value


def type_label(chunk_type: str) -> str:
    key = f"type_{chunk_type}"
    return t(key) if key in TEXTS else chunk_type


def ms(value: float | None) -> str:
    if value is None:
        return "–"
    return t("seconds", v=value / 1000) if value >= 1000 else t("ms", v=value)
