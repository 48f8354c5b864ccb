"""Recording of request/response pairs (``A2A_RECORD_DIR``), for client
developers who want real answers as fixtures. Tokens are never written."""

from __future__ import annotations

import asyncio
import itertools
import os
import re
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import orjson

from magisterium_a2a.server.errors import ParseError
from magisterium_a2a.server.rpc import parse_body

_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")
_SECRET_HEADERS = frozenset({"authorization", "cookie", "proxy-authorization"})


def _body(raw: bytes) -> Any:
    """The body as the endpoint parsed it; what it could not parse, as text."""
    try:
        return parse_body(raw)
    except ParseError:
        return raw.decode("utf-8", errors="replace")


def _headers(headers: Mapping[str, str]) -> dict[str, str]:
    return {
        name: ("<redacted>" if name.lower() in _SECRET_HEADERS else value)
        for name, value in headers.items()
    }


class Recorder:
    def __init__(self, directory: Path) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        self._directory = directory
        self._sequence = itertools.count(1)
        self._pid = os.getpid()

    async def record(
        self,
        request_headers: Mapping[str, str],
        request_body: bytes,
        status: int,
        response_headers: Mapping[str, str],
        response_body: bytes,
    ) -> Path:
        request = _body(request_body)
        method = request.get("method") if isinstance(request, dict) else None
        label = _UNSAFE.sub("_", method) if isinstance(method, str) else "request"
        name = f"{time.time_ns()}-{self._pid}-{next(self._sequence):06d}-{label}.json"
        document = {
            "request": {"headers": _headers(request_headers), "body": request},
            "response": {
                "status": status,
                "headers": _headers(response_headers),
                "body": _body(response_body),
            },
        }
        path = self._directory / name
        data = orjson.dumps(document, option=orjson.OPT_INDENT_2)
        await asyncio.to_thread(path.write_bytes, data)
        return path
