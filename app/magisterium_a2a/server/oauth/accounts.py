"""Who may sign in to the built-in authorization server: the holders of the
operator's API tokens (and, in development mode, the demo users).

A session is bound to the API token it was opened with: every use of its
access or refresh tokens asks whether that API token still stands, so
``tokens revoke`` (from any process, with either store) ends the session too.
"""

from __future__ import annotations

from magisterium_a2a.server.clock import Clock
from magisterium_a2a.server.identity import hash_token
from magisterium_a2a.server.oauth.store import Account
from magisterium_a2a.server.tokens import DEMO_TOKENS, TokenStore


class OperatorAccounts:
    def __init__(self, tokens: TokenStore, clock: Clock, *, demo: bool) -> None:
        self._tokens = tokens
        self._clock = clock
        self._demo = (
            {hash_token(token): (token, plan) for token, plan in DEMO_TOKENS.items()}
            if demo
            else {}
        )

    async def sign_in(self, api_token: str) -> Account | None:
        if not api_token or len(api_token) > 512:
            return None
        token_id = hash_token(api_token)
        demo = self._demo.get(token_id)
        if demo is not None:
            return Account(user_id=demo[0], plan=demo[1], api_token_id=token_id)
        record = await self._tokens.get(token_id)
        if record is None or (
            record.expires_at is not None and record.expires_at <= self._clock.now()
        ):
            return None
        return Account(
            user_id=record.user_id,
            plan=record.plan,
            api_token_id=token_id,
            per_minute=record.per_minute,
            qa_per_minute=record.qa_per_minute,
        )

    async def alive(self, account: Account) -> bool:
        if account.api_token_id in self._demo:
            return True
        record = await self._tokens.get(account.api_token_id)
        return record is not None and (
            record.expires_at is None or record.expires_at > self._clock.now()
        )
