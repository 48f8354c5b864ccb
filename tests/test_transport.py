"""The HTTP protocol's answer in one write (``transport.OneWrite``) and the body
deadline the guard leaves to a server that has the whole body already
(``guard.BODY_RECEIVED``), against uvicorn's real request cycle."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest
from uvicorn.protocols.http.flow_control import FlowControl
from uvicorn.protocols.http.httptools_impl import RequestResponseCycle

from magisterium_a2a.server.errors import BodyTimeout
from magisterium_a2a.server.guard import BODY_RECEIVED, RequestGuard
from magisterium_a2a.server.inflight import InFlight
from magisterium_a2a.server.transport import OneWrite

DEFAULT_HEADERS = [(b"date", b"Sat, 05 Dec 2026 07:00:00 GMT"), (b"server", b"uvicorn")]
BODY = b'{"jsonrpc":"2.0","id":1,"result":{}}'


class Recording:
    """A transport that keeps what is written to it."""

    def __init__(self) -> None:
        self.writes: list[bytes] = []
        self.closed = False

    def write(self, data: bytes) -> None:
        self.writes.append(data)

    def close(self) -> None:
        self.closed = True

    def is_closing(self) -> bool:
        return self.closed

    def pause_reading(self) -> None: ...

    def resume_reading(self) -> None: ...


def cycle_for(method: str = "POST", *, keep_alive: bool = True) -> tuple[Any, Recording]:
    transport = Recording()
    cycle = RequestResponseCycle(
        scope={"type": "http", "method": method, "path": "/"},  # type: ignore[typeddict-item]
        transport=transport,  # type: ignore[arg-type]
        flow=FlowControl(transport),  # type: ignore[arg-type]
        logger=logging.getLogger("test"),
        access_logger=logging.getLogger("test.access"),
        access_log=False,
        default_headers=DEFAULT_HEADERS,
        message_event=asyncio.Event(),
        expect_100_continue=False,
        keep_alive=keep_alive,
        on_response=lambda: None,
    )
    cycle.send = OneWrite(cycle).send  # type: ignore[method-assign]
    return cycle, transport


def start(*headers: tuple[bytes, bytes], status: int = 200) -> dict[str, Any]:
    return {"type": "http.response.start", "status": status, "headers": list(headers)}


def body(data: bytes, more: bool = False) -> dict[str, Any]:
    return {"type": "http.response.body", "body": data, "more_body": more}


LENGTH = (b"content-length", str(len(BODY)).encode())


async def test_a_complete_answer_is_one_write_of_head_and_body() -> None:
    cycle, transport = cycle_for()
    await cycle.send(start(LENGTH, (b"Content-Type", b"application/json")))
    assert transport.writes == []  # the head waits for the body
    await cycle.send(body(BODY))
    assert len(transport.writes) == 1
    head, _, rest = transport.writes[0].partition(b"\r\n\r\n")
    assert rest == BODY
    lines = head.split(b"\r\n")
    assert lines[0] == b"HTTP/1.1 200 OK"
    assert lines[1:] == [
        b"date: Sat, 05 Dec 2026 07:00:00 GMT",
        b"server: uvicorn",
        b"content-length: %d" % len(BODY),
        b"content-type: application/json",
    ]
    assert cycle.response_complete and not transport.closed


async def test_the_head_is_what_uvicorn_itself_writes() -> None:
    headers = (LENGTH, (b"x-request-id", b"abc"), (b"access-control-allow-origin", b"*"))
    ours, written = cycle_for()
    await ours.send(start(*headers, status=429))
    await ours.send(body(BODY))
    theirs, plain = cycle_for()
    await RequestResponseCycle.send(theirs, start(*headers, status=429))  # type: ignore[arg-type]
    await RequestResponseCycle.send(theirs, body(BODY))  # type: ignore[arg-type]
    assert written.writes == [b"".join(plain.writes)]
    assert len(plain.writes) == 2


async def test_a_connection_that_closes_says_so_and_closes_after_the_body() -> None:
    cycle, transport = cycle_for(keep_alive=False)
    await cycle.send(start(LENGTH))
    await cycle.send(body(BODY))
    assert b"\r\nconnection: close\r\n" in transport.writes[0]
    assert transport.closed


async def test_an_answer_asking_to_close_ends_keep_alive() -> None:
    cycle, transport = cycle_for()
    await cycle.send(start(LENGTH, (b"Connection", b"keep-alive, Close")))
    await cycle.send(body(BODY))
    assert transport.writes[0].count(b"connection:") == 1
    assert not cycle.keep_alive and transport.closed


async def test_an_answer_in_parts_is_held_until_its_first_part_only() -> None:
    cycle, transport = cycle_for()
    await cycle.send(start(LENGTH))
    await cycle.send(body(BODY[:10], more=True))
    await cycle.send(body(BODY[10:]))
    assert len(transport.writes) == 2
    assert transport.writes[0].endswith(b"\r\n\r\n" + BODY[:10])
    assert transport.writes[1] == BODY[10:]


@pytest.mark.parametrize(
    ("keep_alive", "ending"),
    [(True, b"\r\n\r\n"), (False, b"\r\nconnection: close\r\n\r\n")],
    ids=["kept", "closing"],
)
async def test_a_head_request_gets_the_head_alone_before_any_close(
    keep_alive: bool, ending: bytes
) -> None:
    cycle, transport = cycle_for("HEAD", keep_alive=keep_alive)
    await cycle.send(start(LENGTH))
    await cycle.send(body(b""))
    assert len(transport.writes) == 1
    assert transport.writes[0].endswith(ending)
    assert cycle.response_complete
    assert transport.closed is not keep_alive


async def test_a_header_uvicorn_lets_through_is_let_through_here_too() -> None:
    """A name byte above 0x7f: uvicorn writes it, and so does the one write."""
    header = (b"x-\xe9", b"1")
    cycle, written = cycle_for()
    await cycle.send(start(LENGTH, header))
    await cycle.send(body(BODY))
    theirs, plain = cycle_for()
    await RequestResponseCycle.send(theirs, start(LENGTH, header))  # type: ignore[arg-type]
    await RequestResponseCycle.send(theirs, body(BODY))  # type: ignore[arg-type]
    assert written.writes == [b"".join(plain.writes)]


async def test_a_streamed_answer_goes_through_uvicorn_as_before() -> None:
    cycle, transport = cycle_for()
    await cycle.send(start((b"content-type", b"text/event-stream")))
    assert len(transport.writes) == 1  # written at once: no length, no holding
    assert b"transfer-encoding: chunked" in transport.writes[0]
    await cycle.send(body(b"data: 1\n\n", more=True))
    assert transport.writes[1] == b"9\r\ndata: 1\n\n\r\n"


@pytest.mark.parametrize(
    "header",
    [(b"x-evil", b"a\r\nset-cookie: b"), (b"x ok", b"1"), (b"x-nul", b"a\x00b")],
)
async def test_a_header_uvicorn_refuses_is_refused_here_too(header: tuple[bytes, bytes]) -> None:
    cycle, transport = cycle_for()
    with pytest.raises(RuntimeError, match="Invalid HTTP header"):
        await cycle.send(start(LENGTH, header))
    theirs, _ = cycle_for()
    with pytest.raises(RuntimeError, match="Invalid HTTP header"):
        await RequestResponseCycle.send(theirs, start(LENGTH, header))  # type: ignore[arg-type]
    assert transport.writes == [] and not cycle.response_started


async def test_a_tab_in_a_value_is_allowed_as_uvicorn_allows_it() -> None:
    cycle, transport = cycle_for()
    await cycle.send(start(LENGTH, (b"x-note", b"a\tb")))
    await cycle.send(body(BODY))
    assert b"x-note: a\tb\r\n" in transport.writes[0]


async def test_a_body_longer_than_its_length_is_still_refused() -> None:
    cycle, _ = cycle_for()
    await cycle.send(start(LENGTH))
    with pytest.raises(RuntimeError, match="longer than Content-Length"):
        await cycle.send(body(BODY + b"x"))


async def _guarded(scope: dict[str, Any], receive: Any) -> list[dict[str, Any]]:
    sent: list[dict[str, Any]] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        message = await receive()
        await send(start(LENGTH))
        await send(body(message["body"]))

    async def send(message: Any) -> None:
        sent.append(message)

    await RequestGuard(app, 0.05, InFlight())(scope, receive, send)
    return sent


async def test_a_body_the_server_has_whole_is_read_without_a_timer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def no_timer(when: float) -> Any:
        raise AssertionError("a timer for a body that has arrived")

    monkeypatch.setattr(asyncio, "timeout_at", no_timer)

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": BODY, "more_body": False}

    scope = {"type": "http", "method": "POST", "path": "/", "extensions": {BODY_RECEIVED: {}}}
    sent = await _guarded(scope, receive)
    assert sent[-1]["body"] == BODY


async def test_without_the_servers_word_a_slow_body_still_meets_the_deadline() -> None:
    async def receive() -> dict[str, Any]:
        await asyncio.Event().wait()
        raise AssertionError("unreachable")

    scope = {"type": "http", "method": "POST", "path": "/"}
    # Bounded, so that a guard that left this body without its deadline fails, not hangs.
    sent = await asyncio.wait_for(_guarded(scope, receive), 10)
    assert sent[0]["status"] == BodyTimeout(0.05).http_status


async def test_uvicorn_with_this_protocol_says_when_the_body_is_whole() -> None:
    import httpx
    import uvicorn

    from magisterium_a2a.server import transport
    from magisterium_a2a.server.config import Settings

    seen: list[bool] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        seen.append(BODY_RECEIVED in (scope.get("extensions") or {}))
        message = await receive()
        await send(start((b"content-length", str(len(message["body"])).encode())))
        await send(body(message["body"]))

    config = uvicorn.Config(
        app,
        port=0,
        http=transport.configure(Settings(_env_file=None)),
        log_level="warning",
        lifespan="off",
    )
    server = uvicorn.Server(config)
    config.load()
    server.lifespan = config.lifespan_class(config)
    await server.startup()
    try:
        port = server.servers[0].sockets[0].getsockname()[1]
        async with httpx.AsyncClient() as client:
            answer = await client.post(f"http://127.0.0.1:{port}/", content=BODY)
    finally:
        await server.shutdown()
    assert answer.content == BODY
    assert answer.headers["content-length"] == str(len(BODY))
    assert seen == [True]
