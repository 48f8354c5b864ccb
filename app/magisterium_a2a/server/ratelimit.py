"""Per-user rate limits in two buckets: an exact moving window in Redis.

Each bucket is a sorted set of the admission times (ms) of the last requests;
one Lua call drops what left the window, counts, and admits or rejects, so N
parallel requests against a bucket of size L admit exactly L on any number of
processes. The same script runs on the embedded fakeredis.

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

from redis.asyncio import Redis

from magisterium_a2a.plugin import CostClass
from magisterium_a2a.server.clock import Clock
from magisterium_a2a.server.config import Settings
from magisterium_a2a.server.errors import RateLimited, Unauthorized
from magisterium_a2a.server.identity import Principal
from magisterium_a2a.server.storage import Keys

WINDOW_MS = 60_000

# Shared by every script that admits a request. KEYS[1] bucket, KEYS[2] the
# token's revocation marker; ARGV[1] now (ms), ARGV[2] window (ms), ARGV[3]
# limit, ARGV[4] a unique member, ARGV[5] bucket key TTL (ms).
# Returns {status, remaining, ms until the oldest counted request leaves}:
# status 1 admitted, 0 limited, -1 token revoked.
ADMIT_LUA = """
local function admit()
  if redis.call('EXISTS', KEYS[2]) == 1 then return {-1, 0, 0} end
  local now, window, limit = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
  local used = redis.call('ZCARD', KEYS[1])
  if used >= limit then
    local blocking = redis.call('ZRANGE', KEYS[1], used - limit, used - limit, 'WITHSCORES')
    return {0, 0, tonumber(blocking[2]) + window - now}
  end
  redis.call('ZADD', KEYS[1], now, ARGV[4])
  redis.call('PEXPIRE', KEYS[1], ARGV[5])
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return {1, limit - used - 1, tonumber(oldest[2]) + window - now}
end
"""

HIT_LUA = ADMIT_LUA + "\nreturn admit()\n"


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


@dataclass(frozen=True, slots=True)
class Admission:
    """One request's claim on a bucket, evaluated atomically in Redis."""

    bucket: str
    bucket_key: str
    revoked_key: str
    limit: int
    now_ms: int
    key_ttl_ms: int

    def keys(self) -> list[str]:
        return [self.bucket_key, self.revoked_key]

    def args(self) -> list[int | str]:
        member = f"{self.now_ms}-{os.urandom(6).hex()}"
        return [self.now_ms, WINDOW_MS, self.limit, member, self.key_ttl_ms]

    def outcome(self, reply: list[int]) -> RateLimitState:
        """Turn the script's reply into a state, or raise what it means."""
        status, remaining, reset_ms = (int(value) for value in reply[:3])
        if status == -1:
            raise Unauthorized(data={"reason": "token revoked"})
        if status == 0:
            raise RateLimited(retry_after=reset_ms / 1000, bucket=self.bucket)
        return RateLimitState(self.limit, remaining, max(1, math.ceil(reset_ms / 1000)))


class RateLimiter:
    """Builds admissions for a principal and runs them on their own."""

    def __init__(self, redis: Redis, keys: Keys, settings: Settings, clock: Clock) -> None:
        self._keys = keys
        self._clock = clock
        self._defaults = {
            CostClass.DEFAULT: settings.limit_default_per_minute,
            CostClass.EXPENSIVE: settings.limit_expensive_per_minute,
        }
        # A virtual clock may stand still while real time passes: keep buckets
        # long enough that Redis' own expiry never decides for it.
        self._key_ttl_ms = 86_400_000 if clock.virtual else WINDOW_MS
        self._hit = redis.register_script(HIT_LUA)

    def limit_for(self, principal: Principal, cost: CostClass) -> int:
        """Enterprise tokens may carry their own limits; every other plan has the defaults."""
        amount = self._defaults[cost]
        if principal.plan == "enterprise":
            own = principal.per_minute if cost is CostClass.DEFAULT else principal.qa_per_minute
            amount = own or amount
        return amount

    def admission(self, principal: Principal, cost: CostClass) -> Admission:
        return Admission(
            bucket=cost.value,
            bucket_key=self._keys.bucket(principal.owner, cost.value),
            revoked_key=self._keys.revoked(principal.owner, principal.token_id),
            limit=self.limit_for(principal, cost),
            now_ms=int(self._clock.now() * 1000),
            key_ttl_ms=self._key_ttl_ms,
        )

    async def hit(self, admission: Admission) -> RateLimitState:
        """Take one request from the bucket, or raise ``RateLimited``."""
        reply = await self._hit(keys=admission.keys(), args=admission.args())
        return admission.outcome(reply)
