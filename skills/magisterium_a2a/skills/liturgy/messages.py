"""Reading a liturgical skill's input out of the message."""

from __future__ import annotations

from magisterium_a2a.plugin import Message, first_data, first_text


def query_of(message: Message) -> str | None:
    """The date query: a data part's ``date``, else the first text part."""
    data = first_data(message)
    if data is not None and isinstance(data.get("date"), str):
        return str(data["date"])
    return first_text(message)
