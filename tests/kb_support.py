"""Helpers for the knowledge-base tests: the two skills through the harness,
the CLI, and a fake OpenAI-compatible embeddings server on a free port."""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from magisterium_a2a.server.cli import cli
from magisterium_a2a.server.config import Settings
from magisterium_a2a.testing.pytest_plugin import free_port
from tests.support import SHARED, Harness

BUILTINS = (
    "magisterium_a2a.skills.document_search:create",
    "magisterium_a2a.skills.document_fetch:create",
)
SUMMA = SHARED / "refdata" / "kb-summa-prima-pars"
TRENT = SHARED / "refdata" / "kb-catechism-trent" / "Catholic_Catechism_Trent.md"
CYPRIAN = SHARED / "refdata" / "kb-fathers-cyprian-letters"


def need_kb_refdata() -> None:
    """Skip, with the reason, where the knowledge-base data sets are absent."""
    if not (SUMMA.is_dir() and TRENT.is_file() and CYPRIAN.is_dir()):
        pytest.skip("../shared/refdata/kb-* is absent (CI has it)")


runner = CliRunner()


def run_cli(settings: Settings, *args: str, env: dict[str, str] | None = None) -> Result:
    environment = {"A2A_DATA_DIR": str(settings.data_dir), **(env or {})}
    return runner.invoke(cli, list(args), env=environment)


async def search(h: Harness, token: str, query: str | dict[str, Any]) -> dict[str, Any]:
    """The task of one document_search call."""
    parts: list[dict[str, Any]] = (
        [{"kind": "text", "text": query}]
        if isinstance(query, str)
        else [{"kind": "data", "data": query}]
    )
    response = await h.send(token, skill="document_search", parts=parts)
    assert response.status_code == 200, response.text
    task: dict[str, Any] = response.json()["result"]
    return task


def result_ids(task: dict[str, Any]) -> list[str]:
    assert task["status"]["state"] == "completed", task
    [artifact] = task["artifacts"]
    assert artifact["name"] == "search_results"
    [part] = artifact["parts"]
    return [r["id"] for r in part["data"]["results"]]


async def fetch(h: Harness, token: str, parts: list[dict[str, Any]]) -> dict[str, Any]:
    response = await h.send(token, skill="document_fetch", parts=parts)
    assert response.status_code == 200, response.text
    task: dict[str, Any] = response.json()["result"]
    return task


# Words that mean the same thing share a dimension, so the fake model "knows"
# synonyms that BM25 cannot see.
CONCEPTS: list[set[str]] = [
    {"worker", "workers", "labour", "labor", "employee", "employees", "wage", "wages"},
    {"pope", "pontiff", "papal", "papacy"},
    {"planet", "earth", "ecology", "ecological", "environment", "climate", "creation"},
    {"mary", "virgin", "theotokos", "mother"},
    {"killing", "euthanasia", "suicide", "dying", "death"},
]
DIMS = 48


def fake_embedding(text: str, dims: int = DIMS) -> list[float]:
    vector = [0.0] * dims
    for word in re.findall(r"[a-z]+", text.lower()):
        for i, concept in enumerate(CONCEPTS):
            if word in concept:
                vector[i] += 3.0
                break
        else:
            slot = len(CONCEPTS) + int(hashlib.md5(word.encode()).hexdigest(), 16) % (
                dims - len(CONCEPTS)
            )
            vector[slot] += 0.2
    return vector


class FakeEmbeddings:
    """A real HTTP server speaking POST /v1/embeddings, in a thread."""

    def __init__(self, dims: int = DIMS, port: int | None = None) -> None:
        self.port = port or free_port()
        self.dims = dims
        self.requests: list[dict[str, Any]] = []
        self.fail = False
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                fake.requests.append(
                    {"path": self.path, "body": body, "auth": self.headers.get("Authorization")}
                )
                if fake.fail or self.path != "/v1/embeddings":
                    self.send_response(503 if fake.fail else 404)
                    self.end_headers()
                    return
                inputs = body["input"]
                data = [
                    {
                        "object": "embedding",
                        "index": i,
                        "embedding": fake_embedding(text, fake.dims),
                    }
                    for i, text in enumerate(inputs)
                ]
                payload = json.dumps({"object": "list", "data": data, "model": body["model"]})
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload.encode())

            def log_message(self, format: str, *args: Any) -> None:
                return

        self.server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"


@contextlib.contextmanager
def fake_embeddings(dims: int = DIMS) -> Iterator[FakeEmbeddings]:
    fake = FakeEmbeddings(dims)
    thread = threading.Thread(target=fake.server.serve_forever, daemon=True)
    thread.start()
    try:
        yield fake
    finally:
        fake.server.shutdown()
        fake.server.server_close()
        thread.join()
