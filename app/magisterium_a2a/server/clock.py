"""Time and identifiers: the implementations behind the plug-in core's ``Clock``
and ``IdFactory`` interfaces, so tests, the test mode and the deterministic mode
can replace them."""

from __future__ import annotations

import os
import random
import time
import uuid
from datetime import UTC, datetime
from functools import lru_cache

from magisterium_a2a.plugin.clock import Clock, IdFactory

__all__ = [
    "Clock",
    "IdFactory",
    "ManualClock",
    "RandomIds",
    "SeededIds",
    "ShiftedClock",
    "SystemClock",
    "iso_timestamp",
    "parse_timestamp",
]


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


class ShiftedClock:
    """Another clock plus an offset that the test mode sets (shared through the store)."""

    virtual = True

    def __init__(self, base: Clock) -> None:
        self.base = base
        self.offset = 0.0

    def now(self) -> float:
        return self.base.now() + self.offset


def iso_timestamp(epoch: float) -> str:
    """RFC 3339 UTC with milliseconds, the form the hosted service uses."""
    millis = int(epoch * 1000)
    return f"{_iso_second(millis // 1000)}.{millis % 1000:03d}Z"


@lru_cache(maxsize=4)
def _iso_second(second: int) -> str:
    """The date and time of one second (every task of that second shares it)."""
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second))


def parse_timestamp(value: str | float) -> float:
    """Epoch seconds from a number or an ISO 8601 string (``Z`` or an offset)."""
    if isinstance(value, int | float):
        return float(value)
    moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()


class RandomIds:
    """uuid4 values from the OS's random source (formatted without the uuid module,
    which costs twice as much on the request path)."""

    def uuid(self) -> str:
        raw = bytearray(os.urandom(16))
        raw[6] = (raw[6] & 0x0F) | 0x40
        raw[8] = (raw[8] & 0x3F) | 0x80
        h = raw.hex()
        return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"

    def artifact_id(self) -> str:
        return "art_" + os.urandom(16).hex()


class SeededIds:
    """Valid uuid4 values from a seeded generator: the same run gives the same ids."""

    def __init__(self, seed: int) -> None:
        self._seed = seed
        self._rng = random.Random(seed)

    def reset(self) -> None:
        self._rng = random.Random(self._seed)

    def _next(self) -> uuid.UUID:
        return uuid.UUID(int=self._rng.getrandbits(128), version=4)

    def uuid(self) -> str:
        return str(self._next())

    def artifact_id(self) -> str:
        return "art_" + self._next().hex
