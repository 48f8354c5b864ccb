"""The conversation a question belongs to, read from the task store.

Messages a user sends with the same ``contextId`` form a conversation; the
server keeps that user's earlier tasks of the context, so any process can
read them back through ``SkillContext.earlier_tasks``. A follow-up such as
"what about his later encyclicals?" names nothing to search for: without a
language model, its retrieval query is the question followed by the query of
the turn it follows, so the earlier subject is searched for too.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from magisterium_a2a.plugin import Task, TextPart

SKILL_ID = "catholic_qa"
TURNS_IN_VIEW = 3
MAX_ANSWER_CHARS = 1500
MAX_CARRIED_WORDS = 40

_FOOTNOTE = re.compile(r"\s?\[\d+\]")
_WORDS = re.compile(r"[a-z']+")
# Words that point back at something said before.
_ANAPHORA = frozenset(
    {
        *("he", "him", "his", "she", "her", "hers", "it", "its"),
        *("they", "them", "their", "theirs", "this", "that", "these", "those"),
        *("former", "latter"),
    }
)
_OPENERS = (
    "and ",
    "but ",
    "also ",
    "so ",
    "what about",
    "how about",
    "what else",
    "tell me more",
    "more on",
    "same ",
)


@dataclass(frozen=True, slots=True)
class Turn:
    """One earlier question and the answer given (None when that task failed)."""

    question: str
    answer: str | None


def _text(parts: Sequence[object]) -> str | None:
    for part in parts:
        if isinstance(part, TextPart) and part.text.strip():
            return part.text.strip()
    return None


def turns_from_tasks(tasks: Sequence[Task], skill_id: str = SKILL_ID) -> list[Turn]:
    """The question-and-answer turns among a context's tasks, oldest first."""
    turns: list[Turn] = []
    for task in tasks:
        if (task.metadata or {}).get("skillId") != skill_id:
            continue
        asked = next((m for m in task.history or [] if m.role == "user"), None)
        question = _text(asked.parts) if asked is not None else None
        if question is None:
            continue
        answer = None
        if task.status.state == "completed" and task.artifacts:
            text = _text(task.artifacts[0].parts)
            if text is not None:
                answer = _FOOTNOTE.sub("", text)[:MAX_ANSWER_CHARS]
        turns.append(Turn(question, answer))
    return turns[-TURNS_IN_VIEW:]


def is_follow_up(question: str) -> bool:
    """Whether a question leans on what came before (a pronoun, "what about ...")."""
    lowered = " ".join(question.lower().split())
    words = _WORDS.findall(lowered)
    return len(words) <= 3 or lowered.startswith(_OPENERS) or any(w in _ANAPHORA for w in words)


def contextual_query(question: str, turns: Sequence[Turn]) -> str:
    """The retrieval query of a question asked after ``turns``, without a language model."""
    carried = ""
    for turn in [*turns, Turn(question, None)]:
        if carried and is_follow_up(turn.question):
            words = carried.split()[:MAX_CARRIED_WORDS]
            carried = f"{turn.question} {' '.join(words)}"
        else:
            carried = turn.question
    return carried
