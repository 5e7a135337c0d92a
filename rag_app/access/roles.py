"""The roles a member holds on a knowledge base, lowest first, and a member."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Role = Literal["reader", "editor", "admin"]
ROLES: tuple[Role, ...] = ("reader", "editor", "admin")


def at_least(role: str | None, need: str) -> bool:
    """Whether ``role`` (None: none) is ``need`` or above."""
    return role is not None and ROLES.index(role) >= ROLES.index(need)  # type: ignore[arg-type]


@dataclass(frozen=True)
class Member:
    kb: str
    name: str  # a user's e-mail or an API token's name, or a group's name
    kind: Literal["user", "group"]
    role: Role
