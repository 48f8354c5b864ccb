"""Wire types of the A2A v0.3 JSON-RPC dialect, as pydantic models.

This is the one place where the shapes on the wire are written down. Incoming
objects are validated strictly (a number is never a string, ``kind`` is always
present); outgoing objects are dumped by alias with ``None`` fields left out,
because the A2A JSON schema does not allow ``null`` for optional members.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr
from pydantic.alias_generators import to_camel

JSONRPC_VERSION = "2.0"
PROTOCOL_VERSION = "0.3.0"

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

RequestId = StrictStr | StrictInt


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


# --- JSON-RPC method params -------------------------------------------------


class MessageSendParams(Wire):
    message: Message
    configuration: dict[str, Any] | None = None
    metadata: dict[str, Any] | None = None


class TaskQueryParams(Wire):
    id: NonEmptyStr
    history_length: Annotated[StrictInt, Field(ge=0)] | None = None
    metadata: dict[str, Any] | None = None


class TaskIdParams(Wire):
    id: NonEmptyStr
    metadata: dict[str, Any] | None = None


# --- JSON-RPC envelope ------------------------------------------------------


class JSONRPCRequest(Wire):
    """A request whose envelope already passed the contract's checks."""

    jsonrpc: Literal["2.0"]
    id: RequestId
    method: StrictStr
    params: Any = None


# --- Agent card -------------------------------------------------------------


class AgentCapabilities(Wire):
    streaming: bool = False
    push_notifications: bool = False
    state_transition_history: bool = True


class AgentSkill(Wire):
    id: StrictStr
    name: StrictStr
    description: StrictStr
    tags: list[StrictStr]
    examples: list[StrictStr] | None = None
    input_modes: list[StrictStr] | None = None
    output_modes: list[StrictStr] | None = None


class HTTPAuthSecurityScheme(Wire):
    type: Literal["http"] = "http"
    scheme: StrictStr = "bearer"
    bearer_format: StrictStr | None = None
    description: StrictStr | None = None


class AgentCard(Wire):
    name: StrictStr
    description: StrictStr
    url: StrictStr
    version: StrictStr
    protocol_version: StrictStr = PROTOCOL_VERSION
    preferred_transport: StrictStr = "JSONRPC"
    capabilities: AgentCapabilities
    default_input_modes: list[StrictStr]
    default_output_modes: list[StrictStr]
    security_schemes: dict[str, HTTPAuthSecurityScheme]
    security: list[dict[str, list[StrictStr]]]
    skills: list[AgentSkill]
