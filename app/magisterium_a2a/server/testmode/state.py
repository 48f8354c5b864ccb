"""The test mode's state in the store: scenarios per token, the shared clock
offset, task expiry and reset; and ``Faults``, what the request path asks."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Callable
from typing import Any, Literal, Protocol

import orjson
from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic.alias_generators import to_camel
from redis.asyncio import Redis

from magisterium_a2a.server.clock import SeededIds, ShiftedClock
from magisterium_a2a.server.errors import (
    InternalError,
    InvalidParams,
    InvalidRequest,
    InvalidStateTransition,
    MethodNotFound,
    ParseError,
    PlanRequired,
    PushNotificationNotSupported,
    RateLimited,
    RPCError,
    SkillNotFound,
    TaskNotFound,
    Unauthorized,
    UnsupportedOperation,
    VersionNotSupported,
)
from magisterium_a2a.server.identity import Principal, hash_token
from magisterium_a2a.server.storage import Keys, text

DEFAULT_RETRY_AFTER = 30
EARLIEST = 0.0
"""The earliest time the test clock may show: 1970-01-01T00:00:00Z."""
LATEST = 253_370_764_800.0
"""The latest: 9999-01-01T00:00:00Z, a year before task timestamps (RFC 3339) run out of digits,
so a clock set there keeps running for a year."""
DEFAULT_FAILURE = "The skill failed (a failure forced by the test mode)."

ERRORS: dict[int, Callable[[Scenario], RPCError]] = {
    -32700: lambda s: ParseError(s.message),
    -32600: lambda s: InvalidRequest(s.message),
    -32601: lambda s: MethodNotFound(s.message),
    -32602: lambda s: InvalidParams(s.message),
    -32603: lambda s: InternalError(s.message),
    -32001: lambda s: TaskNotFound(s.message),
    -32002: lambda s: SkillNotFound(s.message),
    -32003: lambda s: RateLimited(s.retry_after or DEFAULT_RETRY_AFTER),
    -32004: lambda s: Unauthorized(s.message),
    -32005: lambda s: PlanRequired(s.message),
}
"""The errors a scenario can force, by their code in the hosted dialect."""
ERRORS_V10: dict[int, Callable[[Scenario], RPCError]] = {
    -32700: ERRORS[-32700],
    -32600: ERRORS[-32600],
    -32601: ERRORS[-32601],
    -32602: ERRORS[-32602],
    -32603: ERRORS[-32603],
    -32001: ERRORS[-32001],
    -32002: lambda s: InvalidStateTransition(s.message),
    -32003: lambda s: PushNotificationNotSupported(s.message),
    -32004: lambda s: UnsupportedOperation(s.message),
    -32009: lambda s: VersionNotSupported(s.message),
    -31429: ERRORS[-32003],
    -31401: ERRORS[-32004],
    -31403: ERRORS[-32005],
}
"""The same, by their code in A2A 1.0 (``errors.V10``). A forced error is the
server's own error: a client of either dialect gets it in its dialect's form."""
CODES = {"0.3": ERRORS, "1.0": ERRORS_V10}
OPERATIONS = {"SendMessage": "message/send", "GetTask": "tasks/get", "CancelTask": "tasks/cancel"}
"""A2A 1.0's names for the hosted dialect's methods: a scenario for a method
applies to the operation, whichever dialect names it."""


class Scenario(BaseModel):
    """One scenario, as the /_test/ API and the CLI take it."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid")

    kind: Literal["error", "fail", "latency"]
    token: str = Field(min_length=1, description="The bearer token it applies to")
    method: str | None = Field(None, description="Only calls of this JSON-RPC method")
    skill: str | None = Field(None, description="Only message/send calls to this skill")
    count: int = Field(1, ge=1, le=1_000_000, description="How many calls it applies to")
    code: int | None = Field(None, description="error: the JSON-RPC code to answer")
    version: Literal["0.3", "1.0"] = Field(
        "0.3", description="error: the A2A version whose codes 'code' is one of"
    )
    retry_after: int | None = Field(
        None, ge=1, description="error -32003 (0.3) or -31429 (1.0): retryAfter (s)"
    )
    message: str | None = Field(None, description="error: message; fail: the failure text")
    latency_ms: int | None = Field(None, ge=0, le=120_000, description="latency: added delay")

    @model_validator(mode="after")
    def _complete(self) -> Scenario:
        if self.kind == "error" and self.code not in CODES[self.version]:
            raise ValueError(
                f"code must be one of {sorted(CODES[self.version])} (A2A {self.version})"
            )
        if self.kind == "latency" and self.latency_ms is None:
            raise ValueError("latencyMs is required for kind 'latency'")
        return self

    def applies(self, method: str, skill: str | None) -> bool:
        if self.method is not None:
            wanted = OPERATIONS.get(self.method, self.method)
            if wanted != OPERATIONS.get(method, method):
                return False
        return self.skill is None or self.skill == skill

    def error(self) -> RPCError:
        assert self.code is not None
        return CODES[self.version][self.code](self)


class ClockOutOfRange(ValueError):
    """A clock setting outside the years 1970 to 9999, which would break every timestamp."""

    def __init__(self, now: float) -> None:
        super().__init__(
            f"the clock would show {now!r} (epoch seconds); "
            f"it must stay between {EARLIEST:.0f} (1970) and {LATEST:.0f} (9999)"
        )


class Faults(Protocol):
    """Where the request path asks whether a scenario applies (test mode only)."""

    async def intercept(self, principal: Principal, method: str, skill: str | None) -> None:
        """Apply latency, then raise a forced error, if a scenario says so."""

    async def skill_failure(self, principal: Principal, skill: str) -> str | None:
        """The failure text if a scenario makes this skill call fail."""


class TestMode:
    """The test mode's state in the store, and its operations."""

    __test__ = False  # not a pytest test class

    def __init__(self, redis: Redis, keys: Keys, clock: ShiftedClock, ids: SeededIds | None):
        self._redis = redis
        self._keys = keys
        self.clock = clock
        self._ids = ids

    # --- scenarios -----------------------------------------------------------

    async def add(self, scenario: Scenario) -> str:
        token_id = hash_token(scenario.token)
        scenario_id = f"{int(self.clock.base.now() * 1000):013d}-{secrets.token_hex(4)}"
        spec = scenario.model_dump_json(exclude={"token"})
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.hset(self._keys.test_scenarios(token_id), scenario_id, spec)
            pipe.hset(self._keys.test_counts(token_id), scenario_id, scenario.count)
            await pipe.execute()
        return scenario_id

    async def pending(self, token: str) -> list[dict[str, Any]]:
        """The token's scenarios with what remains of their counts, oldest first."""
        token_id = hash_token(token)
        async with self._redis.pipeline(transaction=False) as pipe:
            pipe.hgetall(self._keys.test_scenarios(token_id))
            pipe.hgetall(self._keys.test_counts(token_id))
            specs, counts = await pipe.execute()
        remaining = {text(k): int(v) for k, v in counts.items()}
        out = []
        for raw_id, raw in sorted(specs.items()):
            scenario_id = text(raw_id)
            left = remaining.get(scenario_id, 0)
            if left > 0:
                out.append({"id": scenario_id, **orjson.loads(raw), "count": left})
        return out

    async def _take(
        self, token_id: str, kinds: frozenset[str], method: str, skill: str | None
    ) -> Scenario | None:
        """Consume one call of the oldest matching scenario (atomic per scenario)."""
        specs = await self._redis.hgetall(self._keys.test_scenarios(token_id))
        for raw_id, raw in sorted(specs.items()):
            spec = Scenario.model_validate({**orjson.loads(raw), "token": "-"})
            if spec.kind not in kinds or not spec.applies(method, skill):
                continue
            left = await self._redis.hincrby(self._keys.test_counts(token_id), text(raw_id), -1)
            if left <= 0:
                async with self._redis.pipeline(transaction=True) as pipe:
                    pipe.hdel(self._keys.test_scenarios(token_id), text(raw_id))
                    pipe.hdel(self._keys.test_counts(token_id), text(raw_id))
                    await pipe.execute()
            if left >= 0:
                return spec
        return None

    async def intercept(self, principal: Principal, method: str, skill: str | None) -> None:
        kinds = frozenset({"latency", "error"})
        while (spec := await self._take(principal.token_id, kinds, method, skill)) is not None:
            if spec.kind == "latency":
                await asyncio.sleep((spec.latency_ms or 0) / 1000)
                kinds = frozenset({"error"})
            else:
                raise spec.error()

    async def skill_failure(self, principal: Principal, skill: str) -> str | None:
        spec = await self._take(principal.token_id, frozenset({"fail"}), "message/send", skill)
        return None if spec is None else spec.message or DEFAULT_FAILURE

    # --- clock ---------------------------------------------------------------

    async def refresh_clock(self) -> None:
        """Take the shared offset from the store (once per request)."""
        raw = await self._redis.get(self._keys.test_clock)
        self.clock.offset = float(raw) if raw is not None else 0.0

    async def set_clock(self, now: float) -> float:
        """Show ``now`` from here on, on every process; refuse a time no timestamp can show."""
        if not EARLIEST <= now <= LATEST:  # also refuses NaN
            raise ClockOutOfRange(now)
        self.clock.offset = now - self.clock.base.now()
        await self._redis.set(self._keys.test_clock, repr(self.clock.offset))
        return self.clock.now()

    async def advance_clock(self, seconds: float) -> float:
        await self.refresh_clock()
        return await self.set_clock(self.clock.now() + seconds)

    # --- reset -------------------------------------------------------------------

    async def reset(self) -> int:
        """Forget tasks, contexts, buckets, scenarios and the clock; tokens stay, and
        so do OAuth clients and sessions (credentials, like tokens)."""
        doomed = [
            key
            async for key in self._redis.scan_iter(match=self._keys.everything, count=1000)
            if not self._keys.is_credential_key(text(key))
        ]
        for start in range(0, len(doomed), 500):
            await self._redis.delete(*doomed[start : start + 500])
        self.clock.offset = 0.0
        if self._ids is not None:
            self._ids.reset()
        return len(doomed)
