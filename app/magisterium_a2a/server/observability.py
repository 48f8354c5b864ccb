"""Metrics (Prometheus) and the request log: one record per JSON-RPC call.

The dispatcher reports each call once, as a ``Call``; this module turns it
into counters, a latency histogram and one JSON log line. Both are cheap when
unused: label children are cached, and the log line is built only when the
``magisterium_a2a.requests`` logger is enabled for INFO.
"""

from __future__ import annotations

import logging
import os
import re
from dataclasses import dataclass
from functools import lru_cache

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
    multiprocess,
)

KNOWN_METHODS = frozenset(
    {
        "message/send",
        "tasks/get",
        "tasks/cancel",
        "SendMessage",
        "GetTask",
        "ListTasks",
        "CancelTask",
        "GetExtendedAgentCard",
    }
)
LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30)
METRICS_CONTENT_TYPE = CONTENT_TYPE_LATEST
_REQUEST_ID = re.compile(r"^[A-Za-z0-9._:-]{1,128}$")

request_log = logging.getLogger("magisterium_a2a.requests")


@dataclass(frozen=True, slots=True)
class Call:
    """What one JSON-RPC call did, as the dispatcher saw it."""

    request_id: str
    method: str
    skill: str | None
    user: str | None
    outcome: str
    """``completed``/``failed`` for message/send, ``ok`` otherwise, else the error code."""
    duration: float
    bucket: str | None = None
    store_error: bool = False


def clip(value: str | None, limit: int = 80) -> str | None:
    """A client-supplied string made safe for a log line: control characters
    (a newline would forge a second line) escaped, and at most ``limit``
    characters kept, so a 500 KB method name costs a log line nothing."""
    if value is None:
        return None
    head = value[:limit]
    if not head.isprintable():
        head = "".join(c if c.isprintable() else repr(c)[1:-1] for c in head)
    return head if len(value) <= limit else f"{head}…(+{len(value) - limit} chars)"


def request_id(incoming: str | None) -> str:
    """The client's X-Request-ID when it is sane, else a new one."""
    if incoming is not None and _REQUEST_ID.match(incoming):
        return incoming
    # The OS's random source, as secrets.token_hex, without its wrapper's cost.
    return os.urandom(16).hex()


class Metrics:
    """The server's Prometheus metrics, in a registry of its own."""

    def __init__(self, known_skills: frozenset[str]) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self._skills = known_skills
        self.requests = Counter(
            "a2a_requests",
            "JSON-RPC calls by method, skill and outcome",
            ["method", "skill", "outcome"],
            registry=self.registry,
        )
        self.latency = Histogram(
            "a2a_request_duration_seconds",
            "Time to answer a JSON-RPC call, by method and skill",
            ["method", "skill"],
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )
        self.rate_limited = Counter(
            "a2a_rate_limited",
            "message/send calls refused by a rate-limit bucket",
            ["bucket"],
            registry=self.registry,
        )
        self.store_errors = Counter(
            "a2a_store_errors",
            "Calls that failed because the task store did not answer",
            registry=self.registry,
        )
        self._labels = lru_cache(maxsize=4096)(self._children)

    def _children(self, method: str, skill: str, outcome: str) -> tuple[Counter, Histogram]:
        return (
            self.requests.labels(method, skill, outcome),
            self.latency.labels(method, skill),
        )

    def observe(self, call: Call) -> None:
        method = call.method if call.method in KNOWN_METHODS or call.method == "-" else "other"
        skill = "-" if call.skill is None else call.skill
        if skill not in self._skills and skill != "-":
            skill = "other"
        counter, histogram = self._labels(method, skill, call.outcome)
        counter.inc()
        histogram.observe(call.duration)
        if call.bucket is not None:
            self.rate_limited.labels(call.bucket).inc()
        if call.store_error:
            self.store_errors.inc()

    def render(self) -> bytes:
        """The exposition text; across all workers when they share a multiprocess dir."""
        if "PROMETHEUS_MULTIPROC_DIR" in os.environ:
            collected = CollectorRegistry()
            multiprocess.MultiProcessCollector(collected)  # type: ignore[no-untyped-call]
            return generate_latest(collected)
        return generate_latest(self.registry)


def log_call(call: Call) -> None:
    """One structured line per call: never a token, never a message body."""
    if request_log.isEnabledFor(logging.INFO):
        method, skill, user = clip(call.method), clip(call.skill), clip(call.user)
        request_log.info(
            "%s %s %s user=%s %.1fms",
            method,
            skill or "-",
            call.outcome,
            user,
            call.duration * 1000,
            extra={
                "request_id": call.request_id,
                "user": user,
                "method": method,
                "skill": skill,
                "outcome": call.outcome,
                "duration_ms": round(call.duration * 1000, 3),
            },
        )


class DropColor(logging.Filter):
    """uvicorn attaches a colourised copy of its messages; keep logs plain."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.__dict__.pop("color_message", None)
        return True


def logging_config(level: str, fmt: str) -> dict[str, object]:
    """A dictConfig for the server and uvicorn: JSON lines, or plain text."""
    formatter: dict[str, object] = (
        {
            "()": "pythonjsonlogger.json.JsonFormatter",
            "fmt": "%(asctime)s %(levelname)s %(name)s %(message)s",
            "rename_fields": {"asctime": "time", "levelname": "level", "name": "logger"},
        }
        if fmt == "json"
        else {"format": "%(asctime)s %(levelname)-7s %(name)s: %(message)s"}
    )
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"default": formatter},
        "filters": {"plain": {"()": "magisterium_a2a.server.observability.DropColor"}},
        "handlers": {
            "default": {
                "class": "logging.StreamHandler",
                "formatter": "default",
                "filters": ["plain"],
                "stream": "ext://sys.stderr",
            }
        },
        "root": {"handlers": ["default"], "level": level.upper()},
        "loggers": {
            "uvicorn": {"handlers": ["default"], "level": level.upper(), "propagate": False},
            "uvicorn.access": {"handlers": [], "propagate": False},
        },
    }
