"""Time and identifiers, behind small interfaces so tests and the
deterministic mode can replace them."""

from __future__ import annotations

import time
import uuid
from datetime import UTC, datetime
from typing import Protocol


class Clock(Protocol):
    @property
    def virtual(self) -> bool:
        """True when this clock may stand still or jump while real time passes."""
        ...

    def now(self) -> float:
        """Seconds since the epoch."""
        ...


class SystemClock:
    virtual = False

    def now(self) -> float:
        return time.time()


class ManualClock:
    """A clock that only moves when told to."""

    virtual = True

    def __init__(self, start: float) -> None:
        self._now = start

    def now(self) -> float:
        return self._now

    def advance(self, seconds: float) -> None:
        self._now += seconds


def iso_timestamp(epoch: float) -> str:
    """RFC 3339 UTC with milliseconds, the form the hosted service uses."""
    moment = datetime.fromtimestamp(epoch, UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


class IdFactory(Protocol):
    def uuid(self) -> str:
        """A new uuid4 string, for task, context and message ids."""
        ...

    def artifact_id(self) -> str:
        """A new ``art_<32 hex>`` artifact id."""
        ...


class RandomIds:
    def uuid(self) -> str:
        return str(uuid.uuid4())

    def artifact_id(self) -> str:
        return "art_" + uuid.uuid4().hex
