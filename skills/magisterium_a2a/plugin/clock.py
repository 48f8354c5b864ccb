"""The clock and id interfaces a skill is handed.

Only the protocols live here: the server supplies the real, manual, shifted
and seeded implementations, so tests and the test mode can move time and fix
ids without a skill knowing.
"""

from __future__ import annotations

from typing import Protocol


class Clock(Protocol):
    @property
    def virtual(self) -> bool:
        """True when this clock may stand still or jump while real time passes."""
        ...

    def now(self) -> float:
        """Seconds since the epoch."""
        ...


class IdFactory(Protocol):
    def uuid(self) -> str:
        """A new uuid4 string, for task, context and message ids."""
        ...

    def artifact_id(self) -> str:
        """A new ``art_<32 hex>`` artifact id."""
        ...
