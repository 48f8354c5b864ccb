"""The hosted dialect: A2A v0.3 JSON-RPC exactly as the hosted service speaks it
(CONTRACT.md). Its method names, params models and error objects are the
server's own (``server.methods``, ``server.rpc``); this module only names them
as a dialect, so that the endpoint's path for it stays what it always was."""

from __future__ import annotations

from operator import attrgetter

from magisterium_a2a.server.dialects import HOSTED, Dialect
from magisterium_a2a.server.methods import A2AMethods, parse_params
from magisterium_a2a.server.rpc import failure


def hosted_dialect(methods: A2AMethods) -> Dialect:
    return Dialect(
        version=HOSTED,
        methods=methods.table,
        parse=parse_params,
        failure=failure,
        code=attrgetter("code"),
        skill_of=methods.skill_of,
    )
