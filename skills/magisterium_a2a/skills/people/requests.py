"""What the people skills read from a message: a data part with the MCP twins'
fields, or else the first text part as the query.

A data part must be an object with a non-blank string ``query`` or id field
(``pope_id`` / ``person_id``) and nothing else; anything else fails the task
with a message naming the accepted fields (``SkillError``), so a client that
misspells a field learns it at once instead of getting a wrong "not found".
"""

from __future__ import annotations

from dataclasses import dataclass

from magisterium_a2a.plugin import Message, SkillError, first_data, first_text

MAX_QUERY = 300
"""Longest name or question matched (longer text is no name, and would only cost time)."""


@dataclass(frozen=True, slots=True)
class Lookup:
    query: str | None = None
    ident: str | None = None


def read_lookup(message: Message, id_field: str, example: str) -> Lookup:
    data = first_data(message)
    if data is None:
        return Lookup(query=_bounded(first_text(message)))
    usage = (
        f"expected a data part with 'query' (a name) or '{id_field}' (an id such as "
        f"'{example}'), as non-empty strings"
    )
    unknown = sorted(set(data) - {"query", id_field})
    if unknown:
        raise SkillError(f"Unknown field(s) {', '.join(map(repr, unknown))}: {usage}.")
    values: dict[str, str | None] = {}
    for name in ("query", id_field):
        value = data.get(name)
        if value is not None and (not isinstance(value, str) or not value.strip()):
            raise SkillError(f"'{name}' must be a non-empty string: {usage}.")
        values[name] = value.strip() if isinstance(value, str) else None
    if values["query"] is None and values[id_field] is None:
        raise SkillError(f"Nothing to look up: {usage}.")
    return Lookup(query=_bounded(values["query"]), ident=_bounded(values[id_field]))


def _bounded(text: str | None) -> str | None:
    if text is not None and len(text) > MAX_QUERY:
        raise SkillError(f"A name to look up is at most {MAX_QUERY} characters long.")
    return text


def ordinal_suffix(number: int) -> str:
    """267 → ``267th``, 1 → ``1st``: the place in the list, in words a reader expects."""
    if 10 <= number % 100 <= 20:
        return f"{number}th"
    return f"{number}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(number % 10, 'th') }"
