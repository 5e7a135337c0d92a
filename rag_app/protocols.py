"""Contracts between stages. Each has one or more implementations and one shared contract test."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into L2-normalised float32 vectors (rows), queries and passages apart.

    Models such as e5 want different prefixes for the two; an embedder applies its own.
    """

    name: str

    @property
    def dimension(self) -> int: ...

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray: ...

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray: ...


@runtime_checkable
class TokenCounter(Protocol):
    """Counts and cuts text in the tokens of the prompt's budget."""

    name: str

    def count(self, text: str) -> int: ...

    def truncate(self, text: str, max_tokens: int) -> str: ...
