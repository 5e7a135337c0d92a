"""The labels of an answer as ui/render*.py draws it: the answer and its sources, the retrieval
details and a hit's signals, the prompt inspector and the timings."""

# key -> (Chinese, English). Placeholders use str.format names.
ANSWER_TEXTS: dict[str, tuple[str, str]] = {
    # answer rendering
    "sources": ("来源", "Sources"),
    # An answer's citation as drawn: the model writes "[Source N]" in either language (what
    # the citation check parses, and what is stored); the reader sees it in the UI's words.
    "source_marker": ("[来源 {n}]", "[Source {n}]"),
    "sources_caption": (
        "提示词中的 {n} 条来源；点击回答中的 [来源 N] 直接打开。",
        "The prompt's {n} sources; click a [Source N] in the answer to open one.",
    ),
    "no_sources": ("没有检索到可用的来源。", "No sources were retrieved."),
    "page": ("第 {page} 页", "p. {page}"),
    "series_title": (
        "{metric}：各期数据（{n} 个，均取自表格）",
        "{metric}: by period ({n} cells, each from a table)",
    ),
    "series_subject": ("公司 / 报告", "Company / report"),
    "series_period": ("期间", "Period"),
    "series_value": ("数值", "Value"),
    "series_where": ("出处", "Source"),
    "series_csv": ("下载 CSV", "Download CSV"),
    "page_short": ("页", "Page"),
    "type_text": ("文本", "Text"),
    "type_table": ("表格", "Table"),
    "type_image": ("图片", "Figure"),
    "type_qa": ("问答", "Q&A"),
    "source_cut": (
        "仅前半部分放入了提示词（超出预算）",
        "Only its start fitted in the prompt (budget)",
    ),
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
    # A traced number's link: its tooltip names where its source holds it; the citation
    # check counts them.
    "traced_cell": ("{source} · {row} × {col}：{value}", "{source} · {row} x {col}: {value}"),
    "traced_sentence": ("{source} · “{sentence}”", '{source} · "{sentence}"'),
    "traced_computed": ("算式：{working}", "Worked out: {working}"),
    "traced_summary": (
        "🔎 回答中 {n} 个数字已在来源中找到：点击数字打开来源，所在单元格或句子会高亮。",
        "🔎 {n} numbers of the answer were found in its sources: click one to open its source "
        "with the cell or sentence marked.",
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
    "t_series_ms": ("序列", "series"),
    "t_total_ms": ("总计", "total"),
    "usage": ("用量：输入 {p} · 输出 {c} tokens{est}", "Usage: {p} in · {c} out tokens{est}"),
    "usage_estimated": ("（估算）", " (estimated)"),
    "answer_meta": ("{answerer} · {mode} · {pmode}", "{answerer} · {mode} · {pmode}"),
    # who answered (``Answer.answerer``: the offline answerer's name, else the model's)
    "answerer_offline_name": ("离线抽取式回答", "offline extractive answer"),
    "answerer_fallback": (
        "离线抽取式回答（{model} 调用失败）",
        "offline extractive answer ({model} failed)",
    ),
    # a model's failure (``Answer.error_kind``, ``rag_app.answer.base.ErrorKind``)
    "llm_error_timeout": ("大模型服务响应超时", "The language model service timed out"),
    "llm_error_rate_limit": (
        "大模型服务限流（请求过多）",
        "The language model service is rate limiting",
    ),
    "llm_error_server": (
        "大模型服务内部错误",
        "The language model service returned a server error",
    ),
    "llm_error_auth": (
        "API Key 无效或无权限，请在设置页检查",
        "The API key was rejected; check it on the settings page",
    ),
    "llm_error_bad_request": (
        "请求被拒绝，请检查模型名称与 Base URL",
        "The request was rejected; check the model name and base URL",
    ),
    "llm_error_bad_response": (
        "大模型服务返回了无法解析的内容",
        "The language model service sent a response that could not be read",
    ),
    "llm_error_connection": (
        "无法连接大模型服务",
        "Could not connect to the language model service",
    ),
    "llm_error_unknown": ("大模型调用失败", "The language model call failed"),
    "llm_error_partial": ("回答中途中断：{error}", "The answer was cut off: {error}"),
    "llm_error_detail": ("{error}（详情：{detail}）", "{error} (details: {detail})"),
    # why the model's rewrite of a follow-up was not used (``Understood.note``)
    "rewrite_model_failed": ("模型调用失败：{error}", "the model failed: {error}"),
    "rewrite_timeout": ("{s} 秒内无回复", "no reply within {s} s"),
    "rewrite_empty": ("模型未返回内容", "the model returned nothing"),
    "rewrite_no_line": ("模型未返回可用的一行", "the model returned no usable line"),
    "rewrite_lines": ("模型返回了多行", "the model returned more than one line"),
    "rewrite_answered": ("模型直接作答而非改写", "the model answered instead of rewriting"),
    "rewrite_too_long": (
        "模型的改写比原问题长得多",
        "the model's rewrite is longer than the questions it came from",
    ),
}

# The relevance check's labels (rag_app.cite.relevance: a sentence about another company, period
# or metric than the question asks) and self-RAG's, worded by ``ui.i18n.relevance_text``.
RELEVANCE_TEXTS: dict[str, tuple[str, str]] = {
    "supported_part": ("{supported}/{total} 有来源支持", "{supported}/{total} supported"),
    "on_question_part": ("{on}/{total} 切题", "{on}/{total} about the question"),
    "off_question_mark": ("此句与问题不符：{reason}", "Not about the question: {reason}"),
    "off_company": (
        "关于{about}，问题问的是{asked}",
        "about {about}, the question asks about {asked}",
    ),
    "off_period": ("{about}，问题问的是{asked}", "{about}, the question asks {asked}"),
    "off_metric": ("{about}，问题问的是{asked}", "{about}, the question asks {asked}"),
    "off_no_metric": ("未给出问题问的{asked}", "gives no {asked}, which the question asks"),
    "off_reference": (
        "不是问题问的{asked}",
        "not from {asked}, which the question asks about",
    ),
    "stage_revising": ("自查：补充检索并修订回答…", "Self-check: retrieving what is missing…"),
    "revised": (
        "🔁 自查修订：{n} 处陈述缺少依据或不切题，补充检索后已修订回答",
        "🔁 Self-check: {n} statements lacked evidence or missed the question; revised",
    ),
    "not_revised": (
        "🔁 自查：{n} 处陈述缺少依据或不切题，未采用修订（{note}）",
        "🔁 Self-check: {n} statements lacked evidence or missed the question; not revised ({note})",
    ),
}
