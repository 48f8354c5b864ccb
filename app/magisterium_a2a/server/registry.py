"""The skill registry: built-ins, entry points and configured factories.

The server finds skills only here. Three sources, in order: the built-in
factories listed below, every entry point of the group
``magisterium_a2a.skills`` (third-party packages), and the factories named in
``A2A_EXTRA_SKILLS``. Each names a ``SkillFactory``: a callable taking the
``SkillEnvironment`` and returning one skill or several.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Iterable, Iterator
from importlib.metadata import entry_points

from magisterium_a2a.plugin import SKILL_ID, CostClass, Skill, SkillEnvironment

ENTRY_POINT_GROUP = "magisterium_a2a.skills"
BUILTIN_FACTORIES: tuple[str, ...] = (
    "magisterium_a2a.skills.catholic_qa:create",
    "magisterium_a2a.skills.liturgical_readings:create",
    "magisterium_a2a.skills.saints_of_the_day:create",
    "magisterium_a2a.skills.saint_lookup:create",
    "magisterium_a2a.skills.pope_lookup:create",
    "magisterium_a2a.skills.person_lookup:create",
    "magisterium_a2a.skills.document_search:create",
    "magisterium_a2a.skills.document_fetch:create",
    "magisterium_a2a.skills.diocese_lookup:create",
    "magisterium_a2a.skills.diocese_statistics_lookup:create",
)

log = logging.getLogger(__name__)


class SkillLoadError(RuntimeError):
    """A skill source could not be loaded; the message names it."""


class SkillRegistry:
    """Skills by id, in registration order (the card lists them so)."""

    def __init__(self, skills: Iterable[Skill] = ()) -> None:
        self._skills: dict[str, Skill] = {}
        for skill in skills:
            self.add(skill)

    def add(self, skill: Skill, source: str = "code") -> None:
        _check(skill, source)
        if skill.id in self._skills:
            raise SkillLoadError(f"skill id {skill.id!r} from {source} is already registered")
        self._skills[skill.id] = skill

    def get(self, skill_id: str) -> Skill | None:
        return self._skills.get(skill_id)

    def __iter__(self) -> Iterator[Skill]:
        return iter(self._skills.values())

    def __len__(self) -> int:
        return len(self._skills)

    def __contains__(self, skill_id: object) -> bool:
        return skill_id in self._skills

    @classmethod
    def load(
        cls,
        env: SkillEnvironment,
        *,
        builtins: Iterable[str] = BUILTIN_FACTORIES,
        extra: Iterable[str] = (),
        disabled: Iterable[str] = (),
        use_entry_points: bool = True,
    ) -> SkillRegistry:
        """Build every configured skill; a broken source stops start-up loudly.

        ``extra`` are the ``A2A_EXTRA_SKILLS`` factories, ``disabled`` the
        ``A2A_DISABLED_SKILLS`` ids (entry points of that name are not loaded).
        """
        disabled = set(disabled)
        registry = cls()
        sources: list[tuple[str, str]] = [(f"built-in {ref}", ref) for ref in builtins]
        if use_entry_points:
            for ep in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
                if ep.name in disabled:
                    log.info("skill entry point %s disabled by configuration", ep.name)
                    continue
                sources.append((f"entry point {ep.name!r} ({ep.value})", ep.value))
        sources.extend((f"A2A_EXTRA_SKILLS entry {ref!r}", ref) for ref in extra)
        for source, ref in sources:
            for skill in _build(_resolve(ref, source), env, source):
                if skill.id in disabled:
                    continue
                registry.add(skill, source)
        return registry


def _resolve(ref: str, source: str) -> object:
    module_name, _, attribute = ref.partition(":")
    if not module_name or not attribute:
        raise SkillLoadError(f"{source}: expected 'module:attribute', got {ref!r}")
    try:
        target: object = importlib.import_module(module_name)
        for name in attribute.split("."):
            target = getattr(target, name)
    except (ImportError, AttributeError) as exc:
        raise SkillLoadError(f"{source}: cannot import {ref!r}: {exc}") from exc
    return target


def _build(factory: object, env: SkillEnvironment, source: str) -> list[Skill]:
    if not callable(factory):
        raise SkillLoadError(f"{source}: {factory!r} is not a skill factory")
    try:
        made = factory(env)
    except Exception as exc:
        raise SkillLoadError(f"{source}: the factory raised {type(exc).__name__}: {exc}") from exc
    if isinstance(made, Skill):
        return [made]
    if isinstance(made, Iterable):
        skills = list(made)
        for skill in skills:
            if not isinstance(skill, Skill):
                raise SkillLoadError(f"{source}: {skill!r} is not a skill")
        return skills
    raise SkillLoadError(f"{source}: the factory returned {made!r}, not a skill")


def _check(skill: Skill, source: str) -> None:
    if not SKILL_ID.match(skill.id):
        raise SkillLoadError(f"{source}: invalid skill id {skill.id!r}")
    if not isinstance(skill.cost, CostClass):
        raise SkillLoadError(f"{source}: skill {skill.id!r} has cost {skill.cost!r}")
    if not skill.name or not skill.description:
        raise SkillLoadError(f"{source}: skill {skill.id!r} needs a name and a description")
