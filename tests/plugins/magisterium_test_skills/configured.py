"""A test-only plug-in with a settings class of its own."""

from __future__ import annotations

from collections.abc import Sequence

from magisterium_a2a.plugin import (
    Artifact,
    FunctionSkill,
    Message,
    PluginSettings,
    SkillContext,
    SkillEnvironment,
    data_part,
)


class GreeterSettings(PluginSettings):
    greeter_salutation: str = "Hello"
    greeter_repeat: int = 1


def create(env: SkillEnvironment) -> FunctionSkill:
    settings = env.settings(GreeterSettings)
    seen = {
        "settings": settings.model_dump(mode="json"),
        "environment": sorted(name for name in vars(env) if not name.startswith("_")),
    }

    async def greet(message: Message, context: SkillContext) -> Sequence[Artifact]:
        text = " ".join([settings.greeter_salutation] * settings.greeter_repeat)
        return [context.artifact("greeting", [data_part({"text": text, **seen})])]

    return FunctionSkill(
        id="greeter", name="Greeter", description="Greets, as configured.", handler=greet
    )
