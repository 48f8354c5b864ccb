"""A fake OpenAI-compatible chat-completions server for the Q&A tests: a real
HTTP server on a free port, in a thread, answering from a script."""

from __future__ import annotations

import contextlib
import json
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    """One scripted reply: a completion's content, or a raw status and body."""

    content: str | None = None
    status: int = 200
    body: bytes | None = None
    headers: dict[str, str] = field(default_factory=dict)
    stall: float = 0.0
    """Seconds to wait before answering (ended early when the test finishes)."""


def completion(content: str | None, finish_reason: str = "stop") -> bytes:
    return json.dumps(
        {
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "created": 1767225600,
            "model": "fake-model",
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content},
                    "finish_reason": finish_reason,
                }
            ],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }
    ).encode()


class FakeLLM:
    """Answers ``POST /v1/chat/completions`` with the next scripted reply and
    records every request (path, JSON body, Authorization header)."""

    def __init__(self) -> None:
        self.script: list[Reply] = []
        self.requests: list[dict[str, Any]] = []
        self.release = threading.Event()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                fake.requests.append(
                    {
                        "path": self.path,
                        "body": json.loads(raw),
                        "auth": self.headers.get("Authorization"),
                    }
                )
                reply = fake.script.pop(0) if fake.script else Reply(status=418)
                if reply.stall:
                    fake.release.wait(reply.stall)
                body = reply.body
                if body is None:
                    body = completion(reply.content) if reply.status == 200 else b"{}"
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(body)))
                    for name, value in reply.headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(body)
                except OSError:
                    pass  # the client gave up (a timeout test)

            def log_message(self, format: str, *args: Any) -> None:
                return

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def answers(self, *replies: Reply | str) -> None:
        self.script.extend(Reply(r) if isinstance(r, str) else r for r in replies)

    def bodies(self) -> list[dict[str, Any]]:
        return [request["body"] for request in self.requests]


@contextlib.contextmanager
def fake_llm() -> Iterator[FakeLLM]:
    fake = FakeLLM()
    thread = threading.Thread(target=fake.server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield fake
    finally:
        fake.release.set()
        fake.server.shutdown()
        fake.server.server_close()
        thread.join()


def refused_url() -> str:
    """A URL on a port where nothing listens (connection refused)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"
