"""The Settings page's labels (views/settings.py)."""

# key -> (Chinese, English). Placeholders use str.format names.
SETTINGS_TEXTS: dict[str, tuple[str, str]] = {
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
}
