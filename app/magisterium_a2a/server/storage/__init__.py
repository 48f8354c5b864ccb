"""Everything Redis: the connection, every key, and the Lua scripts.

The stores and the rate limiter above it are policy: they name what they
want (keys from ``Keys``, a script call with named keys and arguments) and
read plain verdicts back, and never hold Lua text or key layouts of their own.
"""

from magisterium_a2a.server.storage.connection import connect, hot_pipe, text
from magisterium_a2a.server.storage.keys import Keys
from magisterium_a2a.server.storage.pipe import Pipe, Polling
from magisterium_a2a.server.storage.scripts import (
    AdmitArgs,
    AdmitKeys,
    ListArgs,
    ListKeys,
    Page,
    SaveArgs,
    SaveKeys,
    Scripts,
    Status,
    Verdict,
)

__all__ = [
    "AdmitArgs",
    "AdmitKeys",
    "Keys",
    "ListArgs",
    "ListKeys",
    "Page",
    "Pipe",
    "Polling",
    "SaveArgs",
    "SaveKeys",
    "Scripts",
    "Status",
    "Verdict",
    "connect",
    "hot_pipe",
    "text",
]
