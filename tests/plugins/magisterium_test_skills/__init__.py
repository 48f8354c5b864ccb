"""Skills that exist only to exercise the plug-in API in the tests."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from magisterium_a2a.plugin import (
    Artifact,
    CostClass,
    DataPart,
    FunctionSkill,
    Message,
    SkillContext,
    SkillEnvironment,
    SkillError,
    TextPart,
    data_part,
    text_part,
)


async def echo(message: Message, context: SkillContext) -> Sequence[Artifact]:
    parts = [p for p in message.parts if isinstance(p, TextPart | DataPart)]
    return [context.artifact("echo", parts or [text_part("(no text)")])]


async def explode(message: Message, context: SkillContext) -> Sequence[Artifact]:
    raise RuntimeError("secret detail: /srv/app/internal.py password=hunter2")


async def refuse(message: Message, context: SkillContext) -> Sequence[Artifact]:
    raise SkillError("The test skill refused this request.")


async def hang(message: Message, context: SkillContext) -> Sequence[Artifact]:
    await asyncio.Event().wait()
    raise AssertionError("unreachable")


async def earlier(message: Message, context: SkillContext) -> Sequence[Artifact]:
    tasks = await context.earlier_tasks()
    return [context.artifact("earlier", [data_part({"taskIds": [t.id for t in tasks]})])]


async def empty(message: Message, context: SkillContext) -> Sequence[Artifact]:
    return []


def create(env: SkillEnvironment) -> list[FunctionSkill]:
    def skill(
        skill_id: str, handler: object, cost: CostClass = CostClass.DEFAULT, *, cheap: bool = False
    ) -> FunctionSkill:
        return FunctionSkill(
            id=skill_id,
            name=f"Test {skill_id}",
            description=f"Test-only skill '{skill_id}'.",
            handler=handler,  # type: ignore[arg-type]
            tags=("test",),
            examples=("hello",),
            cost=cost,
            cheap=cheap,
        )

    return [
        skill("echo", echo, cheap=True),
        skill("echo_expensive", echo, CostClass.EXPENSIVE),
        skill("explode", explode),
        skill("refuse", refuse),
        skill("hang", hang),
        skill("earlier", earlier),
        skill("empty", empty),
    ]
