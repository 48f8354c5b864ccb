"""(5) The script floor: the Redis floor's app (4) with this server's
admission-and-save script in place of its ``SET``, and nothing else: no auth,
no parsing, no skill, no task to build.

Each request is admitted into one user's bucket and writes the floor's ~1 KB
record as a new task in a new context, by the calls a cheap ``message/send``
makes (``RateLimiter.admission``, ``RedisTaskStore.admit_and_save``). Its
script goes to Redis as the Redis floor's ``SET`` does, one redis-py call at a
time. What separates (4) from (5) is the Redis work a send needs (exact
admission, the task, its context and three indexes); what separates (5) from
``send`` is the server's own work and its cheaper client (the pipe).
"""

import json
import os
import uuid
from typing import Any

from fastapi import FastAPI, Request
from redis.asyncio import Redis
from redis.exceptions import NoScriptError

from magisterium_a2a.plugin import CostClass
from magisterium_a2a.server.clock import SystemClock
from magisterium_a2a.server.config import Settings
from magisterium_a2a.server.identity import Principal
from magisterium_a2a.server.ratelimit import RateLimiter
from magisterium_a2a.server.storage import Keys, Scripts
from magisterium_a2a.server.taskjson import BuiltTask
from magisterium_a2a.server.tasks import RedisTaskStore


class OneCall:
    """Each script as one redis-py ``EVALSHA``, its text loaded on ``NOSCRIPT``
    (what ``register_script`` does), with no batching: as the floor's ``SET`` goes."""

    def __init__(self, redis: Redis) -> None:
        self._redis = redis

    async def evalsha(self, sha: str, text: str, *args: Any) -> Any:
        try:
            return await self._redis.evalsha(sha, *args)
        except NoScriptError:
            await self._redis.script_load(text)
            return await self._redis.evalsha(sha, *args)


app = FastAPI()
redis = Redis.from_url(os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/8"))
VALUE = json.dumps({"kind": "task", "padding": "x" * 950}).encode()
TTL = 86_400
KEYS = Keys("bench")
PRINCIPAL = Principal("bench-script-floor", "pro")
OWNER = PRINCIPAL.owner
_clock = SystemClock()
_scripts = Scripts(redis, OneCall(redis))
_limiter = RateLimiter(
    _scripts, KEYS, Settings(_env_file=None, limit_default_per_minute=1_000_000_000), _clock
)
_store = RedisTaskStore(redis, _scripts, KEYS, TTL, _clock)


@app.post("/api/v1/a2a")
async def endpoint(request: Request) -> dict[str, object]:
    await request.body()
    task = BuiltTask(str(uuid.uuid4()), str(uuid.uuid4()), "completed", VALUE)
    # A refused request raises, answers 500 and stops the benchmark.
    await _store.admit_and_save(OWNER, task, _limiter.admission(PRINCIPAL, CostClass.DEFAULT))
    return {"jsonrpc": "2.0", "id": 1, "result": {"ok": True}}
