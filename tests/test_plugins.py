"""The skill registry: entry points, configured factories, and clear errors
for broken plug-ins."""

from __future__ import annotations

from pathlib import Path

import pytest

from magisterium_a2a.plugin import (
    Artifact,
    CostClass,
    FunctionSkill,
    Message,
    SkillContext,
    SkillEnvironment,
    text_part,
)
from magisterium_a2a.server.config import Settings
from magisterium_a2a.server.registry import ENTRY_POINT_GROUP, SkillLoadError, SkillRegistry
from tests.support import harness


def env(settings: Settings) -> SkillEnvironment:
    from magisterium_a2a.server.clock import SystemClock

    return SkillEnvironment(clock=SystemClock(), data_dir=settings.data_dir)


async def _noop(message: Message, context: SkillContext) -> list[Artifact]:
    return [context.artifact("extra", [text_part("ok")])]


def make_skill(skill_id: str = "extra", cost: object = CostClass.DEFAULT) -> FunctionSkill:
    return FunctionSkill(
        id=skill_id,
        name="Extra",
        description="Configured skill.",
        handler=_noop,
        cost=cost,  # type: ignore[arg-type]
    )


def extra_factory(environment: SkillEnvironment) -> FunctionSkill:
    return make_skill()


def duplicate_factory(environment: SkillEnvironment) -> FunctionSkill:
    return make_skill("echo")


def bad_id_factory(environment: SkillEnvironment) -> FunctionSkill:
    return make_skill("has space")


def bad_cost_factory(environment: SkillEnvironment) -> FunctionSkill:
    return make_skill("x", cost="cheap")


def raising_factory(environment: SkillEnvironment) -> FunctionSkill:
    raise ValueError("no model file at /nowhere")


def not_a_skill_factory(environment: SkillEnvironment) -> object:
    return 42


def test_entry_point_skills_are_registered(settings: Settings, plugin_site: Path) -> None:
    registry = SkillRegistry.load(env(settings), builtins=())
    assert [s.id for s in registry] == [
        "echo",
        "echo_expensive",
        "explode",
        "refuse",
        "hang",
        "earlier",
        "empty",
    ]
    assert registry.get("echo_expensive").cost is CostClass.EXPENSIVE  # type: ignore[union-attr]
    assert (
        (plugin_site / "magisterium_test_skills-0.0.1.dist-info" / "entry_points.txt")
        .read_text()
        .startswith(f"[{ENTRY_POINT_GROUP}]")
    )


async def test_plugin_appears_in_card_and_answers(settings: Settings) -> None:
    async with harness(settings) as h:
        card = (await h.client.get("/.well-known/agent-card.json")).json()
        echo = next(s for s in card["skills"] if s["id"] == "echo")
        assert echo["name"] == "Test echo"
        assert echo["tags"] == ["test"]
        task = (await h.send(await h.token(), "ping")).json()["result"]
    assert task["artifacts"][0]["parts"] == [{"kind": "text", "text": "ping"}]


async def test_configured_factories_are_registered(settings: Settings) -> None:
    configured = settings.model_copy(update={"extra_skills": [f"{__name__}:extra_factory"]})
    async with harness(configured) as h:
        card = (await h.client.get("/.well-known/agent.json")).json()
        assert "extra" in [s["id"] for s in card["skills"]]
        assert (await h.send(await h.token(), skill="extra")).json()["result"]["status"][
            "state"
        ] == "completed"


def test_disabled_entry_points_are_not_loaded(settings: Settings) -> None:
    registry = SkillRegistry.load(env(settings), builtins=(), disabled=["test_skills"])
    assert len(registry) == 0


@pytest.mark.parametrize(
    ("ref", "message"),
    [
        ("no_colon", "expected 'module:attribute'"),
        ("no_such_module_xyz:create", "cannot import"),
        (f"{__name__}:missing", "cannot import"),
        (f"{__name__}:duplicate_factory", "'echo' from A2A_EXTRA_SKILLS entry"),
        (f"{__name__}:bad_id_factory", "invalid skill id 'has space'"),
        (f"{__name__}:bad_cost_factory", "has cost 'cheap'"),
        (f"{__name__}:raising_factory", "the factory raised ValueError: no model file"),
        (f"{__name__}:not_a_skill_factory", "not a skill"),
    ],
)
def test_broken_sources_fail_loudly(settings: Settings, ref: str, message: str) -> None:
    with pytest.raises(SkillLoadError, match=message.replace("(", r"\(")) as raised:
        SkillRegistry.load(env(settings), builtins=(), extra=[ref])
    assert ref in str(raised.value) or "echo" in str(raised.value)


async def test_a_plugin_reads_its_own_settings_and_never_the_servers(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("A2A_GREETER_SALUTATION", "Pax")
    monkeypatch.setenv("A2A_GREETER_REPEAT", "2")
    monkeypatch.setenv("A2A_REDIS_URL", "redis://secret-host:6379/0")
    configured = settings.model_copy(
        update={
            "extra_skills": ["magisterium_test_skills.configured:create"],
            "admin_token": "a-very-secret-admin-token",
        }
    )
    async with harness(configured) as h:
        task = (await h.send(await h.token(), skill="greeter")).json()["result"]
    data = task["artifacts"][0]["parts"][0]["data"]
    assert data["text"] == "Pax Pax"
    assert set(data["settings"]) == {"data_dir", "greeter_salutation", "greeter_repeat"}
    assert data["settings"]["data_dir"] == str(settings.data_dir)
    assert data["environment"] == ["clock", "data_dir"]
    assert "secret" not in str(data)
