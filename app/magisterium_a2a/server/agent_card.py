"""The agent card, built once at start-up from the skill registry and settings."""

from __future__ import annotations

from magisterium_a2a.plugin import DEFAULT_MODES
from magisterium_a2a.server import __version__
from magisterium_a2a.server.config import Settings
from magisterium_a2a.server.protocol import (
    AgentCapabilities,
    AgentCard,
    AgentSkill,
    HTTPAuthSecurityScheme,
)
from magisterium_a2a.server.registry import SkillRegistry

SECURITY_SCHEME = "bearer"


def build_card(settings: Settings, registry: SkillRegistry) -> AgentCard:
    return AgentCard(
        name=settings.agent_name,
        description=settings.agent_description,
        url=settings.endpoint_url,
        version=__version__,
        capabilities=AgentCapabilities(),
        default_input_modes=list(DEFAULT_MODES),
        default_output_modes=list(DEFAULT_MODES),
        security_schemes={
            SECURITY_SCHEME: HTTPAuthSecurityScheme(
                description="An API token issued by the operator: 'Authorization: Bearer <token>'."
            )
        },
        security=[{SECURITY_SCHEME: []}],
        skills=[
            AgentSkill(
                id=skill.id,
                name=skill.name,
                description=skill.description,
                tags=list(skill.tags),
                examples=list(skill.examples),
                input_modes=list(skill.input_modes),
                output_modes=list(skill.output_modes),
            )
            for skill in registry
        ],
    )
