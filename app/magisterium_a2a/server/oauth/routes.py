"""HTTP routes of OAuth: the discovery documents, and the authorization,
token, registration and revocation endpoints of the built-in server.

Form bodies are ``application/x-www-form-urlencoded`` (RFC 6749 section 3.2)
and read with a size limit; registration takes JSON (RFC 7591 section 3.1).
The token, registration and revocation endpoints answer the origins of
``A2A_CORS_ORIGINS``, as the A2A endpoint does; the discovery documents, public
like the agent card, any origin. Every HTML page carries the page headers
(``guard.PAGE_HEADERS``). Their read deadline is the guard's, as every route's.
"""

from __future__ import annotations

import hmac
from collections.abc import Callable, Coroutine, Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl

import orjson
from authlib.oauth2.rfc6749 import InsecureTransportError
from fastapi import APIRouter, Request, Response
from fastapi.responses import HTMLResponse
from fastapi.routing import APIRoute

from magisterium_a2a.server.cors import CorsPolicy
from magisterium_a2a.server.guard import PAGE_HEADERS
from magisterium_a2a.server.oauth.csrf import FORM_SECONDS
from magisterium_a2a.server.oauth.discovery import (
    AS_METADATA_PATH,
    AUTHORIZE_PATH,
    PR_METADATA_PATH,
    REGISTER_PATH,
    REVOKE_PATH,
    TOKEN_PATH,
)
from magisterium_a2a.server.oauth.page import error_page, login_page
from magisterium_a2a.server.oauth.server import Answer
from magisterium_a2a.server.oauth.service import (
    Consent,
    OAuthService,
    StoreUnavailable,
    insecure,
)

MAX_FORM_BYTES = 16_384
MAX_FORM_FIELDS = 64
CSRF_COOKIE = "a2a_oauth_csrf"
PAGE_FIELDS = frozenset({"csrf", "decision", "api_token", "demo_plan"})
JSON = "application/json"
OPEN = {"Access-Control-Allow-Origin": "*"}
PREFLIGHT = {
    "Access-Control-Allow-Methods": "GET, POST, OPTIONS",
    "Access-Control-Allow-Headers": "Content-Type, Authorization",
}


@dataclass(frozen=True)
class OAuthSurface:
    """What a server publishes: always the resource document, the rest when built in."""

    resource_metadata: bytes
    resource_metadata_path: str
    server: OAuthService | None

    @property
    def server_metadata(self) -> bytes | None:
        if self.server is None:
            return None
        return self.server.metadata.model_dump_json(exclude_none=True).encode()


class BodyError(Exception):
    """A request body that is too large or not of the expected kind."""


async def _body(request: Request) -> bytes:
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_FORM_BYTES:
            raise BodyError(f"the body is larger than {MAX_FORM_BYTES} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


async def _form(request: Request) -> list[tuple[str, str]]:
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/x-www-form-urlencoded":
        raise BodyError("send application/x-www-form-urlencoded")
    try:
        return parse_qsl(
            (await _body(request)).decode(),
            keep_blank_values=True,
            max_num_fields=MAX_FORM_FIELDS,
        )
    except (UnicodeDecodeError, ValueError) as exc:
        raise BodyError("the form is not valid") from exc


def _json_error(status: int, error: str, description: str, cors: dict[str, str] = OPEN) -> Response:
    body = orjson.dumps({"error": error, "error_description": description})
    return Response(body, status_code=status, media_type=JSON, headers=cors)


def _html(html: str, status: int, headers: Iterable[tuple[str, str]] = ()) -> HTMLResponse:
    """Every page of the login flow: the page headers, and the answer's own (Retry-After)."""
    return HTMLResponse(html, status_code=status, headers={**PAGE_HEADERS, **dict(headers)})


def _answer(answer: Answer, cors: dict[str, str]) -> Response:
    headers = {**dict(answer.headers), **cors}
    if isinstance(answer.body, dict):
        headers.pop("Content-Type", None)
        return Response(
            orjson.dumps(answer.body), status_code=answer.status, media_type=JSON, headers=headers
        )
    return Response(status_code=answer.status, headers=headers)


def _authorize_answer(answer: Answer) -> Response:
    """A redirect back to the client, or (client unknown, URI unsure) a page for the user."""
    if answer.location is not None or not isinstance(answer.body, dict):
        return Response(status_code=answer.status, headers=dict(answer.headers))
    error = str(answer.body.get("error", "invalid_request"))
    page = error_page(answer.status, error, answer.body.get("error_description"))
    # authlib's own headers describe a JSON body: only a Retry-After carries over.
    retry = [(k, v) for k, v in answer.headers if k.lower() == "retry-after"]
    return _html(page, answer.status, retry)


class _Unavailable(APIRoute):
    """Every OAuth route answers 503 (RFC 6749's ``temporarily_unavailable``) while
    the store does not answer, rather than a bare 500."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def guarded(request: Request) -> Response:
            try:
                return await handler(request)
            except StoreUnavailable:
                response = _json_error(
                    503, "temporarily_unavailable", "the store does not answer; try again"
                )
                response.headers["Retry-After"] = "5"
                return response

        return guarded


def build_router(
    surface_of: Callable[[Request], OAuthSurface],
    cors_of: Callable[[Request], CorsPolicy] | None = None,
) -> APIRouter:
    """The routes; ``surface_of`` finds this process' OAuth objects from a request,
    ``cors_of`` its CORS policy (``A2A_CORS_ORIGINS``; any origin without one)."""
    router = APIRouter(route_class=_Unavailable)

    def builtin(request: Request) -> OAuthService | None:
        return surface_of(request).server

    def cors(request: Request) -> dict[str, str]:
        if cors_of is None:
            return OPEN
        return cors_of(request).headers(request.headers.get("origin"))

    def address(request: Request) -> str:
        return request.client.host if request.client else "unknown"

    async def resource_metadata(request: Request) -> Response:
        body = surface_of(request).resource_metadata
        return Response(body, media_type=JSON, headers={**OPEN, "Cache-Control": "max-age=3600"})

    async def resource_metadata_at(request: Request, rest: str) -> Response:
        surface = surface_of(request)
        if request.url.path.rstrip("/") != surface.resource_metadata_path:
            return _json_error(404, "not_found", "no protected resource here")
        return await resource_metadata(request)

    router.add_api_route(PR_METADATA_PATH, resource_metadata, methods=["GET"])
    router.add_api_route(PR_METADATA_PATH + "/{rest:path}", resource_metadata_at, methods=["GET"])

    @router.get(AS_METADATA_PATH)
    async def server_metadata(request: Request) -> Response:
        body = surface_of(request).server_metadata
        if body is None:
            return _json_error(404, "not_found", "this server delegates to another issuer")
        return Response(body, media_type=JSON, headers={**OPEN, "Cache-Control": "max-age=3600"})

    @router.get(AUTHORIZE_PATH)
    async def authorize(request: Request) -> Response:
        service = builtin(request)
        if service is None:
            return _json_error(404, "not_found", "the built-in authorization server is off")
        query = list(request.query_params.multi_items())
        try:
            oauth_request = service.form_request("GET", AUTHORIZE_PATH, request.headers, query, [])
        except InsecureTransportError:
            return _answer(insecure(), cors(request))
        outcome = await service.consent(oauth_request)
        if isinstance(outcome, Answer):
            return _authorize_answer(outcome)
        hint = oauth_request.payload.data.get("login_hint")
        if service.config.login_hint and hint:
            # Test mode: the hint is an API token; approve at once (or deny) and redirect.
            account = await service.sign_in(hint)
            if account is None:
                return _authorize_answer(await service.decide(outcome, None))
            return _authorize_answer(await service.approve(outcome, account, address(request)))
        return await _page(service, outcome, query, None, 200)

    @router.post(AUTHORIZE_PATH)
    async def authorize_decision(request: Request) -> Response:
        service = builtin(request)
        if service is None:
            return _json_error(404, "not_found", "the built-in authorization server is off")
        try:
            items = await _form(request)
        except BodyError as exc:
            return _html(error_page(400, "invalid_request", str(exc)), 400)
        fields = dict(items)
        params = [(k, v) for k, v in items if k not in PAGE_FIELDS]
        cookie = request.cookies.get(CSRF_COOKIE, "")
        csrf = fields.get("csrf", "")
        # The pair must match (double submit), and the token be ours and fresh; the
        # approval spends it (``approve``).
        form = await service.csrf.check(csrf) if cookie else None
        if form is None or not hmac.compare_digest(cookie, csrf):
            problem = "The form expired or was already sent. Start again from the app."
            return _html(error_page(400, "invalid_request", problem), 400)
        try:
            oauth_request = service.form_request("GET", AUTHORIZE_PATH, request.headers, params, [])
        except InsecureTransportError:
            return _answer(insecure(), cors(request))
        outcome = await service.consent(oauth_request)
        if isinstance(outcome, Answer):
            return _authorize_answer(outcome)
        if fields.get("decision") != "approve":
            return _authorize_answer(await service.decide(outcome, None))
        plan = fields.get("demo_plan", "")
        if plan and service.config.demo_plans:
            account = await service.sign_in(f"demo-{plan}")
        else:
            retry = await service.sign_in_blocked(address(request))
            if retry is not None:
                problem = "Too many wrong API tokens from your address: wait and try again."
                page = error_page(429, "temporarily_unavailable", problem)
                return _html(page, 429, [("Retry-After", str(retry))])
            account = await service.sign_in(fields.get("api_token", "").strip())
            if account is None:
                await service.sign_in_failed(address(request), outcome.client_id)
        if account is None:
            problem = "That API token is not valid: unknown, revoked or expired."
            return await _page(service, outcome, params, problem, 400)
        answer = await service.approve(outcome, account, address(request), form)
        return _authorize_answer(answer)

    async def _form_endpoint(request: Request, path: str, kind: str) -> Response:
        service = builtin(request)
        if service is None:
            return _json_error(404, "not_found", "the built-in authorization server is off")
        try:
            items = await _form(request)
            oauth_request = service.form_request("POST", path, request.headers, [], items)
        except BodyError as exc:
            return _json_error(400, "invalid_request", str(exc), cors(request))
        except InsecureTransportError:
            return _answer(insecure(), cors(request))
        if kind == "token":
            return _answer(await service.token(oauth_request), cors(request))
        return _answer(await service.revoke(oauth_request), cors(request))

    @router.post(TOKEN_PATH)
    async def token(request: Request) -> Response:
        return await _form_endpoint(request, TOKEN_PATH, "token")

    @router.post(REVOKE_PATH)
    async def revoke(request: Request) -> Response:
        return await _form_endpoint(request, REVOKE_PATH, "revoke")

    @router.post(REGISTER_PATH)
    async def register(request: Request) -> Response:
        service = builtin(request)
        if service is None:
            return _json_error(404, "not_found", "the built-in authorization server is off")
        allowed = cors(request)
        try:
            document = orjson.loads(await _body(request))
        except BodyError as exc:
            return _json_error(400, "invalid_client_metadata", str(exc), allowed)
        except orjson.JSONDecodeError:
            return _json_error(400, "invalid_client_metadata", "the body is not JSON", allowed)
        answer = await service.register(request.headers, document, address(request))
        return _answer(answer, allowed)

    async def preflight(request: Request) -> Response:
        headers = cors(request)
        if "Access-Control-Allow-Origin" in headers:
            headers = {**headers, **PREFLIGHT, "Access-Control-Max-Age": "600"}
        return Response(status_code=204, headers=headers)

    async def public_preflight(request: Request) -> Response:
        headers = {**OPEN, **PREFLIGHT, "Access-Control-Max-Age": "600"}
        return Response(status_code=204, headers=headers)

    for path in (TOKEN_PATH, REVOKE_PATH, REGISTER_PATH):
        router.add_api_route(path, preflight, methods=["OPTIONS"])
    for path in (AS_METADATA_PATH, PR_METADATA_PATH):
        router.add_api_route(path, public_preflight, methods=["OPTIONS"])
    return router


async def _page(
    service: OAuthService,
    consent: Consent,
    params: list[tuple[str, str]],
    error: str | None,
    status: int,
) -> Response:
    """The sign-in page, with a new single-use CSRF token in the form and the cookie."""
    csrf = await service.csrf.issue()
    html = login_page(
        action=AUTHORIZE_PATH,
        client_name=consent.client_name,
        client_id=consent.client_id,
        redirect_uri=consent.redirect_uri,
        scope=consent.scope,
        params=params,
        csrf=csrf,
        demo_plans=service.config.demo_plans,
        error=error,
    )
    response = _html(html, status)
    response.set_cookie(
        CSRF_COOKIE,
        csrf,
        max_age=FORM_SECONDS,
        path=AUTHORIZE_PATH,
        secure=service.config.issuer.startswith("https://"),
        httponly=True,
        samesite="strict",
    )
    return response
