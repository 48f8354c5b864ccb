"""CORS for the endpoint, set on every response (errors included), not by a
middleware: a browser page must be able to read a 401, 403 or 429 too."""

from __future__ import annotations

ALLOW_METHODS = "POST, OPTIONS"
ALLOW_HEADERS = "Content-Type, Authorization"
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

    def preflight(self, origin: str | None) -> dict[str, str]:
        headers = self.headers(origin)
        if "Access-Control-Allow-Origin" in headers:
            headers["Access-Control-Allow-Methods"] = ALLOW_METHODS
            headers["Access-Control-Allow-Headers"] = ALLOW_HEADERS
            headers["Access-Control-Max-Age"] = self._max_age
        return headers
