"""Per-user rate limits in two buckets: an exact moving window, as policy.

Which bucket a request draws on, its limit (plan defaults, an enterprise
token's own) and what a verdict means (headers, 429, 401) are decided here;
the window itself is one Lua script in the storage package
(``storage/lua/admission.lua``), which drops what left the window, counts, and
admits or rejects atomically, so N parallel requests against a bucket of size L
admit exactly L on any number of processes, on Redis and the embedded fakeredis.

Why not the ``limits`` library, which this started on: its storages read the
wall clock inside, so neither the test mode's clock (shared by processes
through the store) nor a fixed clock can move a window; and its hit cannot
share a round trip with the task write, which is most of the cost of a cheap
``message/send`` (see bench/RESULTS.md). The algorithm is the same moving window.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import NamedTuple

from magisterium_a2a.plugin import CostClass
from magisterium_a2a.server.clock import Clock
from magisterium_a2a.server.config import Settings
from magisterium_a2a.server.errors import RateLimited, Unauthorized
from magisterium_a2a.server.identity import Principal
from magisterium_a2a.server.storage import AdmitArgs, AdmitKeys, Keys, Scripts, Status, Verdict

WINDOW_MS = 60_000


@dataclass(frozen=True, slots=True)
class RateLimitState:
    """The bucket after an admission, for the X-RateLimit-* headers."""

    limit: int
    remaining: int
    reset_after: int

    def headers(self) -> dict[str, str]:
        return {
            "X-RateLimit-Limit": str(self.limit),
            "X-RateLimit-Remaining": str(self.remaining),
            "X-RateLimit-Reset": str(self.reset_after),
        }


class Admission(NamedTuple):
    """One request's claim on a bucket, for an admission script to evaluate
    (a tuple: built on every request)."""

    bucket: str
    limit: int
    keys: AdmitKeys
    args: AdmitArgs

    def outcome(self, verdict: Verdict) -> RateLimitState:
        """The bucket's state after an admitted request, or raise what a refusal means."""
        if verdict.status is Status.ADMITTED:
            reset_after = max(1, math.ceil(verdict.reset_ms / 1000))
            return RateLimitState(self.limit, verdict.remaining, reset_after)
        if verdict.status is Status.REVOKED:
            raise Unauthorized(data={"reason": "token revoked"})
        raise RateLimited(retry_after=verdict.reset_ms / 1000, bucket=self.bucket)


class RateLimiter:
    """Builds admissions for a principal and runs them on their own."""

    def __init__(self, scripts: Scripts, keys: Keys, settings: Settings, clock: Clock) -> None:
        self._scripts = scripts
        self._keys = keys
        self._clock = clock
        self._defaults = {
            CostClass.DEFAULT: settings.limit_default_per_minute,
            CostClass.EXPENSIVE: settings.limit_expensive_per_minute,
        }
        # A virtual clock may stand still while real time passes: keep buckets
        # long enough that Redis' own expiry never decides for it.
        self._key_ttl_ms = 86_400_000 if clock.virtual else WINDOW_MS

    def limit_for(self, principal: Principal, cost: CostClass) -> int:
        """Enterprise tokens may carry their own limits; every other plan has the defaults."""
        amount = self._defaults[cost]
        if principal.plan == "enterprise":
            own = principal.per_minute if cost is CostClass.DEFAULT else principal.qa_per_minute
            amount = own or amount
        return amount

    def admission(self, principal: Principal, cost: CostClass) -> Admission:
        limit = self.limit_for(principal, cost)
        now_ms = int(self._clock.now() * 1000)
        return Admission(
            cost.value,
            limit,
            AdmitKeys(
                self._keys.bucket(principal.owner, cost.value),
                self._keys.revoked(principal.owner, principal.token_id),
            ),
            AdmitArgs(
                now_ms, WINDOW_MS, limit, f"{now_ms}-{os.urandom(6).hex()}", self._key_ttl_ms
            ),
        )

    async def hit(self, admission: Admission) -> RateLimitState:
        """Take one request from the bucket, or raise ``RateLimited``."""
        return admission.outcome(await self._scripts.admit(admission.keys, admission.args))
