"""The application factory: builds the runtime in the lifespan (once), mounts
the routes, and serves."""

from __future__ import annotations

import gc
import logging
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager

from fastapi import FastAPI

from magisterium_a2a.plugin import PluginSettings
from magisterium_a2a.server import __version__, transport
from magisterium_a2a.server.clock import Clock, IdFactory
from magisterium_a2a.server.config import Settings
from magisterium_a2a.server.http import ENDPOINT, endpoint, router
from magisterium_a2a.server.oauth.delegation import discover
from magisterium_a2a.server.oauth.routes import build_router
from magisterium_a2a.server.runtime import RegistryFactory, build_runtime, runtime_of
from magisterium_a2a.server.testmode.api import router as testmode_router
from magisterium_a2a.server.tokens import DEMO_TOKENS

log = logging.getLogger(__name__)


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
        )
        app.state.runtime = runtime
        if settings.test_mode:
            log.warning("TEST MODE: the /_test/ scenario API is enabled. Never in production.")
        if settings.oauth_builtin:
            log.info("OAuth: the built-in authorization server is on (%s)", settings.public_url)
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

    app = FastAPI(
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
    # The endpoint is a plain route of the app itself: it reads the raw request,
    # so FastAPI's per-request parameter machinery and an included router's
    # matching would only cost time (measured in bench/).
    app.add_route(ENDPOINT, endpoint, methods=["POST"])
    app.include_router(router)
    app.include_router(build_router(lambda request: runtime_of(request).oauth))
    if settings.test_mode:
        app.include_router(testmode_router)
    return app


def app_from_env() -> FastAPI:
    """Entry for ``uvicorn --factory`` and for worker processes."""
    settings = Settings()
    transport.configure(settings)
    return create_app(settings)
