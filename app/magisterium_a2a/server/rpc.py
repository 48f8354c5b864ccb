"""JSON-RPC 2.0 over one HTTP body: parsing, the envelope, batches, and the
one place where errors become responses.

The checks run in the contract's order (section 2): parse, envelope, bearer
token, plan, method, params; the method itself then checks skill and rate
limit. A batch answers each element in order in one array. A dispatcher
speaks one dialect (``server.dialects``): its method names, params and errors.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson
from redis.exceptions import RedisError

from magisterium_a2a.server.auth import Authenticator
from magisterium_a2a.server.dialects import Dialect, version_of
from magisterium_a2a.server.errors import (
    InternalError,
    InvalidParams,
    InvalidRequest,
    MethodNotFound,
    ParseError,
    PushNotificationNotSupported,
    RateLimited,
    RPCError,
    SkillNotFound,
    Unauthorized,
    UnsupportedOperation,
    VersionNotSupported,
)
from magisterium_a2a.server.identity import Principal
from magisterium_a2a.server.observability import Call, clip
from magisterium_a2a.server.protocol import JSONRPC_VERSION, JSONRPCRequest
from magisterium_a2a.server.testmode import Faults

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class RPCResponse:
    status: int
    body: bytes
    headers: dict[str, str]
    calls: list[Call] = field(default_factory=list)
    """What each call did, for ``Dispatcher.observe`` once the answer is written."""


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


REFUSED_BEFORE_THE_STORE = (
    MethodNotFound,
    InvalidParams,
    SkillNotFound,
    UnsupportedOperation,
    PushNotificationNotSupported,
)
"""Errors mostly raised before any store access, so before the token's
revocation was checked in the same round trip."""


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
    """Answers the JSON-RPC requests of one HTTP body in one dialect."""

    def __init__(
        self,
        dialect: Dialect,
        auth: Authenticator,
        max_batch: int,
        *,
        faults: Faults | None = None,
        observe: Callable[[Call], None] | None = None,
    ) -> None:
        self.dialect = dialect
        self._table = dialect.methods
        self._parse = dialect.parse
        self._failure = dialect.failure
        self._code = dialect.code
        self._skill_of = dialect.skill_of
        self._envelope: Callable[[Any], JSONRPCRequest] = check_envelope
        self._auth = auth
        self._max_batch = max_batch
        self._faults = faults
        self._observe = observe

    def error_response(self, error: RPCError, calls: list[Call] | None = None) -> RPCResponse:
        """The answer to a body that failed before any request in it was read."""
        failed = self._failure(None, error)
        return RPCResponse(error.http_status, failed, error.headers(), calls or [])

    def observe(self, calls: list[Call]) -> None:
        """Count and log the calls an answer reports (``RPCResponse.calls``). The
        endpoint does this after writing the answer: a client waiting for it, one
        request at a time, does not wait for the bookkeeping too."""
        if self._observe is not None:
            for call in calls:
                self._observe(call)

    async def handle(
        self, body: bytes, authorization: str | None, request_id: str = "-"
    ) -> RPCResponse:
        """The answer to one HTTP body; its ``calls`` are still to be observed."""
        calls: list[Call] = []
        try:
            payload = parse_body(body)
        except ParseError as exc:
            self._report(calls, request_id, None, None, str(self._code(exc)), time.perf_counter())
            return self.error_response(exc, calls)
        caller = _CallerOnce(self._auth, authorization)
        if not isinstance(payload, list):
            answer, outcome = await self._one(payload, caller, request_id, calls)
            if isinstance(outcome, RPCError):
                return RPCResponse(outcome.http_status, answer, outcome.headers(), calls)
            return RPCResponse(200, answer, outcome, calls)
        if not payload:
            return self.error_response(InvalidRequest(data={"reason": "empty batch"}))
        if len(payload) > self._max_batch:
            return self.error_response(
                InvalidRequest(data={"reason": "batch too large", "maxBatch": self._max_batch})
            )
        answers: list[bytes] = []
        all_unauthorized = True
        for item in payload:
            answer, outcome = await self._one(item, caller, request_id, calls)
            answers.append(answer)
            all_unauthorized = all_unauthorized and isinstance(outcome, Unauthorized)
        body_out = b"[" + b",".join(answers) + b"]"
        if all_unauthorized:
            return RPCResponse(401, body_out, Unauthorized().headers(), calls)
        return RPCResponse(200, body_out, {}, calls)

    async def _one(
        self, obj: Any, caller: _CallerOnce, request_id: str, calls: list[Call]
    ) -> tuple[bytes, RPCError | dict[str, str]]:
        """One request's answer, and either its error or the headers its result adds."""
        started = time.perf_counter()
        req_id = request_id_of(obj)
        request: JSONRPCRequest | None = None
        principal: Principal | None = None
        try:
            request = self._envelope(obj)
            principal = await caller.get()
            if self._faults is not None:
                await self._faults.intercept(principal, request.method, self._skill_of(request))
            try:
                method = self._table.get(request.method)
                if method is None:
                    raise MethodNotFound(data={"method": clip_echo(request.method)})
                result = await method.run(principal, self._parse(method.params, request.params))
            except REFUSED_BEFORE_THE_STORE:
                # Mostly refused before any store access: a token revoked since
                # it was cached must still be refused as such.
                await self._auth.confirm(principal)
                raise
        except RPCError as exc:
            bucket = exc.bucket if isinstance(exc, RateLimited) else None
            code = str(self._code(exc))
            self._report(calls, request_id, request, principal, code, started, bucket=bucket)
            return self._failure(req_id, exc), exc
        except Exception as exc:
            log.exception("internal error in %s", clip(_method_name(obj)))
            error = InternalError()
            store_error = isinstance(exc, RedisError)
            code = str(self._code(error))
            self._report(
                calls, request_id, request, principal, code, started, store_error=store_error
            )
            return self._failure(req_id, error), error
        self._report(calls, request_id, request, principal, result.outcome, started)
        return success(request.id, result.payload), result.headers

    def _report(
        self,
        calls: list[Call],
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
        calls.append(
            Call(
                request_id=request_id,
                method=request.method if request is not None else "-",
                skill=self._skill_of(request) if request is not None else None,
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


class VersionRefusal(Dispatcher):
    """Answers every request with ``VersionNotSupported`` (in A2A 1.0's form): the
    client asked for a protocol version this server does not speak. The envelope
    is still read, so that each answer carries its request's id."""

    def __init__(
        self,
        dialect: Dialect,
        auth: Authenticator,
        max_batch: int,
        requested: str,
        *,
        observe: Callable[[Call], None] | None = None,
    ) -> None:
        super().__init__(dialect, auth, max_batch, observe=observe)
        shown = requested[:20]
        self._refusal = VersionNotSupported(
            f"A2A version {shown!r} is not supported; this agent speaks 1.0 and 0.3",
            data={"requestedVersion": shown, "supportedVersions": "1.0, 0.3"},
        )
        self._envelope = self._refuse

    def _refuse(self, obj: Any) -> JSONRPCRequest:
        check_envelope(obj)
        raise self._refusal


class Dispatchers:
    """The dispatcher for each value of the ``A2A-Version`` header: the dialect of
    its ``Major.Minor``, or a refusal. Each value is worked out once and kept (a
    few dozen at most, so that a client inventing values cannot fill memory)."""

    KEEP = 64

    def __init__(
        self, by_version: dict[str, Dispatcher], refusal: Callable[[str], Dispatcher]
    ) -> None:
        self._by_version = by_version
        self._refusal = refusal
        self._seen: dict[str, Dispatcher] = {}

    def of(self, header: str) -> Dispatcher:
        found = self._seen.get(header)
        if found is None:
            version = version_of(header)
            found = self._by_version.get(version) if version is not None else None
            if found is None:
                found = self._refusal(header)
            if len(self._seen) < self.KEEP:
                self._seen[header] = found
        return found


def _method_name(obj: Any) -> str:
    method = obj.get("method") if isinstance(obj, dict) else None
    return method if isinstance(method, str) else "<invalid request>"
