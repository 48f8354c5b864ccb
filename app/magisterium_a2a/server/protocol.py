"""Wire types the server alone speaks: JSON-RPC method params, the envelope and
the agent card. The A2A objects themselves (Message, Part, Task, …) are the
plug-in core's (``magisterium_a2a.plugin.types``) and re-exported here, so the
server has one place to import wire models from.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, StrictInt, StrictStr

from magisterium_a2a.plugin.types import (
    PART_KINDS,
    TERMINAL_STATES,
    Artifact,
    DataPart,
    FilePart,
    FileWithBytes,
    FileWithUri,
    Message,
    NonEmptyStr,
    Part,
    Task,
    TaskState,
    TaskStatus,
    TextPart,
    Wire,
)

__all__ = [
    "JSONRPC_VERSION",
    "PART_KINDS",
    "PROTOCOL_VERSION",
    "TERMINAL_STATES",
    "AgentCapabilities",
    "AgentCard",
    "AgentSkill",
    "Artifact",
    "AuthorizationCodeOAuthFlow",
    "DataPart",
    "FilePart",
    "FileWithBytes",
    "FileWithUri",
    "HTTPAuthSecurityScheme",
    "JSONRPCRequest",
    "Message",
    "MessageSendParams",
    "NonEmptyStr",
    "OAuth2SecurityScheme",
    "OAuthFlows",
    "Part",
    "RequestId",
    "Task",
    "TaskIdParams",
    "TaskQueryParams",
    "TaskState",
    "TaskStatus",
    "TextPart",
    "Wire",
]

JSONRPC_VERSION = "2.0"
PROTOCOL_VERSION = "0.3.0"

RequestId = StrictStr | StrictInt


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


class AuthorizationCodeOAuthFlow(Wire):
    authorization_url: StrictStr
    token_url: StrictStr
    refresh_url: StrictStr | None = None
    scopes: dict[str, StrictStr]


class OAuthFlows(Wire):
    authorization_code: AuthorizationCodeOAuthFlow


class OAuth2SecurityScheme(Wire):
    type: Literal["oauth2"] = "oauth2"
    flows: OAuthFlows
    oauth2_metadata_url: StrictStr | None = None
    description: StrictStr | None = None


SecurityScheme = Annotated[
    HTTPAuthSecurityScheme | OAuth2SecurityScheme, Field(discriminator="type")
]


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
    security_schemes: dict[str, SecurityScheme]
    security: list[dict[str, list[StrictStr]]]
    skills: list[AgentSkill]
