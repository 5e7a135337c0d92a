"""Language models: the ``LLM`` contract (a ``GenerationRequest`` in, ``LLMEvent``s out) and its
implementations: the OpenAI-compatible streaming client, a scripted model for tests, and the
offline extractive answerer used when no provider is configured.

Importing this package does not import ``openai`` or ``jieba``; both load on first use.
"""

from rag_app.answer.base import (
    LLM,
    ChatMessage,
    Completion,
    GenerationRequest,
    LLMError,
    LLMEvent,
    ProviderSettings,
    Usage,
    collect,
    mask_key,
    provider_from_env,
)
from rag_app.answer.offline import ExtractiveAnswerer
from rag_app.answer.openai_client import OpenAIChatLLM
from rag_app.answer.scripted import ScriptedLLM, ScriptedResponse

__all__ = [
    "provider_from_env",
    "LLM",
    "ChatMessage",
    "Completion",
    "ExtractiveAnswerer",
    "GenerationRequest",
    "LLMError",
    "LLMEvent",
    "OpenAIChatLLM",
    "ProviderSettings",
    "ScriptedLLM",
    "ScriptedResponse",
    "Usage",
    "collect",
    "mask_key",
]
