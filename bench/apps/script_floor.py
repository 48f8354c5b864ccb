"""(5) The script floor: the Redis floor's app (4) with this server's
admission-and-save script in place of its ``SET``, through the same redis-py
client, and nothing else: no auth, no parsing, no skill, no task to build.

Each request is admitted into one user's bucket and writes the floor's ~1 KB
record as a new task in a new context, with the keys, arguments and indexes of
a cheap ``message/send`` (``storage.Scripts.admit_and_save``). What separates
(4) from (5) is the Redis work a send needs (exact admission, the task, its
context and three indexes); what separates (5) from ``send`` is the server's
own work.
"""

import json
import os
import time
import uuid

from fastapi import FastAPI, Request
from redis.asyncio import Redis

from magisterium_a2a.server.storage import AdmitArgs, AdmitKeys, Keys, SaveArgs, SaveKeys
from magisterium_a2a.server.storage.scripts import source
from magisterium_a2a.server.tasks import CONTEXT_HISTORY_LIMIT

app = FastAPI()
redis = Redis.from_url(os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/8"))
VALUE = json.dumps({"kind": "task", "padding": "x" * 950}).encode()
SCRIPT = redis.register_script(
    source(
        "admit_and_save",
        AdmitKeys._fields + SaveKeys._fields,
        AdmitArgs._fields + SaveArgs._fields,
        ("admission", "index"),
    )
)
KEYS = Keys("bench")
OWNER = "bench-script-floor"
TTL = 86_400
WINDOW_MS = 60_000
LIMIT = 1_000_000_000


@app.post("/api/v1/a2a")
async def endpoint(request: Request) -> dict[str, object]:
    await request.body()
    now = time.time()
    now_ms = int(now * 1000)
    task_id, context_id = str(uuid.uuid4()), str(uuid.uuid4())
    admit_keys = AdmitKeys(KEYS.bucket(OWNER, "default"), KEYS.revoked(OWNER, "none"))
    save_keys = SaveKeys(
        KEYS.task(OWNER, task_id),
        KEYS.context(OWNER, context_id),
        KEYS.tasks(OWNER),
        KEYS.tasks_in_state(OWNER, "completed"),
        KEYS.tasks_in_context(OWNER, context_id),
    )
    admit_args = AdmitArgs(now_ms, WINDOW_MS, LIMIT, f"{now_ms}-{task_id[:12]}", WINDOW_MS)
    save_args = SaveArgs(
        b"%.3f\n%b" % (now + TTL, VALUE), TTL, task_id, CONTEXT_HISTORY_LIMIT, now_ms
    )
    verdict = await SCRIPT(keys=[*admit_keys, *save_keys], args=[*admit_args, *save_args])
    if verdict[0] != 1:
        raise RuntimeError(f"the script floor's request was not admitted: {verdict}")
    return {"jsonrpc": "2.0", "id": 1, "result": {"ok": True}}
