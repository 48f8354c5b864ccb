"""Protocol dialects: the hosted A2A v0.3 JSON-RPC dialect and A2A 1.0's.

A dialect is how one protocol version names the methods, reads their params and
writes results and errors; the methods themselves (``server.methods``), the
task store and the skills are the same for every dialect. The endpoint chooses
one per request, once, from the ``A2A-Version`` header (A2A 1.0, section 3.6),
or, without the header, from an ``A2A-Version`` request parameter in the query
string (section 3.6.1 lets a client give it either way; the header wins when
both are given): none, or an empty one, is the hosted v0.3 dialect, unchanged;
``1.0`` is A2A 1.0; any other version is refused with 1.0's
``VersionNotSupportedError``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote_plus

from magisterium_a2a.server.errors import RPCError
from magisterium_a2a.server.methods import Method
from magisterium_a2a.server.protocol import JSONRPCRequest, RequestId, Wire

HOSTED = "0.3"
A2A_1_0 = "1.0"
VERSIONS = (A2A_1_0, HOSTED)
"""The versions this server speaks, in the agent card's order of preference."""


@dataclass(frozen=True, slots=True)
class Dialect:
    """One protocol version's side of the endpoint."""

    version: str
    methods: Mapping[str, Method]
    """The methods by the name this dialect gives them."""
    parse: Callable[[type[Wire], Any], Any]
    """Validates a request's params into a method's params model."""
    failure: Callable[[RequestId | None, RPCError], bytes]
    """The JSON of a JSON-RPC error response."""
    code: Callable[[RPCError], int]
    """The code an error has in this dialect (for the request log and metrics)."""
    skill_of: Callable[[JSONRPCRequest], str | None]
    """The skill a raw send request names, before its params are checked."""


VERSION_PARAMETER = "a2a-version"
"""The request parameter's name, compared without regard to case (service
parameter names are case-insensitive, A2A 1.0, section 3.2.6)."""


def version_parameter(query: bytes) -> str | None:
    """The value of the query string's ``A2A-Version`` parameter (its first, if
    repeated, as with a repeated header), or None if it has none.

    ``A2A-Version=1.0`` -> ``"1.0"``; ``a2a-version=`` -> ``""`` (0.3, as an empty
    header is). Percent-escapes and ``+`` are decoded; bytes that are not UTF-8
    become U+FFFD, which ``version_of`` then refuses, as it would in a header.
    """
    if not query:
        return None
    for pair in query.decode("latin-1").split("&"):
        name, _, value = pair.partition("=")
        if unquote_plus(name).lower() == VERSION_PARAMETER:
            return unquote_plus(value, errors="replace")
    return None


def version_of(header: str) -> str | None:
    """The ``Major.Minor`` a client asked for, with patch versions ignored as A2A
    1.0 requires: ``"1.0"``, ``"1.0.2"`` -> ``"1.0"``; empty -> ``"0.3"``; a value
    that is no version -> None."""
    value = header.strip()
    if not value:
        return HOSTED
    parts = value.split(".")
    if len(parts) > 3 or not all(part.isdigit() and part.isascii() for part in parts):
        return None
    major, minor = int(parts[0]), int(parts[1]) if len(parts) > 1 else 0
    return f"{major}.{minor}"
