"""The runtime: every long-lived object a request needs (store, limiter,
authenticator, skills, dispatcher), built once per process from the settings.

Routes reach it through ``runtime_of(request)``; the app factory (``main``)
builds it in the lifespan and knows nothing of how it is wired.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from redis.asyncio import Redis
from starlette.requests import Request

from magisterium_a2a.plugin import PluginSettings, SkillEnvironment
from magisterium_a2a.server.agent_card import CardDocuments, build_card, card_documents
from magisterium_a2a.server.auth import Authenticator
from magisterium_a2a.server.clock import (
    Clock,
    IdFactory,
    ManualClock,
    RandomIds,
    SeededIds,
    ShiftedClock,
    SystemClock,
)
from magisterium_a2a.server.config import Settings
from magisterium_a2a.server.cors import CorsPolicy
from magisterium_a2a.server.dialects import A2A_1_0, HOSTED
from magisterium_a2a.server.dialects.hosted import hosted_dialect
from magisterium_a2a.server.dialects.v1 import v1_dialect
from magisterium_a2a.server.inflight import InFlight
from magisterium_a2a.server.methods import A2AMethods
from magisterium_a2a.server.oauth.delegation import Provider
from magisterium_a2a.server.oauth.routes import OAuthSurface
from magisterium_a2a.server.oauth.setup import build_oauth
from magisterium_a2a.server.observability import Call, Metrics, log_call
from magisterium_a2a.server.oidc import JWTVerifier
from magisterium_a2a.server.ratelimit import RateLimiter
from magisterium_a2a.server.recording import Recorder
from magisterium_a2a.server.registry import SkillRegistry
from magisterium_a2a.server.rpc import Dispatcher, Dispatchers, VersionRefusal
from magisterium_a2a.server.storage import Keys, Pipe, Scripts, connect, hot_pipe
from magisterium_a2a.server.tasks import RedisTaskStore, TaskStore
from magisterium_a2a.server.testmode import TestMode
from magisterium_a2a.server.tokens import FileTokenStore, RedisTokenStore, TokenStore

RegistryFactory = Callable[[SkillEnvironment], SkillRegistry]


@dataclass
class Runtime:
    """Everything a request needs, built once per process."""

    settings: Settings
    redis: Redis
    pipe: Pipe | None
    """The hot path's connection beside ``redis`` (storage/pipe.py), if any."""
    in_flight: InFlight
    """The requests being answered now (the pipe polls only for one)."""
    clock: Clock
    store: TaskStore
    tokens: TokenStore
    auth: Authenticator
    limiter: RateLimiter
    registry: SkillRegistry
    dispatcher: Dispatcher
    """The hosted dialect's: requests without an ``A2A-Version`` header."""
    dispatchers: Dispatchers
    """Requests with one, by its value."""
    cors: CorsPolicy
    card: CardDocuments
    env: SkillEnvironment
    testmode: TestMode | None
    recorder: Recorder | None
    metrics: Metrics
    oauth: OAuthSurface
    challenge: str

    async def ready(self) -> bool:
        return await self.store.ping()

    async def close(self) -> None:
        await self.env.close()
        if self.pipe is not None:
            await self.pipe.aclose()
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
    registry_factory: RegistryFactory | None = None,
    plugin_settings: Iterable[PluginSettings] = (),
    in_flight: InFlight,
    provider: Provider | None = None,
) -> Runtime:
    """Build every long-lived object of one server process, once, at start-up.

    ``provider`` is the operator's identity provider, discovered beforehand
    (``A2A_OAUTH_ISSUER``) since that needs the network. ``in_flight``: the count
    of requests in progress that the request guard keeps."""
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
    pipe = hot_pipe(settings, in_flight.alone)
    scripts = Scripts(redis, pipe)
    store = RedisTaskStore(redis, scripts, keys, settings.task_ttl_seconds, clock, pipe)
    limiter = RateLimiter(scripts, keys, settings, clock)
    tokens = token_store(settings, redis, keys)
    oauth = build_oauth(settings, redis, clock, tokens, provider)
    auth = Authenticator(
        tokens,
        clock,
        demo_tokens=settings.dev_mode,
        # The embedded token file is its own cache, re-read when it changes.
        cache_seconds=0 if settings.embedded else settings.token_cache_seconds,
        jwt=JWTVerifier(oauth.jwt_settings, clock) if oauth.jwt_settings is not None else None,
        oauth=oauth.service,
    )
    env = SkillEnvironment(clock=clock, data_dir=settings.data_dir, settings=plugin_settings)
    registry = (
        registry_factory(env)
        if registry_factory is not None
        else SkillRegistry.load(env, extra=settings.extra_skills, disabled=settings.disabled_skills)
    )
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
    card = card_documents(build_card(settings, registry, oauth.card))
    batch = settings.max_batch
    hosted = Dispatcher(hosted_dialect(methods), auth, batch, faults=testmode, observe=observe)
    v1 = v1_dialect(methods, card.v10, auth.confirm)
    dispatchers = Dispatchers(
        {
            HOSTED: hosted,
            A2A_1_0: Dispatcher(v1, auth, batch, faults=testmode, observe=observe),
        },
        lambda requested: VersionRefusal(v1, auth, batch, requested, observe=observe),
    )
    return Runtime(
        settings=settings,
        redis=redis,
        pipe=pipe,
        in_flight=in_flight,
        clock=clock,
        store=store,
        tokens=tokens,
        auth=auth,
        limiter=limiter,
        registry=registry,
        dispatcher=hosted,
        dispatchers=dispatchers,
        cors=CorsPolicy(settings.cors_origins, settings.cors_max_age_seconds),
        card=card,
        env=env,
        testmode=testmode,
        recorder=Recorder(settings.record_dir) if settings.record_dir else None,
        metrics=metrics,
        oauth=oauth.surface,
        challenge=oauth.challenge,
    )


def runtime_of(request: Request) -> Runtime:
    """The process' runtime, which the app's lifespan put on its state."""
    runtime: Runtime = request.app.state.runtime
    return runtime
