"""The application factory: builds the runtime in the lifespan (once), mounts
the routes, and serves."""

from __future__ import annotations

import gc
import logging
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI
from starlette.middleware.errors import ServerErrorMiddleware
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from magisterium_a2a.plugin import PluginSettings
from magisterium_a2a.server import __version__, transport
from magisterium_a2a.server.clock import Clock, IdFactory
from magisterium_a2a.server.config import Settings
from magisterium_a2a.server.guard import RequestGuard
from magisterium_a2a.server.http import ENDPOINT, Endpoint, router
from magisterium_a2a.server.inflight import InFlight
from magisterium_a2a.server.oauth.delegation import discover
from magisterium_a2a.server.oauth.routes import build_router
from magisterium_a2a.server.playground import build_router as build_playground
from magisterium_a2a.server.runtime import RegistryFactory, build_runtime, runtime_of
from magisterium_a2a.server.testmode.api import router as testmode_router
from magisterium_a2a.server.tokens import DEMO_TOKENS

log = logging.getLogger(__name__)


class A2AApp(FastAPI):
    """FastAPI, with ``POST /api/v1/a2a`` answered ahead of its middleware
    stack and router.

    The endpoint is a plain ASGI app that reads the raw request; on the way to
    it the framework's layers (telemetry check, body limit, exception
    middleware, exit stack, routing, request/response wrappers) cost about as
    much as a cheap request itself (measured in bench/). Only the outermost
    layer stays: an unhandled error still answers 500. Every other path, and
    the endpoint under a root path or with FastAPI's own OpenTelemetry
    instrumentation switched on, takes the framework's way (to the same
    ``Endpoint``).
    """

    def __init__(
        self, *, in_flight: InFlight, read_timeout_seconds: float = 30.0, **options: Any
    ) -> None:
        super().__init__(**options)
        self._direct: ASGIApp = ServerErrorMiddleware(
            RequestGuard(Endpoint(), read_timeout_seconds, in_flight)
        )
        self._bypass: bool | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] == "http"
            and scope["path"] == ENDPOINT
            and scope["method"] == "POST"
            and not scope.get("root_path")
            and self._may_bypass()
        ):
            scope["app"] = self
            await self._direct(scope, receive, send)
            return
        await super().__call__(scope, receive, send)

    def _may_bypass(self) -> bool:
        if self._bypass is None:
            # FastAPI traces requests itself once an OpenTelemetry provider is
            # configured (decided at start-up): then the endpoint goes its way.
            telemetry = getattr(self, "_native_telemetry", None)
            self._bypass = not self.root_path and (telemetry is None or not telemetry.enabled())
        return self._bypass


def create_app(
    settings: Settings | None = None,
    *,
    clock: Clock | None = None,
    ids: IdFactory | None = None,
    registry_factory: RegistryFactory | None = None,
    plugin_settings: Iterable[PluginSettings] = (),
) -> FastAPI:
    """The ASGI app; ``plugin_settings`` overrides skill families' settings (tests)."""
    settings = settings or Settings()
    # One count for both ways in (the direct endpoint and the framework's routes).
    in_flight = InFlight()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        provider = None
        if settings.oauth_issuer:
            provider = await discover(settings.oauth_issuer, settings.redis_timeout_seconds * 2)
        runtime = build_runtime(
            settings,
            clock=clock,
            ids=ids,
            registry_factory=registry_factory,
            plugin_settings=plugin_settings,
            provider=provider,
            in_flight=in_flight,
        )
        app.state.runtime = runtime
        if settings.test_mode:
            log.warning("TEST MODE: the /_test/ scenario API is enabled. Never in production.")
        if settings.oauth_builtin:
            log.info("OAuth: the built-in authorization server is on (%s)", settings.public_url)
        if settings.playground_enabled:
            log.info("playground: %s/", settings.public_url.rstrip("/"))
        if settings.dev_mode:
            log.warning(
                "DEVELOPMENT MODE: demo tokens %s are accepted. Never expose this server.",
                ", ".join(DEMO_TOKENS),
            )
        log.info(
            "serving %d skill(s) with the %s store",
            len(runtime.registry),
            "embedded" if settings.embedded else "Redis",
        )
        # Objects built at start-up live for the whole process; keep them out of
        # the collector's generations so request-time collections stay short.
        gc.collect()
        gc.freeze()
        try:
            yield
        finally:
            await runtime.close()

    app = A2AApp(
        in_flight=in_flight,
        read_timeout_seconds=settings.read_timeout_seconds,
        title="Magisterium A2A",
        version=__version__,
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
        openapi_url=None,
        # /api/v1/a2a/ is not the endpoint: a 404, never a redirect to a URL built
        # from the client's Host header.
        redirect_slashes=False,
    )
    # The endpoint is also a plain route of the app itself (an ASGI app, so no
    # request/response wrapping), for requests that do not take the direct way.
    app.router.routes.append(Route(ENDPOINT, Endpoint(), methods=["POST"]))
    # Every other route's read deadline, quiet disconnects and common headers.
    app.add_middleware(RequestGuard, seconds=settings.read_timeout_seconds, in_flight=in_flight)
    app.include_router(router)
    app.include_router(build_router(lambda r: runtime_of(r).oauth, lambda r: runtime_of(r).cors))
    if settings.test_mode:
        app.include_router(testmode_router)
    if settings.playground_enabled:
        app.include_router(build_playground(settings.public_url))
    return app


def app_from_env() -> FastAPI:
    """Entry for ``uvicorn --factory`` and for worker processes."""
    settings = Settings()
    transport.configure(settings)
    return create_app(settings)
