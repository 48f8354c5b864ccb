"""The application factory: wires settings, store, limiter, identity and
skills together at start-up (once), then serves requests."""

from __future__ import annotations

import gc
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass

from fastapi import FastAPI
from redis.asyncio import Redis

from app import __version__
from app.admin import router as admin_router
from app.agent_card import build_card
from app.auth import DEMO_TOKENS, Authenticator, FileTokenStore, RedisTokenStore, TokenStore
from app.clock import (
    Clock,
    IdFactory,
    ManualClock,
    RandomIds,
    SeededIds,
    ShiftedClock,
    SystemClock,
)
from app.config import Settings
from app.cors import CorsPolicy
from app.http import ENDPOINT, endpoint, router
from app.methods import A2AMethods
from app.observability import Call, Metrics, log_call
from app.oidc import JWTVerifier
from app.ratelimit import RateLimiter
from app.recording import Recorder
from app.rpc import Dispatcher
from app.storage import Keys, connect
from app.tasks import RedisTaskStore, TaskStore
from app.testmode import TestMode
from skills.base import SkillEnvironment
from skills.registry import SkillRegistry

log = logging.getLogger(__name__)

RegistryFactory = Callable[[SkillEnvironment], SkillRegistry]


@dataclass
class Runtime:
    """Everything a request needs, built once per process."""

    settings: Settings
    redis: Redis
    clock: Clock
    store: TaskStore
    tokens: TokenStore
    auth: Authenticator
    limiter: RateLimiter
    registry: SkillRegistry
    dispatcher: Dispatcher
    cors: CorsPolicy
    card_json: bytes
    env: SkillEnvironment
    testmode: TestMode | None
    recorder: Recorder | None
    metrics: Metrics

    async def ready(self) -> bool:
        return await self.store.ping()

    async def close(self) -> None:
        await self.env.close()
        await self.redis.aclose()


def token_store(settings: Settings, redis: Redis, keys: Keys) -> TokenStore:
    """Tokens beside the tasks in Redis, or in the data directory when embedded."""
    if settings.embedded:
        return FileTokenStore(settings.data_dir / "tokens.json")
    return RedisTokenStore(redis, keys, marker_seconds=int(settings.token_cache_seconds) * 2 + 60)


def build_runtime(
    settings: Settings,
    *,
    clock: Clock | None,
    ids: IdFactory | None,
    registry_factory: RegistryFactory,
) -> Runtime:
    keys = Keys(settings.key_prefix)
    redis = connect(settings)
    if settings.deterministic:
        clock = clock or ManualClock(settings.deterministic_start)
        ids = ids or SeededIds(settings.deterministic_seed)
    clock = clock or SystemClock()
    ids = ids or RandomIds()
    testmode = None
    if settings.test_mode:
        clock = ShiftedClock(clock)
        testmode = TestMode(redis, keys, clock, ids if isinstance(ids, SeededIds) else None)
    store = RedisTaskStore(redis, keys, settings.task_ttl_seconds, clock)
    limiter = RateLimiter(redis, keys, settings, clock)
    tokens = token_store(settings, redis, keys)
    auth = Authenticator(
        tokens,
        clock,
        demo_tokens=settings.dev_mode,
        # The embedded token file is its own cache, re-read when it changes.
        cache_seconds=0 if settings.embedded else settings.token_cache_seconds,
        jwt=JWTVerifier(settings, clock) if settings.jwt_enabled else None,
    )
    env = SkillEnvironment(settings=settings, clock=clock)
    registry = registry_factory(env)
    metrics = Metrics(frozenset(skill.id for skill in registry))

    def observe(call: Call) -> None:
        metrics.observe(call)
        log_call(call)

    methods = A2AMethods(
        settings=settings,
        store=store,
        registry=registry,
        limiter=limiter,
        clock=clock,
        ids=ids,
        faults=testmode,
    )
    return Runtime(
        settings=settings,
        redis=redis,
        clock=clock,
        store=store,
        tokens=tokens,
        auth=auth,
        limiter=limiter,
        registry=registry,
        dispatcher=Dispatcher(methods, auth, settings.max_batch, faults=testmode, observe=observe),
        cors=CorsPolicy(settings.cors_origins, settings.cors_max_age_seconds),
        card_json=build_card(settings, registry).to_json(),
        env=env,
        testmode=testmode,
        recorder=Recorder(settings.record_dir) if settings.record_dir else None,
        metrics=metrics,
    )


def create_app(
    settings: Settings | None = None,
    *,
    clock: Clock | None = None,
    ids: IdFactory | None = None,
    registry_factory: RegistryFactory = SkillRegistry.load,
) -> FastAPI:
    settings = settings or Settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        runtime = build_runtime(settings, clock=clock, ids=ids, registry_factory=registry_factory)
        app.state.runtime = runtime
        if settings.test_mode:
            log.warning("TEST MODE: the /_test/ scenario API is enabled. Never in production.")
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
    )
    # The endpoint is a plain route of the app itself: it reads the raw request,
    # so FastAPI's per-request parameter machinery and an included router's
    # matching would only cost time (measured in bench/).
    app.add_route(ENDPOINT, endpoint, methods=["POST"])
    app.include_router(router)
    if settings.test_mode:
        app.include_router(admin_router)
    return app


def app_from_env() -> FastAPI:
    """Entry for ``uvicorn --factory`` and for worker processes."""
    return create_app(Settings())
