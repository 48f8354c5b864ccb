"""The playground's routes: the page at ``/`` and its files under ``/playground/``."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from importlib import resources
from urllib.parse import urlsplit

from fastapi import APIRouter, Request, Response

PAGE = "index.html"
ASSET_PREFIX = "/playground/"
MEDIA_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
}


@dataclass(frozen=True)
class Asset:
    body: bytes
    media_type: str
    etag: str


def _assets() -> dict[str, Asset]:
    """Every file of ``static/``, by name: the only paths served (no path is
    ever joined from a request, so nothing outside the folder can be asked for)."""
    assets: dict[str, Asset] = {}
    for entry in resources.files(__package__).joinpath("static").iterdir():
        suffix = "." + entry.name.rpartition(".")[2]
        if not entry.is_file() or suffix not in MEDIA_TYPES:
            continue
        body = entry.read_bytes()
        etag = '"' + hashlib.sha256(body).hexdigest()[:20] + '"'
        assets[entry.name] = Asset(body, MEDIA_TYPES[suffix], etag)
    return assets


def content_security_policy(public_url: str) -> str:
    """The page may call its own origin and the public URL's (the card's
    endpoint and the OAuth server live there); nothing else, from anywhere."""
    parts = urlsplit(public_url)
    connect = "'self'"
    if parts.scheme in ("http", "https") and parts.netloc:
        connect += f" {parts.scheme}://{parts.netloc}"
    return (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
        f"connect-src {connect}; form-action 'none'; frame-ancestors 'none'; base-uri 'none'"
    )


def build_router(public_url: str) -> APIRouter:
    assets = _assets()
    page = assets[PAGE]
    # X-Content-Type-Options is the guard's, on every response (guard.py); the page
    # sets its own CSP, which the guard then leaves alone.
    common = {"Cache-Control": "no-cache", "Referrer-Policy": "no-referrer"}
    page_headers = {
        **common,
        "Content-Security-Policy": content_security_policy(public_url),
        "X-Frame-Options": "DENY",
    }
    router = APIRouter()

    def answer(request: Request, asset: Asset, headers: dict[str, str]) -> Response:
        headers = {**headers, "ETag": asset.etag}
        if request.headers.get("if-none-match") == asset.etag:
            return Response(status_code=304, headers=headers)
        return Response(asset.body, media_type=asset.media_type, headers=headers)

    @router.api_route("/", methods=["GET", "HEAD"], include_in_schema=False)
    async def playground(request: Request) -> Response:
        return answer(request, page, page_headers)

    @router.api_route(ASSET_PREFIX + "{name}", methods=["GET", "HEAD"], include_in_schema=False)
    async def asset(request: Request, name: str) -> Response:
        found = assets.get(name)
        if found is None or name == PAGE:
            return Response(
                b'{"detail":"Not Found"}', status_code=404, media_type="application/json"
            )
        return answer(request, found, common)

    return router
