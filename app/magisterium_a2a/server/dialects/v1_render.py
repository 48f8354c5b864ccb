"""Between the one form tasks have here and A2A 1.0's ProtoJSON.

Tasks are built and stored in the hosted dialect's form (the plug-in core's
wire objects, ``kind`` discriminators and all); that is the server's task
model, whichever dialect wrote the task. This module renders a stored task, or
any of its parts, as ``a2a.proto``'s JSON, with fields in the proto's order, and
reads a 1.0 message into the task model. Nothing here touches the store.

What the task model cannot hold is refused or dropped, never invented: a
``data`` part must be a JSON object (the model's ``DataPart``), and a media
type or file name on a text or data part has no field to go to.
"""

from __future__ import annotations

from typing import Any

from magisterium_a2a.server.dialects import v1_wire as wire
from magisterium_a2a.server.errors import InvalidParams
from magisterium_a2a.server.protocol import (
    DataPart,
    FilePart,
    FileWithBytes,
    FileWithUri,
    Message,
    Part,
    TextPart,
)

STATES = {
    "submitted": "TASK_STATE_SUBMITTED",
    "working": "TASK_STATE_WORKING",
    "input-required": "TASK_STATE_INPUT_REQUIRED",
    "auth-required": "TASK_STATE_AUTH_REQUIRED",
    "completed": "TASK_STATE_COMPLETED",
    "canceled": "TASK_STATE_CANCELED",
    "failed": "TASK_STATE_FAILED",
    "rejected": "TASK_STATE_REJECTED",
    "unknown": "TASK_STATE_UNSPECIFIED",
}
"""The task model's states by their 1.0 names (A2A 1.0, "What's new", section 5)."""
STATE_OF = {name: state for state, name in STATES.items() if state != "unknown"}
ROLES = {"user": "ROLE_USER", "agent": "ROLE_AGENT"}


# --- out: the task model as 1.0 JSON ------------------------------------------------


def task(doc: dict[str, Any], history_length: int | None = None, artifacts: bool = True) -> Any:
    """A stored task as a 1.0 ``Task``: ``history_length`` keeps the last messages
    (0 leaves the history out, None keeps all); ``artifacts`` False leaves them out."""
    out: dict[str, Any] = {
        "id": doc["id"],
        "contextId": doc["contextId"],
        "status": status(doc["status"]),
    }
    if artifacts:
        out["artifacts"] = [artifact(a) for a in doc.get("artifacts") or ()]
    history = doc.get("history")
    if history and history_length != 0:
        kept = history if history_length is None else history[-history_length:]
        out["history"] = [message(m) for m in kept]
    if doc.get("metadata") is not None:
        out["metadata"] = doc["metadata"]
    return out


def status(doc: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"state": STATES[doc["state"]]}
    if doc.get("message") is not None:
        out["message"] = message(doc["message"])
    if doc.get("timestamp") is not None:
        out["timestamp"] = doc["timestamp"]
    return out


def message(doc: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"messageId": doc["messageId"]}
    for name in ("contextId", "taskId"):
        if doc.get(name):
            out[name] = doc[name]
    out["role"] = ROLES[doc["role"]]
    out["parts"] = [part(p) for p in doc["parts"]]
    for name in ("metadata", "extensions", "referenceTaskIds"):
        if doc.get(name) is not None:
            out[name] = doc[name]
    return out


def artifact(doc: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"artifactId": doc["artifactId"]}
    for name in ("name", "description"):
        if doc.get(name) is not None:
            out[name] = doc[name]
    out["parts"] = [part(p) for p in doc["parts"]]
    for name in ("metadata", "extensions"):
        if doc.get(name) is not None:
            out[name] = doc[name]
    return out


def part(doc: dict[str, Any]) -> dict[str, Any]:
    kind = doc["kind"]
    out: dict[str, Any]
    file: dict[str, Any] = {}
    if kind == "text":
        out = {"text": doc["text"]}
    elif kind == "data":
        out = {"data": doc["data"]}
    else:
        file = doc["file"]
        out = {"raw": file["bytes"]} if "bytes" in file else {"url": file["uri"]}
    if doc.get("metadata") is not None:
        out["metadata"] = doc["metadata"]
    if file.get("name"):
        out["filename"] = file["name"]
    if file.get("mimeType"):
        out["mediaType"] = file["mimeType"]
    return out


# --- in: a 1.0 message as the task model ---------------------------------------------


def incoming(sent: wire.Message) -> Message:
    """The client's message in the task model's form (what skills read)."""
    if sent.role != "ROLE_USER":
        raise InvalidParams.field("message.role", "must be ROLE_USER")
    return Message(
        kind="message",
        role="user",
        message_id=sent.message_id,
        parts=[_part(p, f"message.parts[{i}]") for i, p in enumerate(sent.parts)],
        context_id=sent.context_id,
        task_id=sent.task_id,
        reference_task_ids=sent.reference_task_ids,
        extensions=sent.extensions,
        metadata=sent.metadata,
    )


def _part(sent: wire.Part, where: str) -> Part:
    if sent.text is not None:
        return TextPart(kind="text", text=sent.text, metadata=sent.metadata)
    file: FileWithBytes | FileWithUri
    if sent.raw is not None:
        file = FileWithBytes(bytes=sent.raw, mime_type=sent.media_type, name=sent.filename)
    elif sent.url is not None:
        file = FileWithUri(uri=sent.url, mime_type=sent.media_type, name=sent.filename)
    elif isinstance(sent.data, dict):
        return DataPart(kind="data", data=sent.data, metadata=sent.metadata)
    else:
        raise InvalidParams.field(f"{where}.data", "this agent takes a JSON object here")
    return FilePart(kind="file", file=file, metadata=sent.metadata)
