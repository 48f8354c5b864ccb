"""The one script every client is put through, and what the contract says
each step must answer.

A client probe (under ``probes/``) gets a plan: the server's base URL, one
token per role, and the dialect to speak. It runs the same steps with its own
API and reports what it saw. The tokens are fresh for every run, so probes never share a rate-limit
window, and the two codes that are hard to meet naturally are arranged here:
the ``limited`` token has spent its only request of the minute, and the
``internal`` token's next ``tasks/get`` is forced to ``-32603`` by a test-mode
scenario.
"""

from __future__ import annotations

import json
import secrets
import subprocess
from pathlib import Path
from typing import Any, NamedTuple

import httpx
import pytest
from a2a.types import Task

from magisterium_a2a.testing.pytest_plugin import MagisteriumServer
from tests.support import rpc_body, send_params

PROBES = Path(__file__).resolve().parent / "probes"
PROBE_TIMEOUT = 180


class Expected(NamedTuple):
    """The contract's answer to one step: JSON-RPC code, HTTP status, message."""

    code: int
    status: int
    message: str


# Each step of the plan, with the answer CONTRACT.md requires of the server.
STEPS: dict[str, Expected] = {
    "cancel": Expected(-32602, 200, "Invalid state transition"),
    "get_unknown": Expected(-32001, 200, "Task not found"),
    "cancel_unknown": Expected(-32001, 200, "Task not found"),
    "send_unknown_skill": Expected(-32002, 200, "Skill not found"),
    "send_empty_parts": Expected(-32602, 200, "Invalid params"),
    "send_rate_limited": Expected(-32003, 429, "Rate limit exceeded"),
    "send_bad_token": Expected(-32004, 401, "Unauthorized"),
    "send_free_plan": Expected(-32005, 403, "Paid plan required"),
    "get_internal_error": Expected(-32603, 200, "Internal error"),
    "unknown_method": Expected(-32601, 200, "Method not found"),
}
# The same steps in A2A 1.0 (errors.py's 1.0 column); a push-notification call
# is refused with 1.0's own error instead of being an unknown method.
STEPS_V10: dict[str, Expected] = {
    "cancel": Expected(-32002, 200, "Task cannot be canceled"),
    "get_unknown": Expected(-32001, 200, "Task not found"),
    "cancel_unknown": Expected(-32001, 200, "Task not found"),
    "send_unknown_skill": Expected(-32602, 200, "Skill not found"),
    "send_empty_parts": Expected(-32602, 200, "Invalid parameters"),
    "send_rate_limited": Expected(-31429, 429, "Rate limit exceeded"),
    "send_bad_token": Expected(-31401, 401, "Unauthorized"),
    "send_free_plan": Expected(-31403, 403, "Paid plan required"),
    "get_internal_error": Expected(-32603, 200, "Internal error"),
    "unknown_method": Expected(
        -32003,
        200,
        "Push notifications are not supported (capabilities.pushNotifications is false).",
    ),
}
V10_METHODS = frozenset(
    {"SendMessage", "GetTask", "ListTasks", "CancelTask", "GetExtendedAgentCard"}
    | {"GetTaskPushNotificationConfig"}
)


def make_plan(server: MagisteriumServer, client: str, dialect: str = "0.3") -> dict[str, Any]:
    """Fresh tokens for one client run, with the hard-to-meet codes arranged."""
    tokens = {
        "pro": server.issue_token("pro", f"{client}-pro"),
        "free": server.issue_token("free", f"{client}-free"),
        "limited": server.issue_token("enterprise", f"{client}-limited", perMinute=1),
        "internal": server.issue_token("pro", f"{client}-internal"),
        "bogus": f"mag_{secrets.token_urlsafe(32)}",
    }
    spent = httpx.post(
        server.endpoint_url,
        json=rpc_body("message/send", send_params("the only one this minute")),
        headers={"Authorization": f"Bearer {tokens['limited']}"},
        timeout=30,
    )
    assert spent.status_code == 200, spent.text
    server.force_error(tokens["internal"], -32603, method="tasks/get")
    return {
        "baseUrl": server.base_url,
        "dialect": dialect,
        "tokens": tokens,
        "text": f"conformance of {client} {secrets.token_hex(4)}",
        "context": f"ctx-{secrets.token_hex(8)}",
        "skill": "echo",
        "unknownSkill": "no_such_skill",
        "unknownTaskId": f"no-such-task-{secrets.token_hex(4)}",
    }


def run_probe(command: list[str], plan: dict[str, Any], cwd: Path | None = None) -> Any:
    """Run a probe with the plan on stdin; its report is the JSON on stdout."""
    done = subprocess.run(
        command,
        input=json.dumps(plan),
        capture_output=True,
        text=True,
        timeout=PROBE_TIMEOUT,
        cwd=cwd,
        check=False,
    )
    if done.returncode != 0:
        pytest.fail(f"probe {command} exited {done.returncode}:\n{done.stderr[-6000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def check_happy_path(report: dict[str, Any], plan: dict[str, Any], states: dict[str, str]) -> None:
    """send, then get with historyLength 1, as the client decoded them."""
    sent, got = report["send"], report["get"]
    assert sent["ok"], sent
    task = sent["task"]
    assert task["state"] == states["completed"]
    assert task["texts"] == [plan["text"]]
    assert task["historyRoles"] == [states["user"], states["agent"]]
    assert task["metadata"] == {"skillId": "echo"}
    assert got["ok"], got
    assert got["task"]["id"] == task["id"]
    assert got["task"]["contextId"] == task["contextId"]
    assert got["task"]["historyRoles"] == [states["agent"]]


def check_errors(
    report: dict[str, Any],
    plan: dict[str, Any],
    types: dict[str, str],
    steps: dict[str, Expected] = STEPS,
) -> None:
    """Every error step: the client's own type, with the contract's code and message.

    ``types`` names, per step, the error class the client raises. Where the
    client keeps the HTTP answer (``httpStatus`` is set), its status must be
    the contract's too; where it keeps ``data``, the details must be there.
    """
    assert sorted(types) == sorted(steps)
    problems = []
    for step, expected in steps.items():
        seen = report[step]
        got = (seen.get("class"), seen.get("code"), seen.get("serverMessage"))
        if seen["ok"] or got != (types[step], expected.code, expected.message):
            problems.append(f"{step}: expected {(types[step], *expected)}, saw {seen}")
        elif seen["httpStatus"] not in (None, expected.status):
            problems.append(f"{step}: HTTP {seen['httpStatus']}, expected {expected.status}")
    assert problems == [], "\n".join(problems)
    if steps is STEPS_V10:
        return
    limited = report["send_rate_limited"]
    if limited["data"] is not None:
        assert 1 <= limited["data"]["retryAfter"] <= 60
    if limited["retryAfterHeader"] is not None:
        assert limited["retryAfterHeader"] == str(limited["data"]["retryAfter"])
    details = {
        "send_unknown_skill": {"skillId": plan["unknownSkill"]},
        "cancel": {"id": report["send"]["task"]["id"], "state": "completed"},
        "get_unknown": {"id": plan["unknownTaskId"]},
    }
    for step, data in details.items():
        assert report[step]["data"] in (None, data), report[step]


def check_errors_v10(report: dict[str, Any], plan: dict[str, Any], types: dict[str, str]) -> None:
    """``check_errors`` for a 1.0 client: 1.0's codes, and its typed details,
    which a client keeps either as they came (``data``, a list whose first item
    is the ``google.rpc.ErrorInfo``) or as that ErrorInfo's ``metadata``."""
    check_errors(report, plan, types, STEPS_V10)
    task_id = report["send"]["task"]["id"]
    metadata = {
        "send_unknown_skill": {"skillId": plan["unknownSkill"]},
        "cancel": {"taskId": task_id, "state": "completed"},
        "get_unknown": {"taskId": plan["unknownTaskId"]},
    }
    for step, expected in metadata.items():
        data = report[step]["data"]
        if isinstance(data, list):
            data = data[0]["metadata"]
        assert data in (None, expected), (step, report[step])
    limited = report["send_rate_limited"]
    if limited["retryAfterHeader"] is not None and isinstance(limited["data"], list):
        assert limited["data"][1] == {
            "@type": "type.googleapis.com/google.rpc.RetryInfo",
            "retryDelay": f"{limited['retryAfterHeader']}s",
        }


def recorded_requests(records: Path, run: dict[str, Any], plan: dict[str, Any]) -> list[Any]:
    """What the server recorded of one probe's run: the requests that carry the
    run's text, its context or one of its tasks' ids."""
    marks = {plan["text"], plan["context"], plan["unknownTaskId"]}
    marks |= {
        step["task"]["id"] for step in run.values() if isinstance(step, dict) and "task" in step
    }
    found = []
    for path in sorted(records.glob("*.json")):
        recorded = json.loads(path.read_text())
        if any(mark in json.dumps(recorded["request"]["body"]) for mark in marks):
            found.append(recorded["request"])
    return found


def final_task(events: list[Any]) -> Task:
    """The task an a2a-sdk 0.3 client's ``send_message`` ended with (its last event,
    a task or a ``(task, update)`` pair)."""
    last = events[-1]
    task = last[0] if isinstance(last, tuple) else last
    assert isinstance(task, Task)
    return task
