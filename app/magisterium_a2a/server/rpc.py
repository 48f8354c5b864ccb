"""JSON-RPC 2.0 over one HTTP body: parsing, the envelope, batches, and the
one place where errors become responses.

The checks run in the contract's order (section 2): parse, envelope, bearer
token, plan, method, params; the method itself then checks skill and rate
limit. A batch answers each element in order in one array.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import orjson
from redis.exceptions import RedisError

from magisterium_a2a.server.auth import Authenticator
from magisterium_a2a.server.errors import (
    InternalError,
    InvalidParams,
    InvalidRequest,
    MethodNotFound,
    ParseError,
    RateLimited,
    RPCError,
    SkillNotFound,
    Unauthorized,
)
from magisterium_a2a.server.identity import Principal
from magisterium_a2a.server.methods import A2AMethods, parse_params
from magisterium_a2a.server.observability import Call, clip
from magisterium_a2a.server.protocol import JSONRPC_VERSION, JSONRPCRequest
from magisterium_a2a.server.testmode import Faults

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class RPCResponse:
    status: int
    body: bytes
    headers: dict[str, str]


MAX_DEPTH = 128
"""The deepest nesting of arrays and objects a body may have. orjson parses up
to 1,024 levels, but the serializers that store, echo and record what a client
sent stop at about 255 (pydantic-core and orjson alike): a body that parses
must never fail there, after its skill ran. 128 leaves room for the levels a
task, a response and a recording add around the client's own data."""


def parse_body(body: bytes) -> Any:
    """Strict JSON: UTF-8 only, no NaN or Infinity, at most ``MAX_DEPTH`` levels."""
    try:
        payload = orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        raise ParseError(data={"reason": str(exc)}) from None
    # Every level needs a bracket: counting them (at C speed) spares nearly
    # every body the walk.
    if body.count(b"[") + body.count(b"{") > MAX_DEPTH and _deeper_than(payload, MAX_DEPTH):
        raise ParseError(data={"reason": f"nested deeper than {MAX_DEPTH} levels"})
    return payload


def _deeper_than(value: Any, limit: int) -> bool:
    """Whether arrays and objects in ``value`` nest more than ``limit`` levels.

    Level by level, without recursion; about 45 ms for a 100,000-part message.
    """
    level = [value] if isinstance(value, dict | list) else []
    depth = 0
    while level:
        depth += 1
        if depth > limit:
            return True
        below: list[Any] = []
        add = below.append
        for node in level:
            for child in node.values() if type(node) is dict else node:
                if isinstance(child, dict | list):
                    add(child)
        level = below
    return False


def request_id_of(obj: Any) -> str | int | None:
    """The request's id if it has a valid one (a string or an integer, not a bool)."""
    if isinstance(obj, dict):
        value = obj.get("id")
        if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
            return value
    return None


def check_envelope(obj: Any) -> JSONRPCRequest:
    if not isinstance(obj, dict):
        raise InvalidRequest(data={"reason": "a request must be a JSON object"})
    if obj.get("jsonrpc") != JSONRPC_VERSION:
        raise InvalidRequest(data={"reason": "'jsonrpc' must be exactly \"2.0\""})
    method = obj.get("method")
    if not isinstance(method, str):
        raise InvalidRequest(data={"reason": "'method' must be a string"})
    req_id = request_id_of(obj)
    if req_id is None:
        raise InvalidRequest(data={"reason": "'id' must be a string or an integer"})
    # Validated construction: the checks above already passed, and for this
    # model it costs half of model_construct.
    return JSONRPCRequest(jsonrpc="2.0", id=req_id, method=method, params=obj.get("params"))


def success(req_id: str | int, result: bytes) -> bytes:
    return b'{"jsonrpc":"2.0","id":%b,"result":%b}' % (orjson.dumps(req_id), result)


def failure(req_id: str | int | None, error: RPCError) -> bytes:
    return orjson.dumps({"jsonrpc": JSONRPC_VERSION, "id": req_id, "error": error.to_wire()})


def error_response(error: RPCError, req_id: str | int | None = None) -> RPCResponse:
    return RPCResponse(error.http_status, failure(req_id, error), error.headers())


class _CallerOnce:
    """Authenticates at most once per HTTP request, even for a batch."""

    def __init__(self, auth: Authenticator, authorization: str | None) -> None:
        self._auth = auth
        self._authorization = authorization
        self._principal: Principal | None = None
        self._error: RPCError | None = None

    async def get(self) -> Principal:
        if self._principal is not None:
            return self._principal
        if self._error is not None:
            raise self._error
        try:
            self._principal = await self._auth.authenticate(self._authorization)
        except RPCError as exc:
            self._error = exc
            raise
        return self._principal


class Dispatcher:
    def __init__(
        self,
        methods: A2AMethods,
        auth: Authenticator,
        max_batch: int,
        *,
        faults: Faults | None = None,
        observe: Callable[[Call], None] | None = None,
    ) -> None:
        self._methods = methods
        self._auth = auth
        self._max_batch = max_batch
        self._faults = faults
        self._observe = observe

    async def handle(
        self, body: bytes, authorization: str | None, request_id: str = "-"
    ) -> RPCResponse:
        try:
            payload = parse_body(body)
        except ParseError as exc:
            self._report(request_id, None, None, str(exc.code), time.perf_counter())
            return error_response(exc)
        caller = _CallerOnce(self._auth, authorization)
        if not isinstance(payload, list):
            answer, outcome = await self._one(payload, caller, request_id)
            if isinstance(outcome, RPCError):
                return RPCResponse(outcome.http_status, answer, outcome.headers())
            return RPCResponse(200, answer, outcome)
        if not payload:
            return error_response(InvalidRequest(data={"reason": "empty batch"}))
        if len(payload) > self._max_batch:
            return error_response(
                InvalidRequest(data={"reason": "batch too large", "maxBatch": self._max_batch})
            )
        answers: list[bytes] = []
        all_unauthorized = True
        for item in payload:
            answer, outcome = await self._one(item, caller, request_id)
            answers.append(answer)
            all_unauthorized = all_unauthorized and isinstance(outcome, Unauthorized)
        body_out = b"[" + b",".join(answers) + b"]"
        if all_unauthorized:
            return RPCResponse(401, body_out, Unauthorized().headers())
        return RPCResponse(200, body_out, {})

    async def _one(
        self, obj: Any, caller: _CallerOnce, request_id: str
    ) -> tuple[bytes, RPCError | dict[str, str]]:
        """One request's answer, and either its error or the headers its result adds."""
        started = time.perf_counter()
        req_id = request_id_of(obj)
        request: JSONRPCRequest | None = None
        principal: Principal | None = None
        try:
            request = check_envelope(obj)
            principal = await caller.get()
            if self._faults is not None:
                await self._faults.intercept(
                    principal, request.method, self._methods.skill_of(request)
                )
            try:
                method = self._methods.table.get(request.method)
                if method is None:
                    raise MethodNotFound(data={"method": clip_echo(request.method)})
                result = await method.run(principal, parse_params(method.params, request.params))
            except (MethodNotFound, InvalidParams, SkillNotFound):
                # Mostly refused before any store access: a token revoked since
                # it was cached must still be refused as such.
                await self._auth.confirm(principal)
                raise
        except RPCError as exc:
            bucket = exc.bucket if isinstance(exc, RateLimited) else None
            self._report(request_id, request, principal, str(exc.code), started, bucket=bucket)
            return failure(req_id, exc), exc
        except Exception as exc:
            log.exception("internal error in %s", clip(_method_name(obj)))
            error = InternalError()
            store_error = isinstance(exc, RedisError)
            self._report(
                request_id, request, principal, str(error.code), started, store_error=store_error
            )
            return failure(req_id, error), error
        self._report(request_id, request, principal, result.outcome, started)
        return success(request.id, result.payload), result.headers

    def _report(
        self,
        request_id: str,
        request: JSONRPCRequest | None,
        principal: Principal | None,
        outcome: str,
        started: float,
        *,
        bucket: str | None = None,
        store_error: bool = False,
    ) -> None:
        if self._observe is None:
            return
        self._observe(
            Call(
                request_id=request_id,
                method=request.method if request is not None else "-",
                skill=self._methods.skill_of(request) if request is not None else None,
                user=principal.user_id if principal is not None else None,
                outcome=outcome,
                duration=time.perf_counter() - started,
                bucket=bucket,
                store_error=store_error,
            )
        )


ECHO_CHARS = 200
"""The most of a client's string an error echoes back (a 500 KB method name costs
the answer 200 characters and a note of the rest)."""


def clip_echo(value: str) -> str:
    if len(value) <= ECHO_CHARS:
        return value
    return f"{value[:ECHO_CHARS]}…(+{len(value) - ECHO_CHARS} chars)"


def _method_name(obj: Any) -> str:
    method = obj.get("method") if isinstance(obj, dict) else None
    return method if isinstance(method, str) else "<invalid request>"
