"""POSTs to an ASGI app's endpoint straight through its callable, no socket or
HTTP parser: what the in-process benchmarks (``bench.cpu``, ``bench.inprocess``)
send their requests with."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

SEND = (
    b'{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"role":"user",'
    b'"kind":"message","messageId":"bench-1","parts":[{"kind":"data","data":{"id":'
    b'"lumen-gentium"}}],"metadata":{"skillId":"document_fetch"}}}}'
)
"""The hot path's request: ``message/send`` to the cheap ``document_fetch``."""

Message = MutableMapping[str, Any]
App = Callable[
    [Message, Callable[[], Awaitable[Message]], Callable[[Message], Awaitable[None]]],
    Awaitable[None],
]


class Client:
    """One caller of ``POST /api/v1/a2a``, with a bearer token or none; keeps
    the status and body of the last answer."""

    def __init__(self, app: App, token: str | None = None) -> None:
        self._app = app
        self._headers = [(b"host", b"bench"), (b"content-type", b"application/json")]
        if token:
            self._headers.append((b"authorization", f"Bearer {token}".encode()))
        self.status = 0
        self.body = b""

    async def post(self, body: bytes) -> None:
        sent = False

        async def receive() -> Message:
            nonlocal sent
            if sent:  # the request was read: the client now only waits
                await asyncio.Event().wait()
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}

        async def send(message: Message) -> None:
            if message["type"] == "http.response.start":
                self.status = message["status"]
            elif message["type"] == "http.response.body":
                self.body = message["body"]

        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": "POST",
            "scheme": "http",
            "path": "/api/v1/a2a",
            "raw_path": b"/api/v1/a2a",
            "root_path": "",
            "query_string": b"",
            "headers": [*self._headers, (b"content-length", str(len(body)).encode())],
            "client": ("127.0.0.1", 1),
            "server": ("bench", 80),
        }
        await self._app(scope, receive, send)
