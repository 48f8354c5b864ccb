"""Who is calling: the vocabulary of identity every other module shares.

A leaf module (it imports nothing of the server), so the token stores, the
authenticator, the JWT verifier and the limiter can all speak of a
``Principal`` without importing each other.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Literal

Plan = Literal["free", "pro", "organization", "enterprise"]
PLANS: tuple[Plan, ...] = ("free", "pro", "organization", "enterprise")
PAID_PLANS: frozenset[str] = frozenset({"pro", "organization", "enterprise"})

NO_TOKEN_ID = "-"


@dataclass(frozen=True, slots=True)
class Principal:
    """Who is calling: the user (limits are per user, not per token) and plan.

    ``token_id`` is the hash of an opaque token (its revocation marker is
    checked in the same Redis round trip as the request's own work);
    ``cached`` says the record came from this process' short-lived cache.
    """

    user_id: str
    plan: Plan
    per_minute: int | None = None
    qa_per_minute: int | None = None
    token_id: str = NO_TOKEN_ID
    cached: bool = False


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()
