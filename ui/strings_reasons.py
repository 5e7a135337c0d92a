"""Chinese wordings of the reasons the core gives as keys (``rag_app.models.Reason``).

English uses the core's own wording, so each key appears once here and a new key falls back to
English (``ui.i18n.reason_text``).
"""

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
