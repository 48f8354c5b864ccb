"""JSON-RPC errors as exceptions that carry their code and HTTP status.

They are raised where a problem is detected and turned into a response in one
place (``magisterium_a2a.server.rpc``). The HTTP statuses follow the hosted service: 401, 403 and
429 for the three error classes a client must react to, 200 for the rest.

This is also the table of what each error is called in each protocol dialect:
a class's ``code`` and ``default_message`` are the hosted v0.3 dialect's (the
contract), its ``v10`` the A2A 1.0 dialect's code, message and
``google.rpc.ErrorInfo`` reason. The hosted service's own three codes
(-32003/-32004/-32005) mean other things in 1.0 (push notifications, unsupported
operation, content type), so 1.0 names them apart from A2A's range: -31429,
-31401 and -31403, after their HTTP statuses, which stay 429, 401 and 403.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar, NamedTuple

A2A_DOMAIN = "a2a-protocol.org"
"""The ``ErrorInfo`` domain of the reasons A2A defines."""
SERVER_DOMAIN = "magisterium-a2a"
"""The ``ErrorInfo`` domain of the reasons this server adds."""


class V10(NamedTuple):
    """An error as the A2A 1.0 dialect writes it."""

    code: int
    message: str
    reason: str
    domain: str = A2A_DOMAIN


class RPCError(Exception):
    """Base of every error that becomes a JSON-RPC error object."""

    code: ClassVar[int] = -32603
    default_message: ClassVar[str] = "Internal error"
    http_status: ClassVar[int] = 200
    v10: ClassVar[V10] = V10(-32603, "Internal error", "INTERNAL_ERROR")

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
    v10 = V10(-32700, "Invalid JSON payload", "PARSE_ERROR")


class InvalidRequest(RPCError):
    code = -32600
    default_message = "Invalid request"
    v10 = V10(-32600, "Request payload validation error", "INVALID_REQUEST")


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
    v10 = V10(-32601, "Method not found", "METHOD_NOT_FOUND")


class InvalidParams(RPCError):
    code = -32602
    default_message = "Invalid params"
    v10 = V10(-32602, "Invalid parameters", "INVALID_PARAMS")

    @classmethod
    def field(cls, field: str, reason: str) -> InvalidParams:
        return cls(data={"field": field, "reason": reason})


class InvalidStateTransition(InvalidParams):
    default_message = "Invalid state transition"
    v10 = V10(-32002, "Task cannot be canceled", "TASK_NOT_CANCELABLE")


class InternalError(RPCError):
    code = -32603
    default_message = "Internal error"
    v10 = V10(-32603, "Internal error", "INTERNAL_ERROR")


class TaskNotFound(RPCError):
    code = -32001
    default_message = "Task not found"
    v10 = V10(-32001, "Task not found", "TASK_NOT_FOUND")


class SkillNotFound(RPCError):
    code = -32002
    default_message = "Skill not found"
    v10 = V10(-32602, "Skill not found", "SKILL_NOT_FOUND", SERVER_DOMAIN)


class RateLimited(RPCError):
    code = -32003
    default_message = "Rate limit exceeded"
    http_status = 429
    v10 = V10(-31429, "Rate limit exceeded", "RATE_LIMIT_EXCEEDED", SERVER_DOMAIN)

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
    v10 = V10(-31401, "Unauthorized", "UNAUTHENTICATED", SERVER_DOMAIN)

    def headers(self) -> dict[str, str]:
        return {"WWW-Authenticate": "Bearer"}


class PlanRequired(RPCError):
    code = -32005
    default_message = "Paid plan required"
    http_status = 403
    v10 = V10(-31403, "Paid plan required", "PLAN_REQUIRED", SERVER_DOMAIN)


# --- errors only the A2A 1.0 dialect raises ----------------------------------------
# No v0.3 request reaches them; their hosted codes say what the hosted dialect
# answers for the same thing (an operation it lacks is a method it does not know).


class VersionNotSupported(RPCError):
    """The request's ``A2A-Version`` names a version this server does not speak."""

    code = -32600
    default_message = "Version not supported"
    v10 = V10(-32009, "Version not supported", "VERSION_NOT_SUPPORTED")


class UnsupportedOperation(RPCError):
    """An operation or a feature of one that this server does not offer (streaming,
    continuing a finished task)."""

    code = -32601
    default_message = "Unsupported operation"
    v10 = V10(-32004, "This operation is not supported", "UNSUPPORTED_OPERATION")


class PushNotificationNotSupported(RPCError):
    code = -32601
    default_message = "Push notifications are not supported"
    v10 = V10(-32003, "Push notifications are not supported", "PUSH_NOTIFICATION_NOT_SUPPORTED")
