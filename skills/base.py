"""The plug-in API every skill is written against.

A skill is an id, a card entry (name, description, tags, examples, modes), a
cost class that picks its rate-limit bucket, and one async handler from the
incoming user message and a context to a list of artifacts. Skills never see
HTTP or JSON-RPC: this module is their only door into ``app``, and it only
passes through the wire models and the configuration.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol, TypeVar, runtime_checkable

from app.clock import Clock, IdFactory
from app.config import Settings
from app.protocol import Artifact, DataPart, FilePart, Message, Part, Task, TextPart

__all__ = [
    "Artifact",
    "Clock",
    "CostClass",
    "DataPart",
    "FilePart",
    "FunctionSkill",
    "Message",
    "Part",
    "Settings",
    "Skill",
    "SkillContext",
    "SkillEnvironment",
    "SkillError",
    "SkillFactory",
    "Task",
    "TextPart",
    "data_part",
    "first_data",
    "first_text",
    "text_part",
]

SKILL_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
DEFAULT_MODES: tuple[str, ...] = ("text/plain", "application/json")
T = TypeVar("T")


class CostClass(StrEnum):
    """Which rate-limit bucket a skill draws from."""

    DEFAULT = "default"
    EXPENSIVE = "expensive"


class SkillError(Exception):
    """Raised by a skill for a failure whose message a client may be shown.

    The task becomes ``failed`` with this message in ``status.message``; any
    other exception fails the task with a generic message (and is logged).
    """


@dataclass(frozen=True, slots=True)
class SkillContext:
    """What a handler knows about the call besides the message itself."""

    user_id: str
    plan: str
    task_id: str
    context_id: str
    ids: IdFactory
    clock: Clock
    earlier_tasks: Callable[[], Awaitable[list[Task]]]
    """The caller's earlier tasks in this context, oldest first (read on demand)."""

    def artifact(
        self,
        name: str,
        parts: Sequence[Part],
        *,
        description: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> Artifact:
        return Artifact(
            artifact_id=self.ids.artifact_id(),
            name=name,
            parts=list(parts),
            description=description,
            metadata=metadata,
        )


@runtime_checkable
class Skill(Protocol):
    """The shape every skill has; see ``FunctionSkill`` for the plain way to build one."""

    @property
    def id(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def description(self) -> str: ...
    @property
    def tags(self) -> Sequence[str]: ...
    @property
    def examples(self) -> Sequence[str]: ...
    @property
    def input_modes(self) -> Sequence[str]: ...
    @property
    def output_modes(self) -> Sequence[str]: ...
    @property
    def cost(self) -> CostClass: ...
    @property
    def cheap(self) -> bool:
        """Fast and free of side effects: it may run before its rate-limit check."""
        ...

    async def handle(self, message: Message, context: SkillContext) -> Sequence[Artifact]: ...


Handler = Callable[[Message, SkillContext], Awaitable[Sequence[Artifact]]]


@dataclass(frozen=True, slots=True)
class FunctionSkill:
    """A skill made of its card entry and an async function."""

    id: str
    name: str
    description: str
    handler: Handler
    tags: Sequence[str] = ()
    examples: Sequence[str] = ()
    input_modes: Sequence[str] = DEFAULT_MODES
    output_modes: Sequence[str] = DEFAULT_MODES
    cost: CostClass = CostClass.DEFAULT
    cheap: bool = False

    async def handle(self, message: Message, context: SkillContext) -> Sequence[Artifact]:
        return await self.handler(message, context)


@dataclass
class SkillEnvironment:
    """What a skill factory gets at start-up: settings, clock, shared engines.

    ``shared`` builds an engine once per server and hands the same instance to
    every skill that asks for it by name (the knowledge base behind search,
    fetch and Q&A, say); ``on_close`` registers clean-up for shutdown.
    """

    settings: Settings
    clock: Clock
    _shared: dict[str, object] = field(default_factory=dict)
    _closers: list[Callable[[], Awaitable[None]]] = field(default_factory=list)

    def shared(self, name: str, build: Callable[[], T]) -> T:
        if name not in self._shared:
            self._shared[name] = build()
        value: T = self._shared[name]  # type: ignore[assignment]
        return value

    def on_close(self, closer: Callable[[], Awaitable[None]]) -> None:
        self._closers.append(closer)

    async def close(self) -> None:
        for closer in reversed(self._closers):
            await closer()
        self._closers.clear()


SkillFactory = Callable[[SkillEnvironment], "Skill | Iterable[Skill]"]


def text_part(text: str) -> TextPart:
    return TextPart(kind="text", text=text)


def data_part(data: dict[str, Any]) -> DataPart:
    return DataPart(kind="data", data=data)


def first_text(message: Message) -> str | None:
    """The first non-blank text part, stripped."""
    for part in message.parts:
        if isinstance(part, TextPart) and part.text.strip():
            return part.text.strip()
    return None


def first_data(message: Message) -> dict[str, Any] | None:
    """The first data part's object."""
    for part in message.parts:
        if isinstance(part, DataPart):
            return part.data
    return None
