"""The plug-in core: everything a skill is written against.

A skill is an id, a card entry (name, description, tags, examples, modes), a
cost class that picks its rate-limit bucket, and one async handler from the
incoming user message and a context to a list of artifacts. This package
imports nothing of the server (``magisterium_a2a.server``): skills never see
HTTP, JSON-RPC, Redis or the server's settings. A plug-in's import line is::

    from magisterium_a2a.plugin import FunctionSkill, SkillEnvironment, text_part
"""

from magisterium_a2a.plugin.clock import Clock, IdFactory
from magisterium_a2a.plugin.environment import PluginSettings, SkillEnvironment, SkillFactory
from magisterium_a2a.plugin.parts import data_part, first_data, first_text, text_part
from magisterium_a2a.plugin.skill import (
    DEFAULT_MODES,
    SKILL_ID,
    CostClass,
    FunctionSkill,
    Handler,
    Skill,
    SkillContext,
    SkillError,
)
from magisterium_a2a.plugin.types import (
    Artifact,
    DataPart,
    FilePart,
    Message,
    Part,
    Task,
    TextPart,
)

__all__ = [
    "DEFAULT_MODES",
    "SKILL_ID",
    "Artifact",
    "Clock",
    "CostClass",
    "DataPart",
    "FilePart",
    "FunctionSkill",
    "Handler",
    "IdFactory",
    "Message",
    "Part",
    "PluginSettings",
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
