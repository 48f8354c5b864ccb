"""The engines several skills share, one instance per server, in one place.

Each accessor builds its engine on first use from the family's settings (read
through the environment) and registers its clean-up; every later call in the
same server returns the same instance.
"""

from __future__ import annotations

from magisterium_a2a.plugin import SkillEnvironment
from magisterium_a2a.skills.dioceses.engine import DioceseEngine
from magisterium_a2a.skills.knowledge.retrieval import KnowledgeBase
from magisterium_a2a.skills.knowledge.settings import KnowledgeSettings
from magisterium_a2a.skills.liturgy.engine import LiturgyEngine
from magisterium_a2a.skills.liturgy.settings import LiturgySettings
from magisterium_a2a.skills.people.directory import PeopleDirectory


def knowledge_base(env: SkillEnvironment) -> KnowledgeBase:
    """The knowledge base behind search, fetch and Q&A, closed at shutdown."""

    def build() -> KnowledgeBase:
        kb = KnowledgeBase.open(env.settings(KnowledgeSettings))
        env.on_close(kb.aclose)
        return kb

    return env.shared("knowledge", build)


def liturgy_engine(env: SkillEnvironment) -> LiturgyEngine:
    """The calendar, lectionary and martyrology behind the liturgical skills."""
    return env.shared("liturgy", lambda: LiturgyEngine(env.settings(LiturgySettings)))


def diocese_engine(env: SkillEnvironment) -> DioceseEngine:
    """The diocese directory and imported statistics behind the two diocese skills."""
    return env.shared("dioceses", lambda: DioceseEngine(env.data_dir))


def people_directory(env: SkillEnvironment) -> PeopleDirectory:
    """The popes and clergy behind pope_lookup, person_lookup and saint_lookup's links."""
    return env.shared("people", lambda: PeopleDirectory(env.data_dir))
