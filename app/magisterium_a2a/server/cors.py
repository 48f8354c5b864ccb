"""CORS for the endpoint, set on every response (errors included), not by a
middleware: a browser page must be able to read a 401, 403 or 429 too."""

from __future__ import annotations

ALLOW_METHODS = "POST, OPTIONS"
ALLOW_HEADERS = "Content-Type, Authorization"
A2A_HEADERS = ("A2A-Version", "A2A-Extensions")
"""A2A 1.0's request headers (section 14.2): allowed when a preflight asks for
them, so that the hosted dialect's preflight answer stays exactly the hosted one."""
CARD_MAX_AGE = "86400"
EXPOSE_HEADERS = (
    "Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, X-Request-ID, "
    "WWW-Authenticate"
)


class CorsPolicy:
    def __init__(self, origins: list[str], max_age: int) -> None:
        self._any = "*" in origins
        self._origins = frozenset(origins)
        self._max_age = str(max_age)

    def headers(self, origin: str | None) -> dict[str, str]:
        """Headers for an actual (non-preflight) response."""
        if self._any:
            return {
                "Access-Control-Allow-Origin": "*",
                "Access-Control-Expose-Headers": EXPOSE_HEADERS,
            }
        headers = {"Vary": "Origin"}
        if origin is not None and origin in self._origins:
            headers["Access-Control-Allow-Origin"] = origin
            headers["Access-Control-Expose-Headers"] = EXPOSE_HEADERS
        return headers

    def preflight(self, origin: str | None, requested: str | None = None) -> dict[str, str]:
        headers = self.headers(origin)
        if "Access-Control-Allow-Origin" in headers:
            headers["Access-Control-Allow-Methods"] = ALLOW_METHODS
            headers["Access-Control-Allow-Headers"] = _allowed(ALLOW_HEADERS, requested)
            headers["Access-Control-Max-Age"] = self._max_age
        return headers


def card_preflight() -> dict[str, str]:
    """The agent card is public: any page may fetch it, with A2A's headers."""
    return {
        "Access-Control-Allow-Origin": "*",
        "Access-Control-Allow-Methods": "GET, OPTIONS",
        "Access-Control-Allow-Headers": ", ".join(A2A_HEADERS),
        "Access-Control-Max-Age": CARD_MAX_AGE,
    }


def _allowed(base: str, requested: str | None) -> str:
    if requested is not None and "a2a-" in requested.lower():
        return ", ".join((base, *A2A_HEADERS))
    return base
