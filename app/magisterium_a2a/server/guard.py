"""The one ASGI layer in front of every route: a read deadline on the request
body, quiet disconnects, and the headers every response carries.

- **Deadline.** A body that has not arrived whole within ``seconds`` of the
  request reaching the app is cut off: ``receive`` raises ``BodyTimeout``. A
  route may answer it in its own dialect (the JSON-RPC endpoint answers
  ``-32600``); otherwise this layer answers 408 with a small JSON body. Either
  way the answer carries ``Connection: close``, so a client trickling bytes
  loses its connection (and the server its file descriptor) at once. The head
  of a request, which no ASGI app sees before it is complete, has the same
  deadline in the protocol (``transport``).
- **Disconnects.** A client that goes away before its body arrived raises
  Starlette's ``ClientDisconnect`` in the route; that is one short INFO line
  here, never a traceback.
- **Load.** It counts the requests in progress (``inflight.InFlight``), which
  tells the hot path's Redis connection whether this process answers one alone.
- **Headers.** Every response gets ``X-Content-Type-Options: nosniff``; an HTML
  response that sets no ``Content-Security-Policy`` of its own gets the page
  headers (a CSP that allows nothing from elsewhere, no framing, no referrer).

It sits inside Starlette's ``ServerErrorMiddleware``, so what it handles never
reaches that layer's 500 and traceback.
"""

from __future__ import annotations

import asyncio
import logging

import orjson
from starlette.requests import ClientDisconnect
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from magisterium_a2a.server.errors import BodyTimeout
from magisterium_a2a.server.inflight import InFlight
from magisterium_a2a.server.observability import clip

log = logging.getLogger(__name__)

BODY_RECEIVED = "magisterium_a2a.body_received"
"""An ASGI scope extension a server sets once a request's whole body is buffered
(``transport`` does, for uvicorn): reading it then cannot wait, so it needs no
deadline, and the timer one would cost (about 7 µs a request) is saved."""

NOSNIFF = (b"x-content-type-options", b"nosniff")
PAGE_HEADERS: dict[str, str] = {
    "Cache-Control": "no-store",
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; "
    "frame-ancestors 'none'; base-uri 'none'",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
}
_PAGE_RAW = [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in PAGE_HEADERS.items()]


class RequestGuard:
    """See the module's docstring; ``seconds`` is ``A2A_READ_TIMEOUT_SECONDS``,
    ``in_flight`` the process' count of requests in progress."""

    def __init__(self, app: ASGIApp, seconds: float, in_flight: InFlight) -> None:
        self.app = app
        self.seconds = seconds
        self.in_flight = in_flight

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        in_flight = self.in_flight
        in_flight.count += 1
        try:
            await self._guarded(scope, receive, send)
        finally:
            in_flight.count -= 1

    async def _guarded(self, scope: Scope, receive: Receive, send: Send) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.seconds
        body_done = False
        started = False
        late: BodyTimeout | None = None
        replaced = False

        async def timed_receive() -> Message:
            nonlocal body_done, late
            # Asked at each read: the server may learn the body is whole only after
            # the app has started.
            if body_done or BODY_RECEIVED in (scope.get("extensions") or ()):
                return await receive()
            try:
                async with asyncio.timeout_at(deadline):
                    message = await receive()
            except TimeoutError:
                late = BodyTimeout(self.seconds)
                raise late from None
            body_done = message["type"] != "http.request" or not message.get("more_body", False)
            return message

        async def guarded_send(message: Message) -> None:
            nonlocal started, replaced
            if replaced:
                return
            if message["type"] == "http.response.start":
                started = True
                if late is not None and message["status"] != late.http_status:
                    # The route turned the timeout into another answer (FastAPI makes
                    # any failure to read a body a 400): the deadline's answer instead.
                    replaced = True
                    await _timeout_answer(send, late)
                    return
                headers = list(message.get("headers", ()))
                headers.append(NOSNIFF)
                if _is_page(headers):
                    headers.extend(_PAGE_RAW)
                message = {**message, "headers": headers}
            await send(message)

        try:
            await self.app(scope, timed_receive, guarded_send)
        except BodyTimeout as timeout:
            if not started:
                await _timeout_answer(send, timeout)
        except ClientDisconnect:
            log.info(
                "client went away before its request was read: %s %s",
                scope.get("method"),
                clip(scope.get("path")),
            )
        if late is not None:
            log.info(
                "request body not received within %gs: %s %s",
                self.seconds,
                scope.get("method"),
                clip(scope.get("path")),
            )


def _is_page(headers: list[tuple[bytes, bytes]]) -> bool:
    """An HTML response without a CSP of its own (one pass: this runs on every response)."""
    html = False
    for name, value in headers:
        if name == b"content-security-policy":
            return False
        if name == b"content-type" and value.startswith(b"text/html"):
            html = True
    return html


async def _timeout_answer(send: Send, late: BodyTimeout) -> None:
    """408 with ``Connection: close``, in the OAuth endpoints' error shape."""
    seconds = late.data["timeoutSeconds"]
    description = f"the request body did not arrive within {seconds:g} s"
    body = orjson.dumps({"error": "invalid_request", "error_description": description})
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        NOSNIFF,
        *((k.lower().encode(), v.encode()) for k, v in late.headers().items()),
    ]
    await send({"type": "http.response.start", "status": late.http_status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
