"""The agent card, built once at start-up from the skill registry and settings."""

from __future__ import annotations

from dataclasses import dataclass

from magisterium_a2a.plugin import DEFAULT_MODES
from magisterium_a2a.server import __version__
from magisterium_a2a.server.config import Settings
from magisterium_a2a.server.protocol import (
    AgentCapabilities,
    AgentCard,
    AgentSkill,
    AuthorizationCodeOAuthFlow,
    HTTPAuthSecurityScheme,
    OAuth2SecurityScheme,
    OAuthFlows,
)
from magisterium_a2a.server.registry import SkillRegistry

SECURITY_SCHEME = "bearer"
OAUTH_SCHEME = "oauth2"


@dataclass(frozen=True)
class OAuthEndpoints:
    """The authorization server the card names: built in, or the operator's provider."""

    authorization_url: str
    token_url: str
    metadata_url: str
    scopes: dict[str, str]
    description: str


def build_card(
    settings: Settings, registry: SkillRegistry, oauth: OAuthEndpoints | None = None
) -> AgentCard:
    schemes: dict[str, HTTPAuthSecurityScheme | OAuth2SecurityScheme] = {
        SECURITY_SCHEME: HTTPAuthSecurityScheme(
            description="An API token issued by the operator: 'Authorization: Bearer <token>'."
        )
    }
    security: list[dict[str, list[str]]] = [{SECURITY_SCHEME: []}]
    if oauth is not None:
        schemes[OAUTH_SCHEME] = OAuth2SecurityScheme(
            description=oauth.description,
            oauth2_metadata_url=oauth.metadata_url,
            flows=OAuthFlows(
                authorization_code=AuthorizationCodeOAuthFlow(
                    authorization_url=oauth.authorization_url,
                    token_url=oauth.token_url,
                    refresh_url=oauth.token_url,
                    scopes=oauth.scopes,
                )
            ),
        )
        security.append({OAUTH_SCHEME: sorted(oauth.scopes)})
    return AgentCard(
        name=settings.agent_name,
        description=settings.agent_description,
        url=settings.endpoint_url,
        version=__version__,
        capabilities=AgentCapabilities(),
        default_input_modes=list(DEFAULT_MODES),
        default_output_modes=list(DEFAULT_MODES),
        security_schemes=schemes,
        security=security,
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
