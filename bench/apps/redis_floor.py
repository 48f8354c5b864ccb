"""(4) The Redis floor: the bare route plus one redis-py asyncio SET EX of a
~1 KB JSON per request, the least any Redis-backed request can cost here."""

import json
import os
import uuid

from fastapi import FastAPI, Request
from redis.asyncio import Redis

app = FastAPI()
redis = Redis.from_url(os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/8"))
VALUE = json.dumps({"kind": "task", "padding": "x" * 950}).encode()


@app.post("/api/v1/a2a")
async def endpoint(request: Request) -> dict[str, object]:
    await request.body()
    await redis.set(f"bench:floor:{uuid.uuid4().hex}", VALUE, ex=86400)
    return {"jsonrpc": "2.0", "id": 1, "result": {"ok": True}}
