"""The built-in authorization server as the routes and the authenticator use it.

Each operation runs authlib in a worker thread (see ``server``); the checks
of an access token at the endpoint run on the event loop, straight on the
store: the access token's record, its grant (ended by reuse or revocation),
and the API token the user signed in with (ended by ``tokens revoke``).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import urlencode

from authlib.oauth2.rfc6749 import InsecureTransportError, OAuth2Error
from redis.exceptions import RedisError

from magisterium_a2a.server.oauth.csrf import CSRF, Form
from magisterium_a2a.server.oauth.discovery import (
    AuthorizationServerMetadata,
    OAuthConfig,
    authorization_server_metadata,
)
from magisterium_a2a.server.oauth.server import (
    Accounts,
    Answer,
    AuthorizationServer,
    Clock,
    FormRequest,
    json_request,
)
from magisterium_a2a.server.oauth.store import ACCESS_PREFIX, Account, OAuthStore, digest
from magisterium_a2a.server.oauth.throttle import Limit, Throttle, address_key
from magisterium_a2a.server.observability import clip

T = TypeVar("T")
HOUR = 3600
FAILURE_WINDOW = 600
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Consent:
    """A valid authorization request, waiting for the user's decision."""

    request: FormRequest
    grant: Any
    client_name: str | None
    client_id: str
    redirect_uri: str | None
    scope: str


class StoreUnavailable(Exception):
    """The store did not answer: the request may be tried again later (HTTP 503)."""


def looks_like_access_token(token: str) -> bool:
    return token.startswith(ACCESS_PREFIX)


def insecure(description: str = "OAuth needs https (or a loopback address).") -> Answer:
    return Answer(400, {"error": "insecure_transport", "error_description": description}, [])


class OAuthService:
    def __init__(
        self, store: OAuthStore, config: OAuthConfig, clock: Clock, accounts: Accounts
    ) -> None:
        self.store = store
        self.config = config
        self.clock = clock
        self.accounts = accounts
        self.server = AuthorizationServer(store, config, clock, accounts)
        self.metadata: AuthorizationServerMetadata = authorization_server_metadata(config)
        self.throttle = Throttle(store, clock)
        self.csrf = CSRF(store, clock)

    async def _run(self, work: Callable[[], T]) -> T:
        self.server.bridge.loop = asyncio.get_running_loop()
        try:
            return await asyncio.to_thread(work)
        except (RedisError, OSError, TimeoutError) as exc:
            raise StoreUnavailable from exc

    def form_request(
        self,
        method: str,
        path: str,
        headers: Mapping[str, str],
        query: list[tuple[str, str]],
        form: list[tuple[str, str]],
    ) -> FormRequest:
        """authlib's view of a request; raises InsecureTransportError on plain http."""
        uri = self.config.url(path) + ("?" + urlencode(query) if query else "")
        return FormRequest(method, uri, headers, query, form)

    # --- the authorization endpoint -------------------------------------------

    async def consent(self, request: FormRequest) -> Consent | Answer:
        """Validate an authorization request: what to ask the user, or the error answer
        (a redirect to the client when its redirect URI is known, else a 400)."""

        def work() -> Consent | Answer:
            try:
                grant = self.server.get_consent_grant(request)
            except OAuth2Error as error:
                answer: Answer = self.server.handle_error_response(request, error)
                return answer
            client = request.client
            return Consent(
                request=request,
                grant=grant,
                client_name=client.record.client_name,
                client_id=client.get_client_id(),
                redirect_uri=grant.redirect_uri,
                scope=request.scope,
            )

        return await self._run(work)

    async def decide(self, consent: Consent, account: Account | None) -> Answer:
        """Redirect to the client with a code (approved) or ``access_denied`` (None)."""

        def work() -> Answer:
            answer: Answer = self.server.create_authorization_response(
                consent.request, grant_user=account, grant=consent.grant
            )
            return answer

        return await self._run(work)

    # --- token, revocation, registration --------------------------------------

    async def token(self, request: FormRequest) -> Answer:
        def work() -> Answer:
            answer: Answer = self.server.create_token_response(request)
            return answer

        return await self._run(work)

    async def revoke(self, request: FormRequest) -> Answer:
        def work() -> Answer:
            answer: Answer = self.server.create_endpoint_response("revocation", request)
            return answer

        return await self._run(work)

    async def register(self, headers: Mapping[str, str], document: Any, address: str) -> Answer:
        """RFC 7591 registration, after the flood limits: the address' own first
        (its refused attempts count against it alone), then the overall cap, which
        only accepted registrations count, so no one can shut registration off."""
        config = self.config
        try:
            retry = await self.throttle.take(
                Limit("registrations", HOUR, config.registrations_per_hour_per_address),
                address_key(address),
            ) or await self.throttle.over(self._all_registrations, "*")
        except (RedisError, OSError, TimeoutError) as exc:
            raise StoreUnavailable from exc
        if retry is not None:
            body = {
                "error": "invalid_request",
                "error_description": "too many client registrations; try again later",
            }
            return Answer(429, body, [("Retry-After", str(retry))])
        if not isinstance(document, dict):
            body = {
                "error": "invalid_client_metadata",
                "error_description": "the body is a JSON object of client metadata",
            }
            return Answer(400, body, [])
        try:
            request = json_request(self.config.url("/oauth/register"), headers, document)
        except InsecureTransportError:
            return insecure()

        def work() -> Answer:
            answer: Answer = self.server.create_endpoint_response("client_registration", request)
            return answer

        answer = await self._run(work)
        if answer.status == 201:
            await self._guard(self.throttle.count(self._all_registrations, "*"))
        return answer

    # --- the login page: approvals and failed sign-ins ----------------------------

    async def approve(
        self, consent: Consent, account: Account, address: str, form: Form | None = None
    ) -> Answer:
        """A code for ``account``, unless it or the address obtained too many lately
        (HTTP 429, shown to the user on a page; the client is not redirected to), or
        the login ``form`` it came from was used before (400)."""
        config = self.config
        limits = (
            (Limit("approvals", 60, config.approvals_per_minute), digest(account.user_id)),
            (
                Limit("approvals-address", 60, config.approvals_per_minute_per_address),
                address_key(address),
            ),
        )
        over = [
            (limit, count)
            for limit, who in limits
            if (count := await self._guard(self.throttle.count(limit, who))) > limit.most
        ]
        if over:
            if any(count == limit.most + 1 for limit, count in over):
                # Once per window, not once per refusal: a flood is one line.
                log.warning(
                    "OAuth approvals throttled: user=%s address=%s", clip(account.user_id), address
                )
            retry = max(self.throttle.retry_after(limit) for limit, _ in over)
            body = {
                "error": "temporarily_unavailable",
                "error_description": "Too many sign-ins in a short time: wait a minute and "
                "start again from the app.",
            }
            return Answer(429, body, [("Retry-After", str(retry))])
        if form is not None and not await self._guard(self.csrf.spend(form)):
            body = {
                "error": "invalid_request",
                "error_description": "This form was already sent. Start again from the app.",
            }
            return Answer(400, body, [])
        return await self.decide(consent, account)

    async def sign_in_blocked(self, address: str) -> int | None:
        """Retry-After seconds while the address has used up its failed sign-ins."""
        return await self._guard(self.throttle.over(self._failures, address_key(address)))

    async def sign_in_failed(self, address: str, client_id: str) -> None:
        """Count and log a wrong API token on the login page (never the token itself)."""
        count = await self._guard(self.throttle.count(self._failures, address_key(address)))
        log.warning(
            "OAuth sign-in refused: unknown, revoked or expired API token "
            "(address=%s client=%s, %d in this window)",
            address,
            clip(client_id),
            count,
        )

    @property
    def _failures(self) -> Limit:
        return Limit("sign-in-failures", FAILURE_WINDOW, self.config.sign_in_failures_per_address)

    @property
    def _all_registrations(self) -> Limit:
        return Limit("registrations-all", HOUR, self.config.registrations_per_hour)

    @staticmethod
    async def _guard(work: Awaitable[T]) -> T:
        try:
            return await work
        except (RedisError, OSError, TimeoutError) as exc:
            raise StoreUnavailable from exc

    # --- at the A2A endpoint ----------------------------------------------------

    async def sign_in(self, api_token: str) -> Account | None:
        try:
            return await self.accounts.sign_in(api_token)
        except (RedisError, OSError, TimeoutError) as exc:
            raise StoreUnavailable from exc

    async def verify(self, token: str) -> Account | None:
        """The account an access token acts for, if it is valid now."""
        record = await self.store.token(token, "access")
        if record is None or record.expires_at <= self.clock.now():
            return None
        grant = await self.store.grant(record.grant_id)
        if grant is None or grant.resource != self.config.resource:
            return None
        if not await self.accounts.alive(grant.account):
            return None
        return grant.account
