"""A small client of the test mode's ``/_test/`` API, shared by the CLI and
the pytest plugin."""

from __future__ import annotations

from typing import Any

import httpx


class AdminError(RuntimeError):
    """The /_test/ API refused a request; the message says why."""


class AdminClient:
    def __init__(self, base_url: str, admin_token: str, timeout: float = 30.0) -> None:
        self._http = httpx.Client(
            base_url=base_url.rstrip("/"),
            headers={"Authorization": f"Bearer {admin_token}"},
            timeout=timeout,
        )

    def close(self) -> None:
        self._http.close()

    def _call(self, method: str, path: str, body: Any = None, **params: Any) -> Any:
        response = self._http.request(method, f"/_test{path}", json=body, params=params or None)
        if response.status_code != 200:
            try:
                detail = response.json().get("detail", response.text)
            except ValueError:
                detail = response.text
            raise AdminError(f"{method} /_test{path}: HTTP {response.status_code}: {detail}")
        return response.json()

    def issue_token(self, plan: str, user: str | None = None, **limits: Any) -> str:
        body = {"plan": plan, "user": user, **limits}
        token: str = self._call(
            "POST", "/tokens", {k: v for k, v in body.items() if v is not None}
        )["token"]
        return token

    def add_scenario(self, **spec: Any) -> str:
        scenario_id: str = self._call(
            "POST", "/scenarios", {k: v for k, v in spec.items() if v is not None}
        )["id"]
        return scenario_id

    def scenarios(self, token: str) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = self._call("GET", "/scenarios", token=token)["scenarios"]
        return found

    def clock(self) -> dict[str, Any]:
        now: dict[str, Any] = self._call("GET", "/clock")
        return now

    def set_clock(self, now: float | str) -> dict[str, Any]:
        moved: dict[str, Any] = self._call("POST", "/clock", {"now": now})
        return moved

    def advance_clock(self, seconds: float) -> dict[str, Any]:
        moved: dict[str, Any] = self._call("POST", "/clock", {"advance": seconds})
        return moved

    def expire_task(self, token: str, task_id: str) -> None:
        self._call("POST", "/tasks/expire", {"token": token, "taskId": task_id})

    def reset(self) -> int:
        deleted: int = self._call("POST", "/reset")["deleted"]
        return deleted


def _given(fields: dict[str, Any]) -> dict[str, Any]:
    """Only the fields that were given: the API applies its own defaults."""
    return {name: value for name, value in fields.items() if value is not None}
