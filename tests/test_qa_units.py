"""The pure parts of catholic_qa: footnote checking, reading a model's reply,
follow-up detection and the deterministic query, sentence trimming."""

from __future__ import annotations

import pytest

from magisterium_a2a.skills.knowledge.model import DocumentInfo
from magisterium_a2a.skills.knowledge.retrieval import PassageHit
from magisterium_a2a.skills.qa.citations import check, related
from magisterium_a2a.skills.qa.conversation import Turn, contextual_query, is_follow_up
from magisterium_a2a.skills.qa.openai_chat import endpoint_of
from magisterium_a2a.skills.qa.prompt import read_answer, read_query
from magisterium_a2a.skills.qa.provider import Draft, Source
from magisterium_a2a.skills.qa.sentences import whole_sentences


def source(number: int, doc_id: str = "doc") -> Source:
    info = DocumentInfo(id=f"{doc_id}-{number}", title=f"Title {number}")
    hit = PassageHit(info, 0, None, None, f"Passage {number}.", 1.0)
    return Source(number, hit, f"Quote {number}.")


SOURCES = [source(1), source(2), source(3)]


@pytest.mark.parametrize(
    ("text", "expected", "cited"),
    [
        ("A [1]. B [2].", "A [1]. B [2].", ["doc-1", "doc-2"]),
        ("A [3]. B [1]. C [3].", "A [1]. B [2]. C [1].", ["doc-3", "doc-1"]),
        ("A [1, 3]. B [2-3].", "A [1][2]. B [3][2].", ["doc-1", "doc-3", "doc-2"]),
        ("A [^2]. B [1; 2].", "A [1]. B [2][1].", ["doc-2", "doc-1"]),
        ("A [9]. B [0] and [2][2].", "A. B and [1].", ["doc-2"]),
        ("A [1].\n\nReferences:\n[1] Title 1\n[7] Made up", "A [1].", ["doc-1"]),
        ("A [1].\n[1]: Title 1\n[5]: Made up", "A [1].", ["doc-1"]),
        ("Plain prose.", "Plain prose.", []),
    ],
)
def test_footnotes_are_checked_and_renumbered(text: str, expected: str, cited: list[str]) -> None:
    answer = check(Draft(text), SOURCES)
    assert answer.text == expected
    assert [c["document_id"] for c in answer.citations] == cited
    assert [c["document_index"] for c in answer.citations] == list(range(len(cited)))
    assert all(c["cited_text"].startswith("Quote") for c in answer.citations)


def test_related_questions_are_cleaned() -> None:
    assert related(
        ["What is grace? [1]", "", "what is grace?", "Why pray?", "x" * 300, "Why pray?"],
        question="Why pray?",
    ) == ["What is grace?"]


@pytest.mark.parametrize(
    ("reply", "text", "questions"),
    [
        ('Answer [1].\n\nRelated questions: ["A?", "B?"]', "Answer [1].", ["A?", "B?"]),
        ('Answer.\n\n**Related questions:**\n["A?"]', "Answer.", ["A?"]),
        ('Answer.\n\n## Related Questions\n```json\n["A?"]\n```', "Answer.", ["A?"]),
        ('Answer.\n\nRelated_questions: {"related_questions": ["A?"]}', "Answer.", ["A?"]),
        ('Answer.\n\n```json\n{"related_questions": ["A?"]}\n```', "Answer.", ["A?"]),
        ("Answer.\n\nRelated questions: A? B?", "Answer.", []),
        ('Answer.\n\nRelated questions: ["A?", 3]', "Answer.", []),
        ("Answer with no suggestions.", "Answer with no suggestions.", []),
    ],
)
def test_the_reply_is_split_into_answer_and_related(
    reply: str, text: str, questions: list[str]
) -> None:
    assert read_answer(reply) == Draft(text, questions)


def test_a_rewritten_query_is_one_clean_line() -> None:
    assert read_query('Query: "What did Leo XIII write later?"\nexplanation') == (
        "What did Leo XIII write later?"
    )
    assert read_query("   ") is None
    assert read_query("x" * 600) is None


@pytest.mark.parametrize(
    ("question", "follow_up"),
    [
        ("what about his later encyclicals?", True),
        ("And Pius XI?", True),
        ("Why?", True),
        ("Is it allowed?", True),
        ("What does Rerum Novarum teach about private property?", False),
        ("Is euthanasia allowed by the Church?", False),
    ],
)
def test_follow_ups_are_recognised(question: str, follow_up: bool) -> None:
    assert is_follow_up(question) is follow_up


def test_the_deterministic_query_carries_the_subject_along_a_chain() -> None:
    turns = [Turn("What did Leo XIII teach about workers?", "He taught ...")]
    assert contextual_query("what about his later encyclicals?", turns) == (
        "what about his later encyclicals? What did Leo XIII teach about workers?"
    )
    chain = [*turns, Turn("what about his later encyclicals?", None)]
    assert "Leo XIII" in contextual_query("and the first of them?", chain)
    assert contextual_query("Is euthanasia allowed by the Church?", chain) == (
        "Is euthanasia allowed by the Church?"
    )
    assert contextual_query("what about him?", []) == "what about him?"


def test_whole_sentences_drop_cut_fragments() -> None:
    text = "of the argument. St. Augustine says (Conf. i, 1) that we rest in God. And then"
    assert whole_sentences(text) == ["St. Augustine says (Conf. i, 1) that we rest in God."]
    assert whole_sentences("only a fragment") == ["only a fragment"]
    assert whole_sentences("It is said: \u201cI am Who am.\u201d (Ex. 3:14)")[-1].endswith(")")


def test_endpoints_accept_the_base_or_the_full_url() -> None:
    assert endpoint_of("http://h:11434/v1") == "http://h:11434/v1/chat/completions"
    assert endpoint_of("http://h/v1/chat/completions/") == "http://h/v1/chat/completions"
