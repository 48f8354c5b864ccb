"""HTTP routes: the JSON-RPC endpoint, its preflight, the agent card, health."""

from __future__ import annotations

import asyncio
import secrets

from fastapi import APIRouter, Request, Response
from starlette.requests import ClientDisconnect

from magisterium_a2a.server.errors import BodyTimeout, HTTPMethodNotAllowed, PayloadTooLarge
from magisterium_a2a.server.observability import METRICS_CONTENT_TYPE, request_id
from magisterium_a2a.server.rpc import RPCResponse, error_response
from magisterium_a2a.server.runtime import Runtime, runtime_of

ENDPOINT = "/api/v1/a2a"
CARD_PATHS = ("/.well-known/agent.json", "/.well-known/agent-card.json")
JSON = "application/json"

router = APIRouter()


async def read_body(request: Request, limit: int, deadline_seconds: float) -> bytes:
    """The body, refusing anything past ``limit`` bytes before parsing it, and
    a body that has not arrived whole within ``deadline_seconds`` (a client
    trickling bytes would otherwise hold its connection forever)."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise PayloadTooLarge(limit)
    chunks: list[bytes] = []
    size = 0
    try:
        async with asyncio.timeout(deadline_seconds):
            async for chunk in request.stream():
                size += len(chunk)
                if size > limit:
                    raise PayloadTooLarge(limit)
                chunks.append(chunk)
    except TimeoutError:
        raise BodyTimeout(deadline_seconds) from None
    return b"".join(chunks)


async def endpoint(request: Request) -> Response:
    runtime = runtime_of(request)
    rid = request_id(request.headers.get("x-request-id"))
    body = b""
    try:
        settings = runtime.settings
        body = await read_body(request, settings.max_body_bytes, settings.read_timeout_seconds)
    except (PayloadTooLarge, BodyTimeout) as exc:
        answer = error_response(exc)
    except ClientDisconnect:
        return Response(status_code=400)
    else:
        if runtime.testmode is not None:
            await runtime.testmode.refresh_clock()
        answer = await runtime.dispatcher.handle(body, request.headers.get("authorization"), rid)
    response = _reply(runtime, request, answer)
    response.headers["X-Request-ID"] = rid
    if runtime.recorder is not None:
        await runtime.recorder.record(
            request.headers, body, answer.status, response.headers, answer.body
        )
    return response


def _reply(runtime: Runtime, request: Request, answer: RPCResponse) -> Response:
    headers = runtime.cors.headers(request.headers.get("origin"))
    headers.update(answer.headers)
    if answer.status == 401:
        # RFC 9728 section 5.1: where to find how to get a token.
        headers["WWW-Authenticate"] = runtime.challenge
    return Response(answer.body, status_code=answer.status, media_type=JSON, headers=headers)


@router.options(ENDPOINT)
async def preflight(request: Request) -> Response:
    runtime = runtime_of(request)
    return Response(status_code=204, headers=runtime.cors.preflight(request.headers.get("origin")))


@router.api_route(ENDPOINT, methods=["GET", "HEAD", "PUT", "PATCH", "DELETE"])
async def not_allowed(request: Request) -> Response:
    return _reply(runtime_of(request), request, error_response(HTTPMethodNotAllowed()))


async def agent_card(request: Request) -> Response:
    runtime = runtime_of(request)
    return Response(
        runtime.card_json,
        media_type=JSON,
        headers={"Cache-Control": "public, max-age=3600", "Access-Control-Allow-Origin": "*"},
    )


for _path in CARD_PATHS:
    router.add_api_route(_path, agent_card, methods=["GET"])


@router.get("/healthz")
async def healthz() -> Response:
    return Response(b'{"status":"ok"}', media_type=JSON)


@router.get("/metrics")
async def metrics(request: Request) -> Response:
    runtime = runtime_of(request)
    token = runtime.settings.metrics_token
    if token is not None and token.get_secret_value():
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
