"""The chat prompt with numbered sources, and reading the model's reply.

The model is asked for prose with ``[n]`` footnotes after each claim, then a
last line ``Related questions:`` followed by a JSON array of strings. Prose
stays prose (small local models write long JSON strings badly), and the one
JSON value is easy to find and to drop when it is malformed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from magisterium_a2a.skills.knowledge.languages import SURE_FOREIGN, detect
from magisterium_a2a.skills.qa.conversation import Turn
from magisterium_a2a.skills.qa.languages import NAMES, reader_language
from magisterium_a2a.skills.qa.provider import AnswerRequest, Draft, Source

Message = dict[str, str]

SYSTEM = """You answer questions about the Catholic faith for a Catholic reference service.
Answer only from the numbered sources given with the question. After every sentence
that uses a source, put its number in square brackets, like [1] or [2][3]. Never cite
a number that is not in the list, never invent a source, and do not add a list of
sources at the end: the sources are shown to the reader separately.
If the sources do not address the question, say plainly that the sources available
here do not address it, and cite nothing.
Write clear, accurate prose; keep the Church's own terms. Answer in the language the
question is written in, even when the sources are in another: translate what you take
from them, and keep the footnotes.
End your reply with one last line: "Related questions:" followed by a JSON array of
three short questions the reader might ask next, for example:
Related questions: ["First question?", "Second question?", "Third question?"]"""

REWRITE = """You turn the last message of a conversation into a standalone search query
for a library of Catholic documents. Resolve every pronoun and reference to earlier
messages (name the person, document or topic). If the last message already stands
alone, repeat it unchanged. Reply with the query alone, on one line, without quotes."""

_RELATED = re.compile(
    r"^[ \t>#*_-]*related[ _]questions[*_]*[ \t]*:?[*_ \t]*", re.IGNORECASE | re.MULTILINE
)
_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)
_TRAILING_FENCE = re.compile(r"```(?:json)?\s*(\[.*?\]|\{.*?\})\s*```\s*$", re.DOTALL)


def describe(source: Source) -> str:
    doc = source.hit.document
    facts = [doc.title]
    reference = source.hit.ref or doc.ref
    if reference and reference != doc.title:
        facts.append(reference)
    if source.hit.heading:
        facts.append(source.hit.heading)
    byline = ", ".join(str(x) for x in (doc.author, doc.year) if x)
    if byline:
        facts.append(byline)
    if not doc.full_text:
        facts.append("a summary of the document")
    return f"[{source.number}] " + " — ".join(facts)


def sources_block(sources: Sequence[Source]) -> str:
    return "\n\n".join(f"{describe(source)}\n{source.hit.text}" for source in sources)


def history(conversation: Sequence[Turn]) -> list[Message]:
    messages: list[Message] = []
    for turn in conversation:
        messages.append({"role": "user", "content": turn.question})
        messages.append({"role": "assistant", "content": turn.answer or "(no answer was given)"})
    return messages


def answer_messages(request: AnswerRequest) -> list[Message]:
    """System prompt, the earlier turns, then the sources and the question."""
    # Said outright only when the layer is sure: a short English question it takes
    # for French must not be answered in French (the system prompt already asks
    # for the question's language).
    sure = detect(request.question)[1] >= SURE_FOREIGN
    language = NAMES.get(reader_language(request.question) or "") if sure else None
    in_language = (
        f" The question is in {language}: write the answer and the related questions in {language}."
        if language
        else ""
    )
    question = (
        f"Sources:\n\n{sources_block(request.sources)}\n\n"
        f"Question: {request.question}\n\n"
        f"Answer from the sources above, with a footnote after each claim.{in_language}"
    )
    return [
        {"role": "system", "content": SYSTEM},
        *history(request.conversation),
        {"role": "user", "content": question},
    ]


def rewrite_messages(question: str, conversation: Sequence[Turn]) -> list[Message]:
    lines = []
    for turn in conversation:
        lines.append(f"User: {turn.question}")
        if turn.answer:
            lines.append(f"Assistant: {' '.join(turn.answer.split())[:600]}")
    lines.append(f"User (last message): {question}")
    return [
        {"role": "system", "content": REWRITE},
        {"role": "user", "content": "\n".join(lines)},
    ]


def read_query(reply: str) -> str | None:
    """The rewritten query from the model's reply, or None when it is unusable."""
    line = next((ln for ln in reply.strip().splitlines() if ln.strip()), "")
    line = re.sub(r"^(?:standalone\s+)?(?:search\s+)?query\s*:\s*", "", line.strip(), flags=re.I)
    line = line.strip().strip("\"'\u201c\u201d`").strip()
    return line if 0 < len(line) <= 500 else None


def _questions(value: Any) -> list[str] | None:
    if isinstance(value, dict):
        value = value.get("related_questions", value.get("questions"))
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return list(value)
    return None


def _parse_related(tail: str) -> list[str]:
    fenced = _FENCE.search(tail)
    body = fenced.group(1) if fenced else tail
    for candidate in (body.strip(), body[body.find("[") : body.rfind("]") + 1]):
        try:
            found = _questions(json.loads(candidate))
        except ValueError:
            continue
        if found is not None:
            return found
    return []


def read_answer(reply: str) -> Draft:
    """Split the model's reply into the answer text and its related questions.

    Everything from the "Related questions:" line on is removed from the text;
    when what follows it is not a JSON array of strings there are no related
    questions, and the answer stands.
    """
    markers = list(_RELATED.finditer(reply))
    marker = markers[-1] if markers else None
    if marker is not None:
        return Draft(reply[: marker.start()].strip(), _parse_related(reply[marker.end() :]))
    fence = _TRAILING_FENCE.search(reply)
    if fence is not None:
        found = _parse_related(fence.group(0))
        if found:
            return Draft(reply[: fence.start()].strip(), found)
    return Draft(reply.strip(), [])
