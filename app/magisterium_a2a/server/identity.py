"""Who is calling: the vocabulary of identity every other module shares.

A leaf module (it imports nothing of the server), so the token stores, the
authenticator, the JWT verifier and the limiter can all speak of a
``Principal`` without importing each other.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal
from urllib.parse import quote

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
    ``issuer`` is empty for the operator's own users (API tokens, the built-in
    OAuth server, demo users) and the ``iss`` of an external provider's JWTs:
    ``owner``, the user as every store keys them, keeps the two apart.
    """

    user_id: str
    plan: Plan
    per_minute: int | None = None
    qa_per_minute: int | None = None
    token_id: str = NO_TOKEN_ID
    cached: bool = False
    issuer: str = ""

    @property
    def owner(self) -> str:
        return owner_key(self.user_id, self.issuer)


@lru_cache(maxsize=65_536)
def owner_key(user_id: str, issuer: str = "") -> str:
    """A user's key in the stores, safe inside a Redis key and hash tag.

    The id is percent-encoded (which never leaves a ``!``), and a user of an
    external issuer gets ``!`` and the encoded issuer appended: an operator's
    user and a JWT subject of the same name, or subjects of two issuers,
    never share tasks or limits.
    """
    quoted = quote(user_id, safe="")
    return quoted if not issuer else f"{quoted}!{quote(issuer, safe='')}"


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()
