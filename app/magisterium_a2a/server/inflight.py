"""How many requests this process is answering at this moment.

The one ASGI layer in front of every route (``guard.RequestGuard``) counts them,
whichever way a request takes. The hot path's Redis connection keeps the event
loop polling for a due reply only while the process answers one request alone
(``storage/pipe.py``): with others in progress the loop has their work to do,
and measured at 16 clients, polling beside them cost 7% of the throughput
(bench/RESULTS.md, 2026-12-04).
"""

from __future__ import annotations


class InFlight:
    """A counter the request guard raises for each HTTP request being answered."""

    __slots__ = ("count",)

    def __init__(self) -> None:
        self.count = 0

    def alone(self) -> bool:
        """At most one request in progress (the caller's own)."""
        return self.count <= 1
