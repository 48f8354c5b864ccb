"""``document_search``: find documents in the knowledge base.

Input: a text part (the query), or beyond the contract a data part
``{"query", "limit", "kind"}``. Output: one artifact ``search_results`` with
one data part ``{"results": [{"id", "url", "title"}, ...]}``, best first,
10 by default; no hit gives ``{"results": []}``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

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
)
from magisterium_a2a.skills.engines import knowledge_base
from magisterium_a2a.skills.knowledge.model import KINDS
from magisterium_a2a.skills.knowledge.retrieval import KnowledgeBase

DEFAULT_LIMIT = 10
MAX_LIMIT = 50
MAX_QUERY_CHARS = 2000


def parse_request(message: Message) -> tuple[str, int, str | None]:
    """(query, limit, kind) from the message; a clear SkillError when unusable."""
    data: dict[str, Any] = first_data(message) or {}
    query = data.get("query")
    if query is None:
        query = first_text(message)
    if not isinstance(query, str) or not query.strip():
        raise SkillError(
            'document_search needs a query: a text part, or a data part {"query": "..."}.'
        )
    if len(query) > MAX_QUERY_CHARS:
        raise SkillError(f"The query is too long (at most {MAX_QUERY_CHARS} characters).")
    limit = data.get("limit", DEFAULT_LIMIT)
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
        raise SkillError(f'"limit" must be a whole number from 1 to {MAX_LIMIT}.')
    kind = data.get("kind")
    if kind is not None and kind not in KINDS:
        raise SkillError(f'"kind" must be one of: {", ".join(KINDS)}.')
    return query.strip(), limit, kind


def create(env: SkillEnvironment) -> FunctionSkill:
    kb: KnowledgeBase = knowledge_base(env)

    async def handle(message: Message, context: SkillContext) -> Sequence[Artifact]:
        query, limit, kind = parse_request(message)
        hits = await kb.search_documents(query, limit=limit, kind=kind)
        results = [
            {"id": hit.document.id, "url": hit.document.url, "title": hit.document.title}
            for hit in hits
        ]
        return [context.artifact("search_results", [data_part({"results": results})])]

    return FunctionSkill(
        id="document_search",
        name="Document search",
        description=(
            "Searches Church documents (councils, encyclicals, catechisms, the Fathers, "
            "theology) by words and meaning; returns their ids, titles and URLs, best first."
        ),
        handler=handle,
        tags=("documents", "search", "magisterium"),
        examples=(
            "Rerum Novarum",
            "does God exist",
            "the dignity of human work",
            "encíclica sobre el cuidado de la casa común",
            "노동자의 정당한 임금",
        ),
        # Not cheap: a search costs about a millisecond at 100,000 passages and,
        # with embeddings, a call to the endpoint; a caller over the limit must
        # not get that work done.
        cheap=False,
    )
