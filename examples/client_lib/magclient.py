"""A tiny client library for the Magisterium A2A API, as a client developer
might write it. Its tests (test_magclient.py) run against the
magisterium-a2a pytest plugin, not the hosted service."""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from typing import Any

import httpx


class MagisteriumError(Exception):
    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(f"{code} {message}")
        self.code = code
        self.data = data


class Unauthorized(MagisteriumError): ...


class PlanRequired(MagisteriumError): ...


class TaskNotFound(MagisteriumError): ...


class RateLimited(MagisteriumError):
    @property
    def retry_after(self) -> int:
        return int(self.data["retryAfter"])


ERRORS = {-32004: Unauthorized, -32005: PlanRequired, -32001: TaskNotFound, -32003: RateLimited}


class MagisteriumClient:
    def __init__(
        self,
        endpoint: str,
        token: str,
        *,
        sleep: Callable[[float], None] = time.sleep,
        max_retries: int = 3,
    ) -> None:
        self._http = httpx.Client(headers={"Authorization": f"Bearer {token}"}, timeout=30)
        self._endpoint = endpoint
        self._sleep = sleep
        self._max_retries = max_retries
        self._ids = itertools.count(1)

    def _call(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        body = {"jsonrpc": "2.0", "id": next(self._ids), "method": method, "params": params}
        answer = self._http.post(self._endpoint, json=body).json()
        if "error" in answer:
            error = answer["error"]
            kind = ERRORS.get(error["code"], MagisteriumError)
            raise kind(error["code"], error["message"], error.get("data"))
        result: dict[str, Any] = answer["result"]
        return result

    def send(self, text: str, skill: str = "catholic_qa") -> dict[str, Any]:
        """Send one text to a skill; wait out rate limits as the server asks."""
        message = {
            "role": "user",
            "kind": "message",
            "messageId": f"magclient-{time.time_ns()}",
            "parts": [{"kind": "text", "text": text}],
            "metadata": {"skillId": skill},
        }
        for attempt in itertools.count():
            try:
                return self._call("message/send", {"message": message})
            except RateLimited as limited:
                if attempt >= self._max_retries:
                    raise
                self._sleep(limited.retry_after)
        raise AssertionError("unreachable")

    def task(self, task_id: str) -> dict[str, Any]:
        return self._call("tasks/get", {"id": task_id})

    @staticmethod
    def text_of(task: dict[str, Any]) -> str:
        """All text parts of a completed task's artifacts, or the failure text."""
        if task["status"]["state"] == "failed":
            return str(task["status"]["message"]["parts"][0]["text"])
        return "\n".join(
            part["text"]
            for artifact in task["artifacts"]
            for part in artifact["parts"]
            if part["kind"] == "text"
        )
