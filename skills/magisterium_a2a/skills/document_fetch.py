"""``document_fetch``: one document's text and metadata by id.

Input: a data part ``{"id": "..."}`` (a number is accepted as its decimal
string), or a text part taken as the id. Output: one artifact ``document``
with a text part (the body) and a data part ``{"id", "title", "author",
"ref"}``; an unknown id gives the single text part ``Document not found.``

Beyond the contract, what is not an id may be a document's exact title or
other name ("Rerum Novarum", "laudato si", "The Joy of the Gospel"): that
document is returned. When nothing matches, the artifact is still the single
text part the contract names, and documents with close names ("Rerum
Novarm") are offered in the artifact's ``metadata`` as ``{"suggestions":
[{"id", "title"}]}``: a client that knows only the contract sees exactly the
hosted shape, one that looks further can offer the ids.

This is on the benchmark hot path: the document comes from the knowledge
base's cache or one primary-key read on the connection opened at start-up.
"""

from __future__ import annotations

from collections.abc import Sequence

from magisterium_a2a.plugin import (
    Artifact,
    FunctionSkill,
    Message,
    SkillContext,
    SkillEnvironment,
    SkillError,
    data_part,
    first_data,
    first_text,
    text_part,
)
from magisterium_a2a.skills.engines import knowledge_base
from magisterium_a2a.skills.knowledge.retrieval import KnowledgeBase

NOT_FOUND = "Document not found."
MAX_ID_CHARS = 200


def requested_id(message: Message) -> str:
    data = first_data(message)
    value: object = None
    if data is not None and "id" in data:
        value = data["id"]
        if isinstance(value, int) and not isinstance(value, bool):
            value = str(value)
    else:
        value = first_text(message)
    if not isinstance(value, str) or not value.strip():
        raise SkillError(
            'document_fetch needs a document id: a data part {"id": "..."} or a text part.'
        )
    return value.strip()


def create(env: SkillEnvironment) -> FunctionSkill:
    kb: KnowledgeBase = knowledge_base(env)

    async def handle(message: Message, context: SkillContext) -> Sequence[Artifact]:
        wanted = requested_id(message)
        if len(wanted) > MAX_ID_CHARS:
            return [context.artifact("document", [text_part(NOT_FOUND)])]
        found = kb.fetch(wanted)
        if found is None:
            named = kb.by_name(wanted)
            found = kb.fetch(named) if named is not None else None
        if found is None:
            near = [{"id": d.id, "title": d.title} for d in kb.near_names(wanted)]
            metadata = {"suggestions": near} if near else None
            return [context.artifact("document", [text_part(NOT_FOUND)], metadata=metadata)]
        info = found.info
        meta = {"id": info.id, "title": info.title, "author": info.author, "ref": info.ref}
        return [context.artifact("document", [text_part(found.body), data_part(meta)])]

    return FunctionSkill(
        id="document_fetch",
        name="Document fetch",
        description=(
            "Returns the text and metadata of one document by the id document_search gave, "
            "or by its exact title."
        ),
        handler=handle,
        tags=("documents", "magisterium"),
        examples=('{"id": "rerum-novarum"}', "lumen-gentium", "Laudato Si'"),
        # Microseconds and no side effects: it may run before its rate-limit
        # check, so that admission and storage share one round trip.
        cheap=True,
    )
