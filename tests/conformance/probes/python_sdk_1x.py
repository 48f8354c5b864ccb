"""Drives the server with the official Python SDK, 1.x line, in its own venv.

Reads a plan (JSON) on stdin and prints a report (JSON) on stdout: for each
case, what the SDK returned, or which of its own error types it raised with
what it carries. The test asserts on the report; this script only observes.

``plan["dialect"]`` says which of the card's interfaces the client takes:
``"1.0"``, the SDK on its own (``ClientFactory.create_from_url``, which reads
the card, prefers its 1.0 interface and speaks A2A 1.0 with no compatibility
layer); ``"0.3"``, the card's v0.3 interface alone, which the SDK serves with
its v0.3 compatibility transport.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
from a2a.client import A2ACardResolver, ClientConfig, ClientFactory
from a2a.types import (
    CancelTaskRequest,
    GetExtendedAgentCardRequest,
    GetTaskPushNotificationConfigRequest,
    GetTaskRequest,
    ListTasksRequest,
    Message,
    Part,
    Role,
    SendMessageRequest,
    Task,
)
from a2a.utils.errors import JSON_RPC_ERROR_CODE_MAP
from google.protobuf.json_format import MessageToDict
from google.protobuf.struct_pb2 import Struct


def message(
    text: str, skill: str, *, parts: list[Part] | None = None, context_id: str = ""
) -> Message:
    metadata = Struct()
    metadata.update({"skillId": skill})
    return Message(
        role=Role.ROLE_USER,
        message_id=f"py1-{skill}-{text}",
        parts=[Part(text=text)] if parts is None else parts,
        metadata=metadata,
        context_id=context_id,
    )


def task_summary(task: Task) -> dict[str, Any]:
    wire = MessageToDict(task)
    return {
        "id": task.id,
        "contextId": task.context_id,
        "state": wire["status"]["state"],
        "texts": [p.text for a in task.artifacts for p in a.parts if p.HasField("text")],
        "historyRoles": [m.get("role") for m in wire.get("history", [])],
        "metadata": wire.get("metadata"),
    }


def describe(exc: BaseException) -> dict[str, Any]:
    """What the SDK's exception carries, and the HTTP answer behind it if kept."""
    seen: dict[str, Any] = {
        "ok": False,
        "class": type(exc).__name__,
        "bases": [c.__name__ for c in type(exc).__mro__],
        "code": JSON_RPC_ERROR_CODE_MAP.get(type(exc)),  # the SDK's own code for its type
        "serverMessage": getattr(exc, "message", str(exc)),
        "data": getattr(exc, "data", None),
        "httpStatus": None,
        "retryAfterHeader": None,
    }
    cause = exc.__cause__
    if isinstance(cause, httpx.HTTPStatusError):
        # 401, 403 and 429: the SDK raises a generic error chained to the HTTP
        # answer, whose body is the JSON-RPC error.
        error = cause.response.json()["error"]
        seen["sdkMessage"] = seen["serverMessage"]
        seen["code"], seen["serverMessage"] = error["code"], error["message"]
        seen["data"] = error.get("data")
        seen["httpStatus"] = cause.response.status_code
        seen["retryAfterHeader"] = cause.response.headers.get("retry-after")
    return seen


async def outcome(call: Callable[[], Awaitable[Any]]) -> dict[str, Any]:
    try:
        value = await call()
    except Exception as exc:
        return describe(exc)
    if isinstance(value, Task):
        return {"ok": True, "task": task_summary(value)}
    return {"ok": True, "value": MessageToDict(value) if value is not None else None}


async def run(plan: dict[str, Any]) -> dict[str, Any]:
    base = plan["baseUrl"]
    tokens = plan["tokens"]
    native = plan["dialect"] == "1.0"
    clients: dict[str, Any] = {}
    cards: dict[str, Any] = {}
    https: list[httpx.AsyncClient] = []

    async def client(token_name: str) -> Any:
        if token_name not in clients:
            http = httpx.AsyncClient(
                headers={"Authorization": f"Bearer {tokens[token_name]}"}, timeout=60
            )
            https.append(http)
            factory = ClientFactory(ClientConfig(httpx_client=http, streaming=False))
            if native:
                made = await factory.create_from_url(base)
                cards[token_name] = made._card  # introspection, for the report only
            else:
                card = await A2ACardResolver(http, base).get_agent_card()
                legacy = [i for i in card.supported_interfaces if i.protocol_version == "0.3"]
                del card.supported_interfaces[:]
                card.supported_interfaces.extend(legacy)
                cards[token_name] = card
                made = factory.create(card)
            clients[token_name] = made
        return clients[token_name]

    async def send(token_name: str, msg: Message) -> Task:
        sent = await client(token_name)
        events = [e async for e in sent.send_message(SendMessageRequest(message=msg))]
        task: Task = events[-1].task
        return task

    report: dict[str, Any] = {}
    pro = await client("pro")
    transport = pro._transport  # introspection, for the report only
    interface = next(i for i in cards["pro"].supported_interfaces if i.url == transport.url)
    report["card"] = {
        "protocolVersion": interface.protocol_version,
        "url": interface.url,
        "transport": type(transport).__name__,
        "interfaces": [i.protocol_version for i in cards["pro"].supported_interfaces],
    }
    text, skill = plan["text"], plan["skill"]
    sent = await outcome(lambda: send("pro", message(text, skill, context_id=plan["context"])))
    report["send"] = sent
    task_id = sent["task"]["id"] if sent["ok"] else "missing"
    report["get"] = await outcome(
        lambda: pro.get_task(GetTaskRequest(id=task_id, history_length=1))
    )
    report["cancel"] = await outcome(lambda: pro.cancel_task(CancelTaskRequest(id=task_id)))
    report["get_unknown"] = await outcome(
        lambda: pro.get_task(GetTaskRequest(id=plan["unknownTaskId"]))
    )
    report["cancel_unknown"] = await outcome(
        lambda: pro.cancel_task(CancelTaskRequest(id=plan["unknownTaskId"]))
    )
    report["send_unknown_skill"] = await outcome(
        lambda: send("pro", message(text, plan["unknownSkill"]))
    )
    report["send_empty_parts"] = await outcome(lambda: send("pro", message(text, skill, parts=[])))
    report["send_rate_limited"] = await outcome(lambda: send("limited", message(text, skill)))
    report["send_bad_token"] = await outcome(lambda: send("bogus", message(text, skill)))
    report["send_free_plan"] = await outcome(lambda: send("free", message(text, skill)))
    internal = await client("internal")
    report["get_internal_error"] = await outcome(
        lambda: internal.get_task(GetTaskRequest(id=task_id))
    )
    # Push notifications are a part of A2A this server does not offer.
    report["unknown_method"] = await outcome(
        lambda: pro.get_task_push_notification_config(
            GetTaskPushNotificationConfigRequest(task_id=task_id, id="any")
        )
    )
    if native:
        second = await outcome(lambda: send("pro", message(f"{text} again", skill)))
        report["list"] = await outcome(lambda: pro.list_tasks(ListTasksRequest()))
        report["list_context"] = await outcome(
            lambda: pro.list_tasks(ListTasksRequest(context_id=plan["context"]))
        )
        first_page = await outcome(lambda: pro.list_tasks(ListTasksRequest(page_size=1)))
        report["list_first_page"] = first_page
        report["list_second_page"] = await outcome(
            lambda: pro.list_tasks(
                ListTasksRequest(page_size=1, page_token=first_page["value"]["nextPageToken"])
            )
        )
        report["second"] = second
        report["extended_card"] = await outcome(
            lambda: pro.get_extended_agent_card(GetExtendedAgentCardRequest())
        )
    for opened in clients.values():
        await opened.close()
    for http in https:
        await http.aclose()
    return report


if __name__ == "__main__":
    print(json.dumps(asyncio.run(run(json.load(sys.stdin)))))
