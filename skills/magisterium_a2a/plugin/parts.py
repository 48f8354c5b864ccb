"""Small helpers for building and reading message parts."""

from __future__ import annotations

from typing import Any

from magisterium_a2a.plugin.types import DataPart, Message, TextPart


def text_part(text: str) -> TextPart:
    return TextPart(kind="text", text=text)


def data_part(data: dict[str, Any]) -> DataPart:
    return DataPart(kind="data", data=data)


def first_text(message: Message) -> str | None:
    """The first non-blank text part, stripped."""
    for part in message.parts:
        if isinstance(part, TextPart) and part.text.strip():
            return part.text.strip()
    return None


def first_data(message: Message) -> dict[str, Any] | None:
    """The first data part's object."""
    for part in message.parts:
        if isinstance(part, DataPart):
            return part.data
    return None
