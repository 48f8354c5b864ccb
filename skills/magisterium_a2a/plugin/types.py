"""The A2A v0.3 objects a skill reads and returns (Message, Part, Artifact, Task),
as pydantic models.

They live in the plug-in core because skills and the server share them; the
JSON-RPC envelope, method params and the agent card stay with the server
(``magisterium_a2a.server.protocol``). Incoming objects are validated strictly
(a number is never a string, ``kind`` is always present); outgoing objects are
dumped by alias with ``None`` fields left out, because the A2A JSON schema does
not allow ``null`` for optional members.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictStr
from pydantic.alias_generators import to_camel

TaskState = Literal[
    "submitted",
    "working",
    "input-required",
    "auth-required",
    "completed",
    "canceled",
    "failed",
    "rejected",
    "unknown",
]
TERMINAL_STATES: frozenset[str] = frozenset({"completed", "canceled", "failed", "rejected"})


class Wire(BaseModel):
    """Base of every wire model: camelCase on the wire, strict on input."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        serialize_by_alias=True,
        strict=True,
        extra="ignore",
    )

    def to_json(self) -> bytes:
        return self.model_dump_json(exclude_none=True).encode()


NonEmptyStr = Annotated[StrictStr, Field(min_length=1)]


class TextPart(Wire):
    kind: Literal["text"]
    text: StrictStr
    metadata: dict[str, Any] | None = None


class DataPart(Wire):
    kind: Literal["data"]
    data: dict[str, Any]
    metadata: dict[str, Any] | None = None


class FileWithBytes(Wire):
    bytes: StrictStr
    mime_type: StrictStr | None = None
    name: StrictStr | None = None


class FileWithUri(Wire):
    uri: StrictStr
    mime_type: StrictStr | None = None
    name: StrictStr | None = None


class FilePart(Wire):
    kind: Literal["file"]
    file: FileWithBytes | FileWithUri
    metadata: dict[str, Any] | None = None


Part = Annotated[TextPart | DataPart | FilePart, Field(discriminator="kind")]
PART_KINDS: frozenset[str] = frozenset({"text", "data", "file"})


class Message(Wire):
    kind: Literal["message"]
    role: Literal["user", "agent"]
    message_id: NonEmptyStr
    parts: Annotated[list[Part], Field(min_length=1)]
    context_id: StrictStr | None = None
    task_id: StrictStr | None = None
    reference_task_ids: list[StrictStr] | None = None
    extensions: list[StrictStr] | None = None
    metadata: dict[str, Any] | None = None


class TaskStatus(Wire):
    state: TaskState
    message: Message | None = None
    timestamp: StrictStr | None = None


class Artifact(Wire):
    artifact_id: NonEmptyStr
    name: StrictStr | None = None
    description: StrictStr | None = None
    parts: Annotated[list[Part], Field(min_length=1)]
    metadata: dict[str, Any] | None = None


class Task(Wire):
    kind: Literal["task"]
    id: NonEmptyStr
    context_id: NonEmptyStr
    status: TaskStatus
    artifacts: list[Artifact] | None = None
    history: list[Message] | None = None
    metadata: dict[str, Any] | None = None
