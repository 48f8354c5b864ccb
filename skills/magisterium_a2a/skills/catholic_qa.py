"""``catholic_qa``: cited answers from the knowledge base (the default skill).

Input: one text part, the question. Output: one artifact
``catholic_qa_response`` with a text part (the answer, ``[n]`` footnotes), a
data part ``{"citations": [...]}`` when sources were used and a data part
``{"related_questions": [...]}`` when there are suggestions (CONTRACT section
5). Earlier questions of the same context are read from the task store, so a
follow-up is understood by any server process. It is ``expensive``: it draws
from the small rate-limit bucket.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from magisterium_a2a.plugin import (
    Artifact,
    CostClass,
    FunctionSkill,
    Message,
    Part,
    SkillContext,
    SkillEnvironment,
    SkillError,
    data_part,
    first_text,
    text_part,
)
from magisterium_a2a.skills.engines import knowledge_base
from magisterium_a2a.skills.qa.citations import Answer
from magisterium_a2a.skills.qa.conversation import SKILL_ID, turns_from_tasks
from magisterium_a2a.skills.qa.engine import QAEngine, provider_from_settings
from magisterium_a2a.skills.qa.provider import AnswerProvider, ProviderError
from magisterium_a2a.skills.qa.settings import QASettings

log = logging.getLogger(__name__)
ARTIFACT = "catholic_qa_response"
MAX_QUESTION_CHARS = 4000


def question_of(message: Message) -> str:
    question = first_text(message)
    if question is None:
        raise SkillError("catholic_qa needs a question in a text part.")
    if len(question) > MAX_QUESTION_CHARS:
        raise SkillError(f"The question is too long (at most {MAX_QUESTION_CHARS} characters).")
    return question


def answer_parts(answer: Answer) -> list[Part]:
    """The artifact's parts: the text, then citations and related questions when present."""
    parts: list[Part] = [text_part(answer.text)]
    if answer.citations:
        parts.append(data_part({"citations": answer.citations}))
    if answer.related_questions:
        parts.append(data_part({"related_questions": answer.related_questions}))
    return parts


def create(env: SkillEnvironment) -> FunctionSkill:
    kb = knowledge_base(env)
    settings = env.settings(QASettings)

    def build() -> AnswerProvider:
        provider = provider_from_settings(settings, kb)
        env.on_close(provider.aclose)
        log.info("catholic_qa answers with %s", provider.description)
        return provider

    engine = QAEngine(kb, env.shared("qa-provider", build), sources=settings.qa_sources)

    async def handle(message: Message, context: SkillContext) -> Sequence[Artifact]:
        question = question_of(message)
        conversation = turns_from_tasks(await context.earlier_tasks())
        try:
            outcome = await engine.ask(question, conversation)
        except ProviderError as exc:
            raise SkillError(str(exc)) from None
        return [context.artifact(ARTIFACT, answer_parts(outcome.answer))]

    return FunctionSkill(
        id=SKILL_ID,
        name="Catholic Q&A",
        description=(
            "Answers questions on Catholic teaching from Church documents, the Fathers and "
            "theology, every claim footnoted to the passage it rests on; follow-up questions "
            "in the same context are understood; questions may be asked in many languages."
        ),
        handler=handle,
        tags=("catholic", "questions", "citations", "magisterium"),
        examples=(
            "What does the Church teach about a just wage?",
            "Can the existence of God be proved?",
            "¿Qué enseña la Iglesia sobre la pena de muerte?",
            "火葬は許されますか",
        ),
        cost=CostClass.EXPENSIVE,
    )
