"""Delegation: the operator's identity provider is the authorization server.

At start-up the server reads the provider's metadata (RFC 8414, or OpenID
Connect discovery) once, to name its endpoints in the agent card and to find
its signing keys; the issuer in the document must be the one configured
(RFC 8414 section 3.3), so a wrong URL fails loudly rather than trusting the
wrong keys.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit, urlunsplit

import httpx
from pydantic import BaseModel, ConfigDict, ValidationError


class ProviderMetadata(BaseModel):
    model_config = ConfigDict(extra="allow")

    issuer: str
    authorization_endpoint: str | None = None
    token_endpoint: str | None = None
    jwks_uri: str | None = None
    scopes_supported: list[str] | None = None


@dataclass(frozen=True)
class Provider:
    """The operator's provider: its metadata and the URL it was read from."""

    metadata: ProviderMetadata
    url: str


class DiscoveryError(Exception):
    """The provider's metadata could not be read or does not match the issuer."""


def metadata_urls(issuer: str) -> list[str]:
    """RFC 8414 section 3.1 (well-known segment before the path), then OIDC discovery."""
    parts = urlsplit(issuer)
    path = parts.path.rstrip("/")
    rfc8414 = urlunsplit(
        (parts.scheme, parts.netloc, "/.well-known/oauth-authorization-server" + path, "", "")
    )
    oidc = issuer.rstrip("/") + "/.well-known/openid-configuration"
    return [rfc8414, oidc]


async def discover(issuer: str, wait_seconds: float) -> Provider:
    problems: list[str] = []
    async with httpx.AsyncClient(timeout=wait_seconds) as client:
        for url in metadata_urls(issuer):
            try:
                response = await client.get(url)
            except httpx.HTTPError as exc:
                problems.append(f"{url}: {type(exc).__name__}")
                continue
            if response.status_code != 200:
                problems.append(f"{url}: HTTP {response.status_code}")
                continue
            try:
                metadata = ProviderMetadata.model_validate_json(response.content)
            except ValidationError:
                problems.append(f"{url}: not a metadata document")
                continue
            if metadata.issuer.rstrip("/") != issuer.rstrip("/"):
                raise DiscoveryError(
                    f"{url} names issuer {metadata.issuer!r}, not {issuer!r} (RFC 8414 3.3)"
                )
            return Provider(metadata, url)
    raise DiscoveryError("no metadata for " + issuer + ": " + "; ".join(problems))
