"""The Ask and Compare pages' own labels (views/ask.py, views/compare.py)."""

# key -> (Chinese, English). Placeholders use str.format names.
ASK_TEXTS: dict[str, tuple[str, str]] = {
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
}
