"""The agent card, built once at start-up from the skill registry and settings.

One card, written two ways, like a task (``server.dialects``): by default the
hosted service's v0.3 card with A2A 1.0's ``supportedInterfaces`` (both
interfaces on the one endpoint, 1.0 first) and ``securityRequirements`` added,
which v0.3 readers ignore and 1.0 readers need; and, for a client that asks
with ``A2A-Version: 1.0``, the card in 1.0's own form alone (its security
schemes as 1.0's ``oneof``, ``capabilities.extendedAgentCard``), which is also
what ``GetExtendedAgentCard`` answers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson

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


@dataclass(frozen=True)
class CardDocuments:
    """The card's JSON: ``hosted`` by default, ``v10`` for A2A 1.0 readers."""

    hosted: bytes
    v10: bytes


def card_documents(card: AgentCard) -> CardDocuments:
    interfaces = [
        {"url": card.url, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
        {"url": card.url, "protocolBinding": "JSONRPC", "protocolVersion": "0.3"},
    ]
    requirements = [
        {"schemes": {name: ({"list": scopes} if scopes else {}) for name, scopes in entry.items()}}
        for entry in card.security
    ]
    hosted = card.model_dump(by_alias=True, exclude_none=True)
    hosted["supportedInterfaces"] = interfaces
    hosted["securityRequirements"] = requirements
    v10: dict[str, Any] = {
        "name": card.name,
        "description": card.description,
        "supportedInterfaces": interfaces,
        "version": card.version,
        "capabilities": {
            "streaming": card.capabilities.streaming,
            "pushNotifications": card.capabilities.push_notifications,
            "extendedAgentCard": True,
        },
        "securitySchemes": {
            name: _scheme_v10(scheme) for name, scheme in card.security_schemes.items()
        },
        "securityRequirements": requirements,
        "defaultInputModes": card.default_input_modes,
        "defaultOutputModes": card.default_output_modes,
        "skills": [skill.model_dump(by_alias=True, exclude_none=True) for skill in card.skills],
    }
    return CardDocuments(orjson.dumps(hosted), orjson.dumps(v10))


def _scheme_v10(scheme: HTTPAuthSecurityScheme | OAuth2SecurityScheme) -> dict[str, Any]:
    """A security scheme as 1.0's ``SecurityScheme`` (a ``oneof`` by field name)."""
    if isinstance(scheme, HTTPAuthSecurityScheme):
        http = scheme.model_dump(by_alias=True, exclude_none=True, exclude={"type"})
        return {"httpAuthSecurityScheme": http}
    oauth = scheme.model_dump(by_alias=True, exclude_none=True, exclude={"type"})
    return {"oauth2SecurityScheme": oauth}
