"""The task ``message/send`` builds, encoded once, straight to JSON.

Building the pydantic ``Task`` (and the agent's reply ``Message``) only to dump
it again cost about four times what the task's JSON costs when its pieces are
dumped to plain Python once and joined by orjson (see bench/RESULTS.md). The
bytes are the same: every value that reaches this point either came from the
client through orjson's parser or from a skill's wire models, and for the JSON
types both serializers write the same text (``tests/test_hot_path.py`` holds
them to it). Anything else a skill may put in a ``data`` or ``metadata`` object
(a datetime, a Decimal, a subclass, an integer past 64 bits, ...) makes
``encode`` return None, and the caller builds the models the usual way.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson

from magisterium_a2a.server.protocol import TaskState, Wire

_PASSTHROUGH = (
    orjson.OPT_PASSTHROUGH_DATETIME
    | orjson.OPT_PASSTHROUGH_DATACLASS
    | orjson.OPT_PASSTHROUGH_SUBCLASS
)


@dataclass(frozen=True, slots=True)
class BuiltTask:
    """A terminal task as message/send built it: what the store and the reply need."""

    id: str
    context_id: str
    state: TaskState
    json: bytes

    def to_json(self) -> bytes:
        return self.json


def plain(model: Wire) -> dict[str, Any]:
    """A wire model as the dict its JSON is written from (aliases, no None fields)."""
    return model.model_dump(by_alias=True, exclude_none=True)


def _refuse(value: Any) -> Any:
    raise TypeError(type(value).__name__)


def encode(document: dict[str, Any]) -> bytes | None:
    """The document's JSON if orjson writes it as pydantic would, else None."""
    try:
        return orjson.dumps(document, default=_refuse, option=_PASSTHROUGH)
    except TypeError:
        return None
