"""HTTP routes: the JSON-RPC endpoint, its preflight, the agent card, health."""

from __future__ import annotations

import ipaddress
import secrets

from fastapi import APIRouter, Request, Response
from starlette.datastructures import Headers
from starlette.requests import ClientDisconnect
from starlette.types import Receive, Scope, Send

from magisterium_a2a.server.cors import card_preflight
from magisterium_a2a.server.dialects import A2A_1_0, version_of, version_parameter
from magisterium_a2a.server.errors import BodyTimeout, HTTPMethodNotAllowed, PayloadTooLarge
from magisterium_a2a.server.observability import METRICS_CONTENT_TYPE, request_id
from magisterium_a2a.server.rpc import RPCResponse
from magisterium_a2a.server.runtime import Runtime, runtime_of

ENDPOINT = "/api/v1/a2a"
CARD_PATHS = ("/.well-known/agent.json", "/.well-known/agent-card.json")
JSON = "application/json"

router = APIRouter()


class _Head:
    """The request headers the endpoint reads, taken from the ASGI scope in one
    pass (the first of repeated names, as Starlette's ``Headers.get`` does)."""

    __slots__ = ("authorization", "content_length", "origin", "request_id", "version")

    def __init__(self, raw: list[tuple[bytes, bytes]]) -> None:
        self.authorization: str | None = None
        self.content_length: str | None = None
        self.origin: str | None = None
        self.request_id: str | None = None
        self.version: str | None = None
        for name, value in raw:
            if name == b"authorization":
                if self.authorization is None:
                    self.authorization = value.decode("latin-1")
            elif name == b"content-length":
                if self.content_length is None:
                    self.content_length = value.decode("latin-1")
            elif name == b"origin":
                if self.origin is None:
                    self.origin = value.decode("latin-1")
            elif name == b"x-request-id":
                if self.request_id is None:
                    self.request_id = value.decode("latin-1")
            elif name == b"a2a-version" and self.version is None:
                self.version = value.decode("latin-1")


async def read_body(receive: Receive, declared: str | None, limit: int) -> bytes:
    """The body, refusing anything past ``limit`` bytes before parsing it. Its
    deadline is the guard's (``guard.RequestGuard``): ``receive`` raises
    ``BodyTimeout``, answered here as a JSON-RPC error."""
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise PayloadTooLarge(limit)
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            raise ClientDisconnect()
        chunk: bytes = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            raise PayloadTooLarge(limit)
        chunks.append(chunk)
        if not message.get("more_body", False):
            break
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


class Endpoint:
    """The JSON-RPC endpoint, as a plain ASGI app.

    It reads the raw body and writes raw bytes, so it needs none of the
    framework's request or response objects, which on the hot path cost a
    good part of a cheap request (see bench/RESULTS.md). The ``A2A-Version``
    header chooses the dialect (``server.dialects``), or without it an
    ``A2A-Version`` query parameter; with neither, the hosted one, on the path
    it always took.
    """

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        runtime: Runtime = scope["app"].state.runtime
        head = _Head(scope["headers"])
        rid = request_id(head.request_id)
        version = head.version
        if version is None and scope.get("query_string"):
            version = version_parameter(scope["query_string"])
        dispatcher = runtime.dispatcher if version is None else runtime.dispatchers.of(version)
        body = b""
        try:
            body = await read_body(receive, head.content_length, runtime.settings.max_body_bytes)
        except (PayloadTooLarge, BodyTimeout) as exc:
            answer = dispatcher.error_response(exc)
        except ClientDisconnect:
            await send({"type": "http.response.start", "status": 400, "headers": _EMPTY})
            await send({"type": "http.response.body", "body": b""})
            return
        else:
            if runtime.testmode is not None:
                await runtime.testmode.refresh_clock()
            answer = await dispatcher.handle(body, head.authorization, rid)
        headers = _headers(runtime, head.origin, answer)
        raw = [
            (name.lower().encode("latin-1"), value.encode("latin-1"))
            for name, value in headers.items()
        ]
        raw += (
            (b"content-length", str(len(answer.body)).encode("latin-1")),
            (b"content-type", _JSON_BYTES),
            (b"x-request-id", rid.encode("latin-1")),
        )
        if runtime.recorder is not None:
            await runtime.recorder.record(
                Headers(scope=scope), body, answer.status, Headers(raw=raw), answer.body
            )
        try:
            await send({"type": "http.response.start", "status": answer.status, "headers": raw})
            await send({"type": "http.response.body", "body": answer.body})
        finally:
            # After the write: a client that waits for each answer does not wait for this.
            dispatcher.observe(answer.calls)


_EMPTY: list[tuple[bytes, bytes]] = [(b"content-length", b"0")]
_JSON_BYTES = JSON.encode("latin-1")


def _headers(runtime: Runtime, origin: str | None, answer: RPCResponse) -> dict[str, str]:
    """An endpoint answer's own headers: CORS, the answer's, the 401 challenge."""
    headers = runtime.cors.headers(origin)
    headers.update(answer.headers)
    if answer.status == 401:
        # RFC 9728 section 5.1: where to find how to get a token.
        headers["WWW-Authenticate"] = runtime.challenge
    return headers


def _reply(runtime: Runtime, request: Request, answer: RPCResponse) -> Response:
    headers = _headers(runtime, request.headers.get("origin"), answer)
    return Response(answer.body, status_code=answer.status, media_type=JSON, headers=headers)


def asked_version(request: Request) -> str | None:
    """The version a client asked for: its ``A2A-Version`` header, or without
    one its ``A2A-Version`` query parameter (A2A 1.0, section 3.6.1)."""
    header = request.headers.get("a2a-version")
    if header is not None:
        return header
    return version_parameter(request.scope.get("query_string", b""))


@router.options(ENDPOINT)
async def preflight(request: Request) -> Response:
    runtime = runtime_of(request)
    headers = runtime.cors.preflight(
        request.headers.get("origin"), request.headers.get("access-control-request-headers")
    )
    return Response(status_code=204, headers=headers)


@router.api_route(ENDPOINT, methods=["GET", "HEAD", "PUT", "PATCH", "DELETE"])
async def not_allowed(request: Request) -> Response:
    runtime = runtime_of(request)
    version = asked_version(request)
    dispatcher = runtime.dispatcher if version is None else runtime.dispatchers.of(version)
    return _reply(runtime, request, dispatcher.error_response(HTTPMethodNotAllowed()))


async def agent_card(request: Request) -> Response:
    """The card, in 1.0's own form for a client that asks for 1.0 (see agent_card)."""
    runtime = runtime_of(request)
    asked = asked_version(request)
    v10 = asked is not None and version_of(asked) == A2A_1_0
    return Response(
        runtime.card.v10 if v10 else runtime.card.hosted,
        media_type=JSON,
        headers={
            "Cache-Control": "public, max-age=3600",
            "Access-Control-Allow-Origin": "*",
            "Vary": "A2A-Version",
        },
    )


async def agent_card_preflight(request: Request) -> Response:
    """A browser asks before it fetches the card with an ``A2A-Version`` header."""
    return Response(status_code=204, headers=card_preflight())


for _path in CARD_PATHS:
    router.add_api_route(_path, agent_card, methods=["GET"])
    router.add_api_route(_path, agent_card_preflight, methods=["OPTIONS"])


@router.get("/healthz")
async def healthz() -> Response:
    return Response(b'{"status":"ok"}', media_type=JSON)


@router.get("/metrics")
async def metrics(request: Request) -> Response:
    runtime = runtime_of(request)
    token = runtime.settings.metrics_token
    if not (token is not None and token.get_secret_value()):
        # No token: for the host itself only (a scraper beside the server).
        if request.client is None or not _loopback(request.client.host):
            return Response(
                b'{"error":"metrics are served to loopback clients, or set A2A_METRICS_TOKEN"}',
                status_code=403,
                media_type=JSON,
            )
    else:
        supplied = request.headers.get("authorization", "")
        if not secrets.compare_digest(
            supplied.encode(), f"Bearer {token.get_secret_value()}".encode()
        ):
            return Response(
                b'{"error":"metrics token required"}',
                status_code=401,
                media_type=JSON,
                headers={"WWW-Authenticate": 'Bearer realm="metrics"'},
            )
    return Response(runtime.metrics.render(), media_type=METRICS_CONTENT_TYPE)


def _loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@router.get("/readyz")
async def readyz(request: Request) -> Response:
    runtime = runtime_of(request)
    try:
        ready = await runtime.ready()
    except Exception:
        ready = False
    if ready:
        return Response(b'{"status":"ready"}', media_type=JSON)
    return Response(b'{"status":"unavailable"}', status_code=503, media_type=JSON)
