"""The Ask and Compare pages' own labels (views/ask.py, views/compare.py)."""

# key -> (Chinese, English). Placeholders use str.format names.
ASK_TEXTS: dict[str, tuple[str, str]] = {
    # ask page
    "ask_title": ("研报问答", "Ask the reports"),
    "ask_caption": (
        "回答中的 [来源 N] 可点击，跳转到对应的段落、表格或图片。",
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
    # The retrieval details' words for the core's fixed vocabulary (ui/render_hits.py; the
    # Audit and Compare pages may use them too): recall layers and strategies (``Hit.strategy``,
    # ``LayerStep.layer``; ui.i18n.strategy_label), a hit's note and the trace's notes
    # (``Hit.why``, ``RetrievalTrace.why``), the routing's cues (``Routing.evidence``).
    "strategy_structure": ("结构", "structure"),
    "strategy_semantic": ("语义", "semantic"),
    "strategy_keyword": ("关键词", "keyword"),
    "strategy_expansion": ("同义词扩展", "synonyms"),
    "strategy_fill": ("补足", "fill"),
    "strategy_fill_of": ("{layer}（补足）", "{layer} (fill)"),
    "strategy_introduced": ("引导段落", "introduced"),
    "strategy_rrf": ("倒数排名融合", "rank fusion"),
    "strategy_dense": ("语义", "semantic"),
    "strategy_bm25": ("关键词", "keyword"),
    "strategy_multi_query": ("改写检索", "rephrasing"),
    "strategy_hyde": ("假设答案", "HyDE"),
    "strategy_decompose": ("子问题", "sub-question"),
    "strategy_self_rag": ("自查补充", "Self-RAG"),
    "note_separator": ("；", "; "),
    "hit_layer": ("{type} · {layer}", "{type} · {layer}"),
    "hit_introduced": ("由段落 {chunk} 引出", "introduced by {chunk}"),
    "hit_quota": ("类型保底名额", "type quota"),
    "hit_found_by": ("由{by}找到", "found by {by}"),
    "hit_for_subject": ("为「{subject}」检索", "retrieved for {subject}"),
    "hit_within_company": (
        "在{company}的报告内按去掉公司名的问题排序",
        "ranked within {company}'s report without its name",
    ),
    "hit_rewrite_only": ("仅由模型改写找到（{kinds}）", "found only by the rewrite ({kinds})"),
    "hit_self_rag": ("自查第 {round} 轮找到", "found by Self-RAG round {round}"),
    "hit_merged": ("合并子表 {parts}", "merged sub-tables {parts}"),
    "note_smart": (
        "智能：优先{type}（{confidence}）；{total} 个名次中 {moved} 个有变化，"
        "{added} 条{type}命中是混合检索没有的",
        "smart: {type} preferred ({confidence}); {moved} of {total} places changed, {added} "
        "{type} hits beyond hybrid's",
    ),
    "note_no_documents": ("知识库中没有文档", "the knowledge base has no documents"),
    "note_named_reports": (
        "问题提到多份报告（{names}）：分别检索后交替合并",
        "named reports {names}: retrieved for each separately and interleaved",
    ),
    "note_company_first": (
        "{company}的报告按去掉公司名的问题排序，其第一部分排在最前",
        "{company}'s report ranked by the question without the name, its first part first",
    ),
    "note_rewrite_failed": ("{kind}失败：{error}", "{kind} failed: {error}"),
    "cue_named": ("{type}「{word}」", "{type} “{word}”"),
    "cue_hint": ("{type}线索「{word}」", "{type} cue “{word}”"),
    "cue_caption": ("{type}标题「{word}」", "{type} caption “{word}”"),
    # The prompt inspector's words (ui/render_prompt.py): each part of the prompt, its kind,
    # the messages' roles and the budget chart's fields.
    "part_system": ("系统提示", "System prompt"),
    "part_instructions": ("回答要求", "Instructions"),
    "part_context_framing": ("来源分组标题", "Source headings"),
    "part_question": ("问题", "Question"),
    "part_formatting": ("消息格式", "Chat formatting"),
    "part_reserve": ("回答预留", "Answer reserve"),
    "part_history": ("历史对话 第 {turn}/{turns} 轮", "History turn {turn}/{turns}"),
    "part_history_any": ("历史对话", "History turn"),
    "part_not_sent": ("✗ 未发送", "✗ not sent"),
    "part_source_type": ("（{type}）", " ({type})"),
    "part_source_merged": ("（{type}，子表 {parts}）", " ({type}, sub-tables {parts})"),
    "kind_system": ("系统", "System"),
    "kind_instructions": ("要求", "Instructions"),
    "kind_source": ("来源", "Source"),
    "kind_context_framing": ("框架", "Framing"),
    "kind_history": ("历史", "History"),
    "kind_question": ("问题", "Question"),
    "kind_formatting": ("格式", "Formatting"),
    "kind_reserve": ("预留", "Reserve"),
    "role_system": ("系统", "system"),
    "role_user": ("用户", "user"),
    "role_assistant": ("助手", "assistant"),
    "col_chunk_id": ("片段 ID", "Chunk ID"),
    "col_chunk_id_help": ("来源的片段 ID（开发者用）", "The source's chunk id (for developers)"),
    "col_reason_help": ("预算为何这样处理这一部分", "Why the budget kept, cut or dropped it"),
    "chart_part": ("部分", "Section"),
    "chart_sent": ("已发送/未发送", "Sent / not sent"),
    "chart_tokens": ("token 数", "tokens"),
}
