"""JSON-RPC errors as exceptions that carry their code and HTTP status.

They are raised where a problem is detected and turned into a response in one
place (``magisterium_a2a.server.rpc``). The HTTP statuses follow the hosted service: 401, 403 and
429 for the three error classes a client must react to, 200 for the rest.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar


class RPCError(Exception):
    """Base of every error that becomes a JSON-RPC error object."""

    code: ClassVar[int] = -32603
    default_message: ClassVar[str] = "Internal error"
    http_status: ClassVar[int] = 200

    def __init__(self, message: str | None = None, data: Any = None) -> None:
        self.message = message or self.default_message
        self.data = data
        super().__init__(self.message)

    def headers(self) -> dict[str, str]:
        return {}

    def to_wire(self) -> dict[str, Any]:
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return error


class ParseError(RPCError):
    code = -32700
    default_message = "Parse error"


class InvalidRequest(RPCError):
    code = -32600
    default_message = "Invalid request"


class PayloadTooLarge(InvalidRequest):
    http_status = 413

    def __init__(self, limit: int) -> None:
        super().__init__(
            "Invalid request: body too large",
            {"maxBytes": limit},
        )


class BodyTimeout(InvalidRequest):
    """The body did not arrive whole within the read timeout (a slow client)."""

    http_status = 408

    def __init__(self, seconds: float) -> None:
        super().__init__("Invalid request: body not received in time", {"timeoutSeconds": seconds})

    def headers(self) -> dict[str, str]:
        # The rest of the body may still be on its way: end the connection, so
        # a slow client cannot keep it by trickling.
        return {"Connection": "close"}


class HTTPMethodNotAllowed(InvalidRequest):
    """Any HTTP verb but POST (and the OPTIONS preflight) on the endpoint."""

    http_status = 405
    default_message = "Invalid request: use POST"

    def headers(self) -> dict[str, str]:
        return {"Allow": "POST, OPTIONS"}


class MethodNotFound(RPCError):
    code = -32601
    default_message = "Method not found"


class InvalidParams(RPCError):
    code = -32602
    default_message = "Invalid params"

    @classmethod
    def field(cls, field: str, reason: str) -> InvalidParams:
        return cls(data={"field": field, "reason": reason})


class InvalidStateTransition(InvalidParams):
    default_message = "Invalid state transition"


class InternalError(RPCError):
    code = -32603
    default_message = "Internal error"


class TaskNotFound(RPCError):
    code = -32001
    default_message = "Task not found"


class SkillNotFound(RPCError):
    code = -32002
    default_message = "Skill not found"


class RateLimited(RPCError):
    code = -32003
    default_message = "Rate limit exceeded"
    http_status = 429

    def __init__(self, retry_after: float, bucket: str | None = None) -> None:
        self.retry_after = max(1, math.ceil(retry_after))
        self.bucket = bucket
        super().__init__(data={"retryAfter": self.retry_after})

    def headers(self) -> dict[str, str]:
        return {"Retry-After": str(self.retry_after)}


class Unauthorized(RPCError):
    code = -32004
    default_message = "Unauthorized"
    http_status = 401

    def headers(self) -> dict[str, str]:
        return {"WWW-Authenticate": "Bearer"}


class PlanRequired(RPCError):
    code = -32005
    default_message = "Paid plan required"
    http_status = 403
