"""Per-user rate limits in two buckets, on the ``limits`` library.

The moving-window strategy is exact under concurrency (on Redis it is one Lua
script per hit), so N parallel requests against a bucket of size L admit
exactly L. Buckets are per user, not per token, and shared by every worker and
replica through Redis; the embedded setup keeps them in process memory.
"""

from __future__ import annotations

import math
import time
from functools import lru_cache

from limits import RateLimitItem, RateLimitItemPerMinute
from limits.aio.storage import MemoryStorage, RedisStorage, Storage
from limits.aio.strategies import MovingWindowRateLimiter

from app.auth import Principal
from app.config import Settings
from app.errors import RateLimited
from app.storage import Keys
from skills.base import CostClass


@lru_cache(maxsize=256)
def _per_minute(amount: int) -> RateLimitItem:
    return RateLimitItemPerMinute(amount)


def limits_storage(settings: Settings, keys: Keys) -> Storage:
    """The ``limits`` storage matching the task store: Redis, or memory."""
    if settings.embedded:
        return MemoryStorage()
    timeout = settings.redis_timeout_seconds
    return RedisStorage(
        "async+" + settings.redis_url,
        implementation="redispy",
        key_prefix=keys.limits_prefix,
        wrap_exceptions=True,
        socket_timeout=timeout,
        socket_connect_timeout=timeout,
    )


class RateLimiter:
    """Admits or rejects one ``message/send`` against the caller's bucket."""

    def __init__(self, storage: Storage, settings: Settings, keys: Keys) -> None:
        self._storage = storage
        self._strategy = MovingWindowRateLimiter(storage)
        self._defaults = {
            CostClass.DEFAULT: settings.limit_default_per_minute,
            CostClass.EXPENSIVE: settings.limit_expensive_per_minute,
        }
        self._keys = keys

    def limit_for(self, principal: Principal, cost: CostClass) -> RateLimitItem:
        """Enterprise tokens may carry their own limits; every other plan has the defaults."""
        amount = self._defaults[cost]
        if principal.plan == "enterprise":
            own = principal.per_minute if cost is CostClass.DEFAULT else principal.qa_per_minute
            amount = own or amount
        return _per_minute(amount)

    async def hit(self, principal: Principal, cost: CostClass) -> None:
        """Take one request from the bucket or raise ``RateLimited``."""
        item = self.limit_for(principal, cost)
        ident = self._keys.user_tag(principal.user_id)
        if await self._strategy.hit(item, ident, cost.value):
            return
        stats = await self._strategy.get_window_stats(item, ident, cost.value)
        # ``limits`` stamps entries with time.time(), so the wait is measured on that clock.
        raise RateLimited(retry_after=math.ceil(stats.reset_time - time.time()))

    async def ping(self) -> bool:
        return bool(await self._storage.check())
