"""Bearer JWTs from an external OAuth 2.0 / OIDC provider, verified on PyJWT.

The signature is checked against the provider's JWKS (fetched from a URL, or
read from a file), which is cached and fetched again when a token names an
unknown ``kid`` (at most every ``MIN_REFETCH_SECONDS`` of the server's clock,
so random kids cannot hammer the provider) and when an hour old. Issuer and
audience are checked by PyJWT; ``exp`` and ``nbf`` against the server's own
clock (so the test mode's clock applies), with a small leeway. The user is
``sub``; the plan comes from a configurable claim. Only asymmetric algorithms
are accepted, never ``none``.
"""

from __future__ import annotations

import asyncio
import math
from pathlib import Path
from typing import Any

import httpx
import jwt
import orjson

from magisterium_a2a.server.clock import Clock
from magisterium_a2a.server.config import Settings
from magisterium_a2a.server.errors import InternalError, Unauthorized
from magisterium_a2a.server.identity import PLANS, Plan, Principal, hash_token

MIN_REFETCH_SECONDS = 10.0
MAX_NUMERIC_DATE = 253_402_300_799  # 9999-12-31T23:59:59Z
MAX_KEYS_AGE_SECONDS = 3600.0
ASYMMETRIC = frozenset(
    {"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"}
)


class JWKSSource:
    """The provider's signing keys by ``kid``, fetched when needed."""

    def __init__(self, url: str, file: Path | None, timeout: float, clock: Clock) -> None:
        self._url = url
        self._file = file
        self._timeout = timeout
        self._clock = clock
        self._keys: dict[str, jwt.PyJWK] = {}
        self._fetched_at = float("-inf")
        self._lock = asyncio.Lock()

    async def key(self, kid: str) -> jwt.PyJWK | None:
        stale = self._clock.now() - self._fetched_at > MAX_KEYS_AGE_SECONDS
        if kid not in self._keys or stale:
            async with self._lock:
                since = self._clock.now() - self._fetched_at
                if (kid not in self._keys and since >= MIN_REFETCH_SECONDS) or stale:
                    self._keys = await self._fetch()
                    self._fetched_at = self._clock.now()
        return self._keys.get(kid)

    async def refresh(self) -> dict[str, jwt.PyJWK]:
        async with self._lock:
            self._keys = await self._fetch()
            self._fetched_at = self._clock.now()
        return self._keys

    async def _fetch(self) -> dict[str, jwt.PyJWK]:
        try:
            if self._file is not None:
                document = orjson.loads(await asyncio.to_thread(self._file.read_bytes))
            else:
                async with httpx.AsyncClient(timeout=self._timeout) as client:
                    response = await client.get(self._url)
                    response.raise_for_status()
                    document = response.json()
            keys = jwt.PyJWKSet.from_dict(document).keys
        except (OSError, ValueError, httpx.HTTPError, jwt.PyJWKSetError) as exc:
            raise InternalError(
                data={"reason": "the identity provider's keys are unavailable"}
            ) from exc
        return {key.key_id: key for key in keys if key.key_id}


class JWTVerifier:
    def __init__(self, settings: Settings, clock: Clock) -> None:
        self._issuer = settings.jwt_issuer
        self._audience = settings.jwt_audience
        self._algorithms = [alg for alg in settings.jwt_algorithms if alg in ASYMMETRIC]
        self._leeway = settings.jwt_leeway_seconds
        self._plan_claim = settings.jwt_plan_claim.split(".")
        self._plan_values = dict(item.split("=", 1) for item in settings.jwt_plan_values)
        self._clock = clock
        self._jwks = JWKSSource(
            settings.jwt_jwks_url, settings.jwt_jwks_file, settings.redis_timeout_seconds * 2, clock
        )

    async def key_count(self) -> int:
        """Fetch the JWKS now; how many signing keys it holds (for ``doctor``)."""
        return len(await self._jwks.refresh())

    async def verify(self, token: str) -> Principal:
        try:
            header = jwt.get_unverified_header(token)
        except jwt.InvalidTokenError:
            raise Unauthorized(data={"reason": "malformed token"}) from None
        algorithm = header.get("alg")
        if algorithm not in self._algorithms:
            raise Unauthorized(data={"reason": f"algorithm {algorithm!r} is not accepted"})
        key = await self._jwks.key(str(header.get("kid", "")))
        if key is None:
            raise Unauthorized(data={"reason": "unknown signing key"})
        try:
            claims: dict[str, Any] = jwt.decode(
                token,
                key,
                algorithms=[algorithm],
                audience=self._audience,
                issuer=self._issuer,
                options={
                    "verify_exp": False,
                    "verify_nbf": False,
                    "verify_iat": False,
                    "require": ["exp", "sub", "iss", "aud"],
                },
            )
        except jwt.InvalidTokenError as exc:
            raise Unauthorized(data={"reason": _reason(exc)}) from None
        self._check_times(claims)
        subject = claims["sub"]
        if not isinstance(subject, str) or not subject:
            raise Unauthorized(data={"reason": "the token has no subject"})
        return Principal(
            user_id=subject,
            plan=self._plan(claims),
            token_id=hash_token(token),
            issuer=self._issuer,
        )

    def _check_times(self, claims: dict[str, Any]) -> None:
        now = self._clock.now()
        expires = _numeric_date(claims, "exp")
        not_before = _numeric_date(claims, "nbf")
        _numeric_date(claims, "iat")
        if expires is None:
            raise Unauthorized(data={"reason": "missing claim 'exp'"})
        if not_before is None:
            not_before = now
        if expires + self._leeway <= now:
            raise Unauthorized(data={"reason": "token expired"})
        if not_before - self._leeway > now:
            raise Unauthorized(data={"reason": "token not yet valid"})

    def _plan(self, claims: dict[str, Any]) -> Plan:
        """The claim's value (or the first recognised one of a list), mapped; else free."""
        value: Any = claims
        for name in self._plan_claim:
            value = value.get(name) if isinstance(value, dict) else None
        candidates = value if isinstance(value, list) else [value]
        for candidate in candidates:
            if not isinstance(candidate, str):
                continue
            plan = self._plan_values.get(candidate, candidate)
            for known in PLANS:
                if plan == known:
                    return known
        return "free"


def _numeric_date(claims: dict[str, Any], name: str) -> float | None:
    """RFC 7519 NumericDate: a JSON number, here also finite and within the years
    0001-9999 (``"inf"``, ``NaN`` and ``1e400`` never expire otherwise)."""
    if name not in claims:
        return None
    value = claims[name]
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise Unauthorized(data={"reason": f"claim {name!r} is not a number"})
    if isinstance(value, float) and not math.isfinite(value):
        raise Unauthorized(data={"reason": f"claim {name!r} is not a finite number"})
    if not -MAX_NUMERIC_DATE <= value <= MAX_NUMERIC_DATE:
        raise Unauthorized(data={"reason": f"claim {name!r} is out of range"})
    return float(value)


def _reason(exc: jwt.InvalidTokenError) -> str:
    if isinstance(exc, jwt.InvalidIssuerError):
        return "wrong issuer"
    if isinstance(exc, jwt.InvalidAudienceError):
        return "wrong audience"
    if isinstance(exc, jwt.InvalidSignatureError):
        return "bad signature"
    if isinstance(exc, jwt.MissingRequiredClaimError):
        return f"missing claim {exc.claim!r}"
    return "invalid token"
