"""The authenticator: an ``Authorization`` header in, a paying principal out.

Opaque tokens are looked up in the token store (``tokens``), JWTs from an
external provider verified by ``oidc``, access tokens of the built-in OAuth
server by ``oauth``, and the demo tokens of development mode answered from
memory.
"""

from __future__ import annotations

from cachetools import TTLCache

from magisterium_a2a.server.clock import Clock
from magisterium_a2a.server.errors import PlanRequired, Unauthorized
from magisterium_a2a.server.identity import PAID_PLANS, Principal, hash_token
from magisterium_a2a.server.oauth.service import OAuthService, looks_like_access_token
from magisterium_a2a.server.oidc import JWTVerifier
from magisterium_a2a.server.tokens import DEMO_TOKENS, TokenStore


def looks_like_jwt(token: str) -> bool:
    """A compact JWS (three base64url parts, a JSON header); opaque tokens never are."""
    return token.count(".") == 2 and token.startswith("eyJ")


class Authenticator:
    """Turns an ``Authorization`` header into a paying principal, or raises.

    Token records are cached for ``cache_seconds`` (a store round trip costs
    as much as the rest of a request); revocation still applies at once
    through the marker each request checks (see ``RedisTokenStore``).
    """

    def __init__(
        self,
        tokens: TokenStore,
        clock: Clock,
        *,
        demo_tokens: bool = False,
        cache_seconds: float = 0,
        cache_size: int = 10_000,
        jwt: JWTVerifier | None = None,
        oauth: OAuthService | None = None,
    ) -> None:
        self._jwt = jwt
        self._oauth = oauth
        self._tokens = tokens
        self._clock = clock
        self._demo = (
            {
                token: Principal(user_id=token, plan=plan, token_id=hash_token(token))
                for token, plan in DEMO_TOKENS.items()
            }
            if demo_tokens
            else {}
        )
        self._cache: TTLCache[str, tuple[Principal, float | None]] | None = (
            TTLCache(cache_size, cache_seconds) if cache_seconds > 0 else None
        )

    async def identify(self, authorization: str | None) -> Principal:
        """The principal of a valid token, whatever its plan; else Unauthorized."""
        token = _bearer(authorization)
        demo = self._demo.get(token)
        if demo is not None:
            return demo
        if self._jwt is not None and looks_like_jwt(token):
            return await self._jwt.verify(token)
        if self._oauth is not None and looks_like_access_token(token):
            return await self._access_token(self._oauth, token)
        token_hash = hash_token(token)
        entry = self._cache.get(token_hash) if self._cache is not None else None
        if entry is None:
            record = await self._tokens.get(token_hash)
            if record is None:
                raise Unauthorized(data={"reason": "unknown or revoked token"})
            entry = (record.principal(token_hash, cached=False), record.expires_at)
            if self._cache is not None:
                self._cache[token_hash] = (record.principal(token_hash, cached=True), entry[1])
        principal, expires_at = entry
        if expires_at is not None and expires_at <= self._clock.now():
            raise Unauthorized(data={"reason": "token expired"})
        return principal

    async def _access_token(self, oauth: OAuthService, token: str) -> Principal:
        """The signed-in user of a built-in access token: the same user (and so the
        same tasks and limits) as the API token they signed in with."""
        account = await oauth.verify(token)
        if account is None:
            raise Unauthorized(data={"reason": "unknown, expired or revoked access token"})
        return Principal(
            user_id=account.user_id,
            plan=account.plan,
            per_minute=account.per_minute,
            qa_per_minute=account.qa_per_minute,
            token_id=hash_token(token),
        )

    async def confirm(self, principal: Principal) -> None:
        """Raise Unauthorized if a cached principal's token was revoked meanwhile."""
        if principal.cached and await self._tokens.revoked(principal.owner, principal.token_id):
            raise Unauthorized(data={"reason": "token revoked"})

    async def authenticate(self, authorization: str | None) -> Principal:
        """The principal of a valid token on a paid plan."""
        principal = await self.identify(authorization)
        if principal.plan not in PAID_PLANS:
            await self.confirm(principal)
            raise PlanRequired(
                data={"plan": principal.plan, "required": sorted(PAID_PLANS)},
            )
        return principal


def _bearer(authorization: str | None) -> str:
    if not authorization:
        raise Unauthorized(data={"reason": "missing Authorization header"})
    scheme, _, token = authorization.strip().partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token or " " in token:
        raise Unauthorized(data={"reason": "expected 'Authorization: Bearer <token>'"})
    return token
