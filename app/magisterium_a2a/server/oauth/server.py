"""authlib's authorization server, on this server's store, clock and accounts.

authlib is synchronous; the store is asyncio Redis. Each OAuth request runs
authlib in a worker thread (``asyncio.to_thread``) and authlib's storage hooks
hand their coroutines back to the event loop (``Bridge``), so the protocol
logic — client authentication, redirect-URI checks, PKCE, error responses —
stays authlib's and only storage and policy are written here.
"""

from __future__ import annotations

import asyncio
import hmac
import ipaddress
import logging
import re
import secrets
from collections import defaultdict
from collections.abc import Coroutine, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple, Protocol, TypeVar

from authlib.oauth2 import AuthorizationServer as _AuthorizationServer
from authlib.oauth2.rfc6749 import (
    AuthorizationCodeMixin,
    ClientMixin,
    InvalidRequestError,
    JsonPayload,
    JsonRequest,
    OAuth2Error,
    OAuth2Payload,
    OAuth2Request,
    TokenMixin,
    grants,
    list_to_scope,
    scope_to_list,
)
from authlib.oauth2.rfc6750 import BearerTokenGenerator
from authlib.oauth2.rfc7009 import RevocationEndpoint
from authlib.oauth2.rfc7591 import (
    ClientRegistrationEndpoint,
    InvalidClientMetadataError,
    InvalidRedirectURIError,
)
from authlib.oauth2.rfc7636 import CodeChallenge

from magisterium_a2a.server.oauth.discovery import (
    CLIENT_AUTH_METHODS,
    SCOPE,
    SCOPES,
    OAuthConfig,
    authorization_server_metadata,
)
from magisterium_a2a.server.oauth.store import (
    ACCESS_PREFIX,
    CLIENT_PREFIX,
    CODE_PREFIX,
    REFRESH_PREFIX,
    Account,
    ClientRecord,
    CodeRecord,
    GrantRecord,
    OAuthStore,
    TokenRecord,
    digest,
    new_secret,
)

log = logging.getLogger(__name__)
T = TypeVar("T")

MAX_REDIRECT_URIS = 10
MAX_URI_LENGTH = 2000
MAX_NAME_LENGTH = 200
CODE_MARGIN_SECONDS = 30
"""A code's record outlives the code by this much (clock skew between replicas)."""
LOOPBACK_NAMES = frozenset({"localhost"})


class Clock(Protocol):
    def now(self) -> float: ...


class Accounts(Protocol):
    """Where sign-ins are checked: the operator's API tokens (and demo users)."""

    async def sign_in(self, api_token: str) -> Account | None:
        """The account an API token stands for, if it is valid now."""

    async def alive(self, account: Account) -> bool:
        """Whether the API token the account signed in with still stands."""


class InvalidTargetError(OAuth2Error):  # type: ignore[misc]
    """RFC 8707 section 2: a ``resource`` this server does not protect."""

    error = "invalid_target"


@dataclass(frozen=True)
class Answer:
    """An HTTP answer from authlib: status, body (a dict, or '' for redirects), headers."""

    status: int
    body: dict[str, Any] | str
    headers: list[tuple[str, str]]

    @property
    def location(self) -> str | None:
        return next((v for k, v in self.headers if k.lower() == "location"), None)


class Bridge:
    """Runs the store's coroutines on the event loop from authlib's worker thread."""

    def __init__(self) -> None:
        self.loop: asyncio.AbstractEventLoop | None = None

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        assert self.loop is not None, "Bridge.run outside a request"
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout=30)


# --- requests as authlib reads them -------------------------------------------


class FormPayload(OAuth2Payload):  # type: ignore[misc]
    def __init__(self, items: list[tuple[str, str]]) -> None:
        self._data: dict[str, str] = {}
        self._datalist: defaultdict[str, list[str]] = defaultdict(list)
        for key, value in items:
            self._data.setdefault(key, value)
            self._datalist[key].append(value)

    @property
    def data(self) -> dict[str, str]:
        return self._data

    @property
    def datalist(self) -> defaultdict[str, list[str]]:
        return self._datalist


class FormRequest(OAuth2Request):  # type: ignore[misc]
    """A query string and/or form body, already read by the async route."""

    def __init__(
        self,
        method: str,
        uri: str,
        headers: Mapping[str, str],
        query: list[tuple[str, str]],
        form: list[tuple[str, str]],
    ) -> None:
        super().__init__(method, uri, headers=headers)
        self._args = dict(query)
        self._form: dict[str, str] = {}
        for key, value in form:
            self._form.setdefault(key, value)
        self.payload = FormPayload(query + form)
        self.resource: str | None = None

    @property
    def args(self) -> dict[str, str]:
        return self._args

    @property
    def form(self) -> dict[str, str]:
        return self._form


class DocumentPayload(JsonPayload):  # type: ignore[misc]
    def __init__(self, data: dict[str, Any]) -> None:
        self._data = data

    @property
    def data(self) -> dict[str, Any]:
        return self._data


def json_request(uri: str, headers: Mapping[str, str], data: dict[str, Any]) -> JsonRequest:
    request = JsonRequest("POST", uri, headers)
    request.payload = DocumentPayload(data)
    return request


# --- models as authlib reads them ---------------------------------------------


def is_loopback(host: str | None) -> bool:
    if host is None:
        return False
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


# A redirect URI as this server accepts it: RFC 3986 characters only, no userinfo,
# no fragment, and a host of letters, digits, dots and hyphens (or an IPv6 literal).
# Within this grammar every parser reads the same host: a browser (WHATWG URL) turns
# ``\`` into ``/``, drops tabs and newlines and takes what precedes ``@`` as userinfo,
# but none of those characters can appear here, so the host is the text between
# ``//`` and the first ``:``, ``/``, ``?`` or the end, for us as for the browser.
_PCHAR = r"(?:[A-Za-z0-9\-._~!$&'()*+,;=:@]|%[0-9A-Fa-f]{2})"
_REDIRECT_URI = re.compile(
    r"(?P<scheme>[a-z][a-z0-9+.\-]*)://"
    r"(?P<host>[A-Za-z0-9.\-]+|\[[0-9A-Fa-f:.]+\])"
    r"(?::(?P<port>[0-9]{1,5}))?"
    rf"(?P<path>(?:/{_PCHAR}*)*)"
    rf"(?:\?(?P<query>(?:{_PCHAR}|[/?])*))?"
)


class RedirectURI(NamedTuple):
    """The parts of a redirect URI that passed ``redirect_uri_problem``."""

    scheme: str
    host: str
    port: str | None
    path: str
    query: str | None

    def text(self, port: str | None) -> str:
        """The URI again, with ``port`` in place of its own."""
        authority = self.host if port is None else f"{self.host}:{port}"
        query = "" if self.query is None else "?" + self.query
        return f"{self.scheme}://{authority}{self.path}{query}"


def parse_redirect_uri(uri: object) -> RedirectURI | None:
    """The URI's parts if it is within the grammar above, else None."""
    if not isinstance(uri, str) or len(uri) > MAX_URI_LENGTH:
        return None
    match = _REDIRECT_URI.fullmatch(uri)
    if match is None:
        return None
    parts = RedirectURI(**match.groupdict())
    if parts.port is not None and not 0 < int(parts.port) <= 65535:
        return None
    if parts.host.startswith("["):
        try:
            ipaddress.IPv6Address(parts.host[1:-1])
        except ValueError:
            return None
    return parts


def redirect_uri_problem(uri: object) -> str | None:
    """Why a redirect URI cannot be registered or used, or None.

    https, or http on a loopback address; RFC 3986 characters only (so no ``\\``,
    space or control character); no userinfo (``user@``) and no fragment.
    """
    if not isinstance(uri, str) or len(uri) > MAX_URI_LENGTH:
        return f"a redirect URI is a string of at most {MAX_URI_LENGTH} characters"
    parts = parse_redirect_uri(uri)
    # Described, never echoed: an error description is ASCII without quote or backslash.
    if parts is None:
        return (
            "not an absolute URI of RFC 3986 characters without userinfo or fragment "
            "(no backslash, space, control or non-ASCII character)"
        )
    if parts.scheme == "https" or (parts.scheme == "http" and is_loopback(parts.host)):
        return None
    return "use https, or http on a loopback address (127.0.0.1, [::1], localhost)"


def redirect_for(registered: str, given: str) -> str | None:
    """The URI to send the user back to when ``given`` names ``registered``: the
    registered URI itself, or for a loopback http URI the same with the port given
    (RFC 8252 section 7.3), built from the registered one's parts. None otherwise."""
    if redirect_uri_problem(registered) is not None or redirect_uri_problem(given) is not None:
        return None
    if registered == given:
        return registered
    a, b = parse_redirect_uri(registered), parse_redirect_uri(given)
    if a is None or b is None or a.scheme != "http" or not is_loopback(a.host):
        return None
    if (a.scheme, a.host, a.path, a.query) != (b.scheme, b.host, b.path, b.query):
        return None
    return a.text(b.port)


def redirect_matches(registered: str, given: str) -> bool:
    """Exact match; for loopback http URIs any port (RFC 8252 section 7.3)."""
    return redirect_for(registered, given) is not None


class Client(ClientMixin):  # type: ignore[misc]
    def __init__(self, record: ClientRecord) -> None:
        self.record = record

    def get_client_id(self) -> str:
        return self.record.client_id

    def get_default_redirect_uri(self) -> str | None:
        uris = self.record.redirect_uris
        return uris[0] if len(uris) == 1 else None

    def get_allowed_scope(self, scope: str | None) -> str:
        allowed = scope_to_list(self.record.scope)
        if not scope:
            return self.record.scope
        return str(list_to_scope([s for s in scope_to_list(scope) if s in allowed]))

    def check_redirect_uri(self, redirect_uri: str) -> bool:
        return self.redirect_for(redirect_uri) is not None

    def redirect_for(self, redirect_uri: str) -> str | None:
        """The registered URI that ``redirect_uri`` names (see ``redirect_for``)."""
        for registered in self.record.redirect_uris:
            found = redirect_for(registered, redirect_uri)
            if found is not None:
                return found
        return None

    def check_client_secret(self, client_secret: str) -> bool:
        stored = self.record.secret_hash
        return stored is not None and hmac.compare_digest(stored, digest(client_secret))

    def check_endpoint_auth_method(self, method: str, endpoint: str) -> bool:
        return method == self.record.token_endpoint_auth_method

    def check_response_type(self, response_type: str) -> bool:
        return response_type in self.record.response_types

    def check_grant_type(self, grant_type: str) -> bool:
        return grant_type in self.record.grant_types


class IssuedCode(AuthorizationCodeMixin):  # type: ignore[misc]
    def __init__(self, record: CodeRecord) -> None:
        self.record = record
        self.code_challenge = record.code_challenge
        self.code_challenge_method = record.code_challenge_method

    def get_redirect_uri(self) -> str | None:
        return self.record.redirect_uri

    def get_scope(self) -> str:
        return self.record.scope


class IssuedToken(TokenMixin):  # type: ignore[misc]
    def __init__(self, value: str, record: TokenRecord, grant: GrantRecord | None) -> None:
        self.value = value
        self.record = record
        self.grant = grant

    def check_client(self, client: Client) -> bool:
        return self.record.client_id == client.get_client_id()

    def get_scope(self) -> str:
        return self.record.scope


# --- grants and endpoints ---------------------------------------------------


class S256Only(CodeChallenge):  # type: ignore[misc]
    """PKCE required on every authorization request, S256 only (``plain`` refused)."""

    SUPPORTED_CODE_CHALLENGE_METHOD = ["S256"]  # noqa: RUF012 - authlib's attribute

    def validate_code_challenge(self, grant: Any, redirect_uri: str) -> None:
        data = grant.request.payload.data
        if not data.get("code_challenge"):
            raise InvalidRequestError("PKCE is required: send code_challenge (S256).")
        if data.get("code_challenge_method") != "S256":
            raise InvalidRequestError("code_challenge_method must be S256.")
        super().validate_code_challenge(grant, redirect_uri)


class CodeGrant(grants.AuthorizationCodeGrant):  # type: ignore[misc]
    TOKEN_ENDPOINT_AUTH_METHODS = CLIENT_AUTH_METHODS
    server: AuthorizationServer

    @staticmethod
    def validate_authorization_redirect_uri(request: FormRequest, client: Client) -> str:
        """The URI the user goes back to, always built from the client's registered
        one (never the request's string), or ``invalid_request`` without a redirect."""
        given = request.payload.redirect_uri
        if not given:
            default = client.get_default_redirect_uri()
            if default is None:
                raise InvalidRequestError("Missing 'redirect_uri' in request.")
            return default
        found = client.redirect_for(given)
        if found is None:
            raise InvalidRequestError("redirect_uri is not one the client registered.")
        return found

    def validate_authorization_request(self) -> str:
        redirect_uri: str = super().validate_authorization_request()
        try:
            self.request.resource = self.server.check_resource(
                self.request.payload.data.get("resource"), self.request.payload.datalist
            )
        except OAuth2Error as error:
            error.redirect_uri = redirect_uri
            raise
        return redirect_uri

    def generate_authorization_code(self) -> str:
        return new_secret(CODE_PREFIX)

    def save_authorization_code(self, code: str, request: FormRequest) -> None:
        server = self.server
        data = request.payload.data
        record = CodeRecord(
            client_id=request.client.get_client_id(),
            redirect_uri=request.payload.redirect_uri,
            scope=request.scope or SCOPE,
            resource=request.resource or server.config.resource,
            code_challenge=data["code_challenge"],
            code_challenge_method=data["code_challenge_method"],
            account=request.user,
            grant_id=secrets.token_hex(16),
            expires_at=server.clock.now() + server.config.code_seconds,
        )
        ttl = server.config.code_seconds + CODE_MARGIN_SECONDS
        server.run(server.store.put_code(code, record, ttl))

    def query_authorization_code(self, code: str, client: Client) -> IssuedCode | None:
        server = self.server
        record = server.run(server.store.code(code))
        if record is None:
            # Spent (its record goes at once) or unknown: a spent one ends its grant.
            spent = server.run(server.store.spent_code_grant(code))
            if spent is not None:
                self._reused(spent)
            return None
        if record.client_id != client.get_client_id():
            return None
        if not server.run(server.store.claim_code(code, record.grant_id)):
            self._reused(record.grant_id)
            return None
        if record.expires_at <= server.clock.now():
            return None
        if not server.run(server.accounts.alive(record.account)):
            return None
        return IssuedCode(record)

    def _reused(self, grant_id: str) -> None:
        """RFC 6749 section 4.1.2: a code used twice revokes what it issued."""
        log.warning("authorization code reused; ending its grant")
        self.server.run(
            self.server.store.end_grant(grant_id, self.server.config.refresh_token_seconds)
        )

    def validate_token_request(self) -> None:
        super().validate_token_request()
        resource = self.request.form.get("resource")
        code: IssuedCode = self.request.authorization_code
        if resource is not None and resource != code.record.resource:
            self.server.check_resource(resource, self.request.payload.datalist)
            raise InvalidTargetError("resource differs from the authorization request's")

    def delete_authorization_code(self, authorization_code: IssuedCode) -> None:
        """Nothing to delete: the code is spent (``claim_code``) and its record stays
        until it is forgotten, so that a second use is recognised and revokes."""

    def authenticate_user(self, authorization_code: IssuedCode) -> Account:
        return authorization_code.record.account


class RefreshGrant(grants.RefreshTokenGrant):  # type: ignore[misc]
    TOKEN_ENDPOINT_AUTH_METHODS = CLIENT_AUTH_METHODS
    INCLUDE_NEW_REFRESH_TOKEN = True
    server: AuthorizationServer

    def authenticate_refresh_token(self, refresh_token: str) -> IssuedToken | None:
        server = self.server
        record = server.run(server.store.token(refresh_token, "refresh"))
        if record is None or record.client_id != self.request.client.get_client_id():
            return None
        if not server.run(server.store.claim_refresh(refresh_token)):
            # Rotation: a refresh token is good once; a second use means it leaked.
            log.warning("refresh token reused; ending its grant")
            server.run(server.store.end_grant(record.grant_id, server.config.refresh_token_seconds))
            return None
        if record.expires_at <= server.clock.now():
            return None
        grant = server.run(server.store.grant(record.grant_id))
        if grant is None or not server.run(server.accounts.alive(grant.account)):
            return None
        return IssuedToken(refresh_token, record, grant)

    def authenticate_user(self, refresh_token: IssuedToken) -> Account | None:
        return None if refresh_token.grant is None else refresh_token.grant.account

    def revoke_old_credential(self, refresh_token: IssuedToken) -> None:
        """Already spent by ``claim_refresh``; its record stays to recognise reuse."""


class Revocation(RevocationEndpoint):  # type: ignore[misc]
    CLIENT_AUTH_METHODS = CLIENT_AUTH_METHODS
    server: AuthorizationServer

    def query_token(self, token_string: str, token_type_hint: str | None) -> IssuedToken | None:
        kinds: list[Literal["access", "refresh"]] = ["access", "refresh"]
        if token_type_hint == "refresh_token":
            kinds.reverse()
        for kind in kinds:
            record = self.server.run(self.server.store.token(token_string, kind))
            if record is not None:
                return IssuedToken(token_string, record, None)
        return None

    def revoke_token(self, token: IssuedToken, request: FormRequest) -> None:
        store = self.server.store
        if token.record.kind == "refresh":
            # RFC 7009 section 2.1: revoking a refresh token ends its access tokens too.
            self.server.run(
                store.end_grant(token.record.grant_id, self.server.config.refresh_token_seconds)
            )
        self.server.run(store.delete_token(token.value, token.record.kind))


class Registration(ClientRegistrationEndpoint):  # type: ignore[misc]
    """Open registration (RFC 7591 section 3), limited per address and overall
    by the route before it gets here."""

    server: AuthorizationServer

    def authenticate_token(self, request: JsonRequest) -> str:
        return "open registration"

    def get_server_metadata(self) -> dict[str, Any]:
        return authorization_server_metadata(self.server.config).model_dump(exclude_none=True)

    def extract_client_metadata(self, request: JsonRequest) -> dict[str, Any]:
        # Redirect URIs first, so that their faults get their own error code
        # (RFC 7591 section 3.2.2) rather than the generic one of the claims check.
        uris = request.payload.data.get("redirect_uris")
        if not isinstance(uris, list) or not uris:
            raise InvalidRedirectURIError("redirect_uris is required (authorization code flow)")
        if len(uris) > MAX_REDIRECT_URIS:
            raise InvalidRedirectURIError(f"at most {MAX_REDIRECT_URIS} redirect URIs")
        for index, uri in enumerate(uris):
            problem = redirect_uri_problem(uri)
            if problem is not None:
                raise InvalidRedirectURIError(f"redirect_uris[{index}]: {problem}")
        metadata: dict[str, Any] = super().extract_client_metadata(request)
        name = metadata.get("client_name")
        if name is not None and (not isinstance(name, str) or len(name) > MAX_NAME_LENGTH):
            raise InvalidClientMetadataError(f"client_name: at most {MAX_NAME_LENGTH} characters")
        metadata.setdefault("grant_types", ["authorization_code"])
        metadata.setdefault("response_types", ["code"])
        metadata.setdefault("scope", SCOPE)
        if "authorization_code" not in metadata["grant_types"]:
            raise InvalidClientMetadataError("grant_types must include authorization_code")
        return metadata

    def generate_client_info(self, request: JsonRequest) -> dict[str, Any]:
        method = request.payload.data.get("token_endpoint_auth_method", "client_secret_basic")
        info: dict[str, Any] = {
            "client_id": CLIENT_PREFIX + secrets.token_urlsafe(24),
            "client_id_issued_at": int(self.server.clock.now()),
        }
        if method != "none":
            info["client_secret"] = secrets.token_urlsafe(32)
            info["client_secret_expires_at"] = 0
        return info

    def save_client(
        self, client_info: dict[str, Any], client_metadata: dict[str, Any], request: JsonRequest
    ) -> Client:
        secret = client_info.get("client_secret")
        record = ClientRecord(
            client_id=client_info["client_id"],
            secret_hash=digest(secret) if secret else None,
            issued_at=client_info["client_id_issued_at"],
            redirect_uris=client_metadata["redirect_uris"],
            token_endpoint_auth_method=client_metadata["token_endpoint_auth_method"],
            grant_types=client_metadata["grant_types"],
            response_types=client_metadata["response_types"],
            client_name=client_metadata.get("client_name"),
            scope=client_metadata["scope"],
        )
        # Kept briefly until it obtains a token (``touch_client`` then keeps it as
        # long as its refresh tokens): a registration nobody uses costs little.
        config = self.server.config
        self.server.run(self.server.store.put_client(record, config.unused_client_seconds))
        return Client(record)


class AuthorizationServer(_AuthorizationServer):  # type: ignore[misc]
    """authlib's server with this server's storage, clock, accounts and responses."""

    def __init__(
        self, store: OAuthStore, config: OAuthConfig, clock: Clock, accounts: Accounts
    ) -> None:
        super().__init__(scopes_supported=list(SCOPES))
        self.store = store
        self.config = config
        self.clock = clock
        self.accounts = accounts
        self.bridge = Bridge()
        self.register_token_generator(
            "default",
            BearerTokenGenerator(
                access_token_generator=lambda **_: new_secret(ACCESS_PREFIX),
                refresh_token_generator=lambda **_: new_secret(REFRESH_PREFIX),
                expires_generator=lambda client, grant_type: config.access_token_seconds,
            ),
        )
        self.register_grant(CodeGrant, [S256Only(required=True)])
        self.register_grant(RefreshGrant)
        self.register_endpoint(Revocation)
        self.register_endpoint(Registration(self))

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        return self.bridge.run(coro)

    def check_resource(self, resource: str | None, datalist: Mapping[str, list[str]]) -> str:
        """RFC 8707: the only resource here is the endpoint (or the server's base URL)."""
        if len(datalist.get("resource", [])) > 1:
            raise InvalidTargetError("one resource at a time")
        if resource is None:
            return self.config.resource
        if resource.rstrip("/") in {self.config.resource, self.config.issuer.rstrip("/")}:
            return self.config.resource
        raise InvalidTargetError(f"this server protects {self.config.resource} only")

    # authlib's hooks -----------------------------------------------------------

    def query_client(self, client_id: str) -> Client | None:
        if not isinstance(client_id, str) or not client_id.startswith(CLIENT_PREFIX):
            return None
        record = self.run(self.store.client(client_id))
        return None if record is None else Client(record)

    def save_token(self, token: dict[str, Any], request: FormRequest) -> None:
        now = self.clock.now()
        config = self.config
        client: Client = request.client
        account: Account = request.user
        if request.authorization_code is not None:
            code: CodeRecord = request.authorization_code.record
            grant_id, scope, resource = code.grant_id, code.scope, code.resource
        else:
            previous: IssuedToken = request.refresh_token
            assert previous.grant is not None
            grant_id = previous.record.grant_id
            scope, resource = previous.grant.scope, previous.grant.resource
        lifetime = config.refresh_token_seconds
        grant = GrantRecord(
            client_id=client.get_client_id(),
            scope=scope,
            resource=resource,
            account=account,
            expires_at=now + lifetime,
        )
        token["scope"] = token.get("scope") or scope
        self.run(self._save(grant_id, grant, token, now))

    async def _save(
        self, grant_id: str, grant: GrantRecord, token: dict[str, Any], now: float
    ) -> None:
        config = self.config
        await self.store.put_grant(grant_id, grant, config.refresh_token_seconds)
        access = TokenRecord(
            kind="access",
            grant_id=grant_id,
            client_id=grant.client_id,
            scope=grant.scope,
            expires_at=now + config.access_token_seconds,
        )
        await self.store.put_token(token["access_token"], access, config.access_token_seconds + 60)
        if "refresh_token" in token:
            refresh = access.model_copy(
                update={"kind": "refresh", "expires_at": now + config.refresh_token_seconds}
            )
            await self.store.put_token(
                token["refresh_token"], refresh, config.refresh_token_seconds
            )
        await self.store.touch_client(grant.client_id, config.refresh_token_seconds)

    def create_oauth2_request(self, request: FormRequest) -> FormRequest:
        return request

    def create_json_request(self, request: JsonRequest) -> JsonRequest:
        return request

    def handle_response(
        self, status: int, body: dict[str, Any] | str, headers: Iterable[tuple[str, str]]
    ) -> Answer:
        return Answer(status, body, list(headers))

    def send_signal(self, name: str, *args: Any, **kwargs: Any) -> None:
        """No signals: nothing here listens to authlib's."""
