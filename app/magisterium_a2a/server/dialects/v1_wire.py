"""A2A 1.0 requests as they arrive (ProtoJSON of ``a2a.proto``), validated.

ProtoJSON readers accept a field by its lowerCamelCase name or its proto name,
an enum by its name or its number, and treat a field set to its default (an
empty string) as absent; these models do the same. Unknown fields are ignored
(A2A 1.0, section 5.7). A field that is wrong is named in the -32602 error by
its JSON name, as the client wrote it.
"""

from __future__ import annotations

import base64
import binascii
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BeforeValidator,
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
    model_validator,
)

from magisterium_a2a.server.clock import parse_timestamp
from magisterium_a2a.server.protocol import NonEmptyStr, Wire

INT32_MAX = 2**31 - 1
MAX_PAGE_SIZE = 100
DEFAULT_PAGE_SIZE = 50

ROLES = ("ROLE_UNSPECIFIED", "ROLE_USER", "ROLE_AGENT")
TASK_STATES = (
    "TASK_STATE_UNSPECIFIED",
    "TASK_STATE_SUBMITTED",
    "TASK_STATE_WORKING",
    "TASK_STATE_COMPLETED",
    "TASK_STATE_FAILED",
    "TASK_STATE_CANCELED",
    "TASK_STATE_INPUT_REQUIRED",
    "TASK_STATE_REJECTED",
    "TASK_STATE_AUTH_REQUIRED",
)
"""By their numbers in ``a2a.proto``."""


def _enum(names: tuple[str, ...]) -> BeforeValidator:
    """An enum field that also takes the value's number, as ProtoJSON allows."""

    def by_number(value: Any) -> Any:
        if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < len(names):
            return names[value]
        return value

    return BeforeValidator(by_number)


def _unset_if_empty(value: Any) -> Any:
    return None if value == "" else value


def _base64(value: str) -> str:
    """A ``bytes`` field: base64, standard or URL-safe, padded or not (ProtoJSON
    accepts each); kept in the standard padded form."""
    try:
        raw = base64.b64decode(
            value.replace("-", "+").replace("_", "/") + "=" * (-len(value) % 4), validate=True
        )
    except (binascii.Error, ValueError):
        raise ValueError("must be base64") from None
    return base64.b64encode(raw).decode("ascii")


def _timestamp(value: Any) -> float:
    """A ``google.protobuf.Timestamp``: an RFC 3339 string, as epoch seconds."""
    problem = "must be an RFC 3339 timestamp such as 2026-01-01T00:00:00Z"
    if not isinstance(value, str):
        raise ValueError(problem)
    try:
        return parse_timestamp(value)
    except ValueError:
        raise ValueError(problem) from None


OptionalStr = Annotated[StrictStr | None, BeforeValidator(_unset_if_empty)]
Role = Annotated[Literal["ROLE_USER", "ROLE_AGENT", "ROLE_UNSPECIFIED"], _enum(ROLES)]
TaskStateName = Annotated[
    Literal[
        "TASK_STATE_UNSPECIFIED",
        "TASK_STATE_SUBMITTED",
        "TASK_STATE_WORKING",
        "TASK_STATE_COMPLETED",
        "TASK_STATE_FAILED",
        "TASK_STATE_CANCELED",
        "TASK_STATE_INPUT_REQUIRED",
        "TASK_STATE_REJECTED",
        "TASK_STATE_AUTH_REQUIRED",
    ],
    _enum(TASK_STATES),
]
HistoryLength = Annotated[StrictInt, Field(ge=0, le=INT32_MAX)]


class Part(Wire):
    """One of ``text``, ``raw`` (base64), ``url`` or ``data`` (any JSON value)."""

    text: StrictStr | None = None
    raw: Annotated[StrictStr, AfterValidator(_base64)] | None = None
    url: StrictStr | None = None
    data: Any = None
    metadata: dict[str, Any] | None = None
    filename: OptionalStr = None
    media_type: OptionalStr = None

    @model_validator(mode="after")
    def _one_content(self) -> Part:
        # null is no value for text, raw and url, but a JSON value for data.
        given = [name for name in ("text", "raw", "url") if getattr(self, name) is not None]
        if "data" in self.model_fields_set:
            given.append("data")
        if len(given) != 1:
            raise ValueError("a part has exactly one of text, raw, url and data")
        return self


class Message(Wire):
    message_id: NonEmptyStr
    context_id: OptionalStr = None
    task_id: OptionalStr = None
    role: Role
    parts: Annotated[list[Part], Field(min_length=1)]
    metadata: dict[str, Any] | None = None
    extensions: list[StrictStr] | None = None
    reference_task_ids: list[StrictStr] | None = None


class SendMessageConfiguration(Wire):
    accepted_output_modes: list[StrictStr] | None = None
    task_push_notification_config: dict[str, Any] | None = None
    history_length: HistoryLength | None = None
    return_immediately: StrictBool = False


class Tenanted(Wire):
    """A request that may name a tenant (this agent declares none)."""

    tenant: OptionalStr = None


class SendMessageRequest(Tenanted):
    message: Message
    configuration: SendMessageConfiguration | None = None
    metadata: dict[str, Any] | None = None


class GetTaskRequest(Tenanted):
    id: NonEmptyStr
    history_length: HistoryLength | None = None


class CancelTaskRequest(Tenanted):
    id: NonEmptyStr
    metadata: dict[str, Any] | None = None


class ListTasksRequest(Tenanted):
    context_id: OptionalStr = None
    status: TaskStateName | None = None
    page_size: Annotated[StrictInt, Field(ge=1, le=MAX_PAGE_SIZE)] | None = None
    page_token: OptionalStr = None
    history_length: HistoryLength | None = None
    status_timestamp_after: Annotated[float, BeforeValidator(_timestamp)] | None = None
    include_artifacts: StrictBool | None = None


class GetExtendedAgentCardRequest(Tenanted):
    pass


class AnyRequest(Wire):
    """The params of an operation this server refuses whatever they say."""
