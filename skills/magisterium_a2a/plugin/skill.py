"""What a skill is: an id, a card entry, a cost class, and one async handler."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Protocol, runtime_checkable

from magisterium_a2a.plugin.clock import Clock, IdFactory
from magisterium_a2a.plugin.types import Artifact, Message, Part, Task

SKILL_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
DEFAULT_MODES: tuple[str, ...] = ("text/plain", "application/json")


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
    """The caller, unique across credential kinds: the operator's user id (percent-encoded),
    or for a user of an external identity provider, their ``sub``, ``!`` and the issuer."""
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
        """Fast and free of side effects for every input: it may run before its
        rate-limit check (so admission and the task write share one round trip).
        Its first step runs without the skill deadline's timer; one that has to wait
        on something is run again, whole, under the deadline."""
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
