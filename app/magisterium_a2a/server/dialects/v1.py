"""The A2A 1.0 JSON-RPC dialect (A2A 1.0.1, sections 5 and 9).

Its methods are the hosted dialect's methods (``server.methods``) under 1.0's
names and shapes, plus ``ListTasks`` and ``GetExtendedAgentCard``; every task
is read from and written to the one store in its one form, and rendered here
(``v1_render``). What the hosted service does not offer is refused with the
error 1.0 names for it: streaming with ``UnsupportedOperationError``, push
notifications with ``PushNotificationNotSupportedError`` (the card declares
both off), a message to a finished task with ``UnsupportedOperationError``,
and cancelling a finished task (every task here) with ``TaskNotCancelableError``.

``SendMessage`` answers as the hosted service does: the skill runs within the
request and the task comes back finished, which is 1.0's blocking mode, its
default (section 3.2.2). ``returnImmediately`` is accepted and changes nothing:
a deviation from section 3.2.2, whose non-blocking mode must return at once with
the task still in progress (and from 3.3.3, processing in the background). No
task here is ever in progress, so a client that polls with ``GetTask`` finds it
finished on its first read. ``historyLength`` keeps the newest messages of the
returned task, as in ``GetTask``.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Awaitable, Callable, Sequence
from functools import partial
from typing import Any

import orjson
from pydantic import ValidationError

from magisterium_a2a.server.dialects import A2A_1_0, Dialect
from magisterium_a2a.server.dialects import v1_render as render
from magisterium_a2a.server.dialects import v1_wire as wire
from magisterium_a2a.server.errors import (
    InvalidParams,
    PushNotificationNotSupported,
    RateLimited,
    RPCError,
    UnsupportedOperation,
)
from magisterium_a2a.server.identity import Principal
from magisterium_a2a.server.methods import A2AMethods, Method, Result
from magisterium_a2a.server.protocol import (
    JSONRPC_VERSION,
    MessageSendParams,
    RequestId,
    TaskIdParams,
    TaskQueryParams,
    Wire,
)
from magisterium_a2a.server.tasks import TaskQuery

ERROR_INFO = "type.googleapis.com/google.rpc.ErrorInfo"
BAD_REQUEST = "type.googleapis.com/google.rpc.BadRequest"
RETRY_INFO = "type.googleapis.com/google.rpc.RetryInfo"

STREAMING = (
    "Streaming is not supported (capabilities.streaming is false): every task here "
    "finishes within its SendMessage call."
)
PUSH = "Push notifications are not supported (capabilities.pushNotifications is false)."


class V1Methods:
    """The 1.0 operations over the server's one method implementation."""

    def __init__(
        self,
        methods: A2AMethods,
        card_json: bytes,
        confirm: Callable[[Principal], Awaitable[None]],
    ) -> None:
        self._methods = methods
        self._card = card_json
        self._confirm = confirm
        refuse_streaming = Method(wire.AnyRequest, self.no_streaming)
        refuse_push = Method(wire.AnyRequest, self.no_push)
        self.table: dict[str, Method] = {
            "SendMessage": Method(wire.SendMessageRequest, self.send),
            "GetTask": Method(wire.GetTaskRequest, self.get),
            "ListTasks": Method(wire.ListTasksRequest, self.list_tasks),
            "CancelTask": Method(wire.CancelTaskRequest, self.cancel),
            "GetExtendedAgentCard": Method(wire.GetExtendedAgentCardRequest, self.extended_card),
            "SendStreamingMessage": refuse_streaming,
            "SubscribeToTask": refuse_streaming,
            "CreateTaskPushNotificationConfig": refuse_push,
            "GetTaskPushNotificationConfig": refuse_push,
            "ListTaskPushNotificationConfigs": refuse_push,
            "DeleteTaskPushNotificationConfig": refuse_push,
        }

    async def send(self, principal: Principal, params: wire.SendMessageRequest) -> Result:
        config = params.configuration or wire.SendMessageConfiguration()
        if config.task_push_notification_config is not None:
            raise PushNotificationNotSupported(
                PUSH, data={"field": "configuration.taskPushNotificationConfig"}
            )
        # config.return_immediately is ignored (A2A 1.0, section 3.2.2, non-blocking
        # mode: "MUST return immediately after creating the task"): the skill runs
        # within this call and the task is terminal when it returns, in either mode.
        message = render.incoming(params.message)
        if message.task_id is not None:
            # A2A 1.0, sections 3.1.1 and 3.4.2: a message names an existing task,
            # and a task in a terminal state takes no more messages.
            task = await self._methods.owned(principal, message.task_id)
            raise UnsupportedOperation(
                f"The task is {task.status.state} and takes no more messages; send the "
                "message without taskId (with the task's contextId to continue the conversation).",
                data={"taskId": task.id, "contextId": task.context_id},
            )
        sent = await self._methods.send(principal, MessageSendParams(message=message))
        task_json = render.task(orjson.loads(sent.payload), config.history_length)
        return Result(orjson.dumps({"task": task_json}), sent.headers, sent.outcome)

    async def get(self, principal: Principal, params: wire.GetTaskRequest) -> Result:
        found = await self._methods.get(principal, TaskQueryParams(id=params.id))
        return Result(orjson.dumps(render.task(orjson.loads(found.payload), params.history_length)))

    async def cancel(self, principal: Principal, params: wire.CancelTaskRequest) -> Result:
        canceled = await self._methods.cancel(principal, TaskIdParams(id=params.id))
        return Result(orjson.dumps(render.task(orjson.loads(canceled.payload))))

    async def list_tasks(self, principal: Principal, params: wire.ListTasksRequest) -> Result:
        state = None
        if params.status is not None and params.status != "TASK_STATE_UNSPECIFIED":
            state = render.STATE_OF[params.status]
        query = TaskQuery(
            context_id=params.context_id,
            state=state,
            written_since=params.status_timestamp_after,
            after=None if params.page_token is None else _read_token(params.page_token),
            limit=params.page_size or wire.DEFAULT_PAGE_SIZE,
        )
        page = await self._methods.list_tasks(principal, query)
        artifacts = bool(params.include_artifacts)
        tasks = [
            render.task(orjson.loads(raw), params.history_length, artifacts) for raw in page.tasks
        ]
        answer = {
            "tasks": tasks,
            "nextPageToken": "" if page.next is None else _token(page.next),
            "pageSize": len(tasks),
            "totalSize": page.total,
        }
        return Result(orjson.dumps(answer))

    async def extended_card(self, principal: Principal, params: Wire) -> Result:
        # No store access on the way: a token revoked since it was cached is refused here.
        await self._confirm(principal)
        return Result(self._card)

    async def no_streaming(self, principal: Principal, params: Wire) -> Result:
        raise UnsupportedOperation(STREAMING)

    async def no_push(self, principal: Principal, params: Wire) -> Result:
        raise PushNotificationNotSupported(PUSH)


def _token(after: tuple[int, str]) -> str:
    """An opaque page token: where the next page starts."""
    return base64.urlsafe_b64encode(b"%d:%b" % (after[0], after[1].encode())).decode().rstrip("=")


def _read_token(token: str) -> tuple[int, str]:
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)).decode()
        millis, _, task_id = raw.partition(":")
        if task_id and millis.isdigit() and millis.isascii():
            return int(millis), task_id
    except (binascii.Error, ValueError):
        pass
    raise InvalidParams.field("pageToken", "not a page token this server gave")


# --- params and errors ------------------------------------------------------------


def parse(model: type[Wire], params: Any) -> Any:
    """Validate params into their 1.0 model. An absent params object is an empty
    request (``GetExtendedAgentCard`` has nothing to say); this agent declares no
    tenant, so a request naming one is refused rather than routed nowhere."""
    if params is None:
        params = {}
    if not isinstance(params, dict):
        raise InvalidParams.field("params", "must be an object")
    try:
        parsed = model.model_validate(params)
    except ValidationError as exc:
        error = exc.errors(include_url=False)[0]
        raise InvalidParams.field(_field(error["loc"]), error["msg"]) from None
    if getattr(parsed, "tenant", None) is not None:
        raise InvalidParams.field("tenant", "this agent declares no tenants; leave it out")
    return parsed


def _field(loc: Sequence[int | str]) -> str:
    """``('message', 'parts', 0, 'text')`` -> ``message.parts[0].text``."""
    path = ""
    for item in loc:
        path += f"[{item}]" if isinstance(item, int) else (f".{item}" if path else item)
    return path or "params"


def failure(req_id: RequestId | None, error: RPCError) -> bytes:
    """A JSON-RPC error response as A2A 1.0 writes it (section 9.5): the 1.0 code,
    and ``data`` as typed details, a ``google.rpc.ErrorInfo`` first."""
    v10 = error.v10
    message = v10.message if error.message == error.default_message else error.message
    body = {"code": v10.code, "message": message, "data": details(error)}
    return orjson.dumps({"jsonrpc": JSONRPC_VERSION, "id": req_id, "error": body})


def details(error: RPCError) -> list[dict[str, Any]]:
    v10, data = error.v10, error.data
    metadata: dict[str, str] = {}
    if isinstance(data, dict):
        for key, value in data.items():
            name = "taskId" if key == "id" else str(key)
            metadata[name] = value if isinstance(value, str) else orjson.dumps(value).decode()
    out: list[dict[str, Any]] = [
        {"@type": ERROR_INFO, "reason": v10.reason, "domain": v10.domain, "metadata": metadata}
    ]
    if isinstance(error, InvalidParams) and isinstance(data, dict) and "field" in data:
        violation = {"field": data["field"], "description": str(data.get("reason", ""))}
        out.append({"@type": BAD_REQUEST, "fieldViolations": [violation]})
    if isinstance(error, RateLimited):
        out.append({"@type": RETRY_INFO, "retryDelay": f"{error.retry_after}s"})
    return out


def _code(error: RPCError) -> int:
    return error.v10.code


def v1_dialect(
    methods: A2AMethods, card_json: bytes, confirm: Callable[[Principal], Awaitable[None]]
) -> Dialect:
    return Dialect(
        version=A2A_1_0,
        methods=V1Methods(methods, card_json, confirm).table,
        parse=parse,
        failure=failure,
        code=_code,
        skill_of=partial(methods.skill_of, send="SendMessage"),
    )
