"""catholic_qa with a language model: a fake OpenAI-compatible server on a
free port, scripted per test, behind the real skill over /api/v1/a2a. Each
case asserts the exact artifact or the exact failed task."""

from __future__ import annotations

import contextlib
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from pydantic import SecretStr

from magisterium_a2a.server.config import Settings
from magisterium_a2a.skills.knowledge.retrieval import KnowledgeBase
from magisterium_a2a.skills.qa.engine import provider_from_settings
from tests.fake_llm import FakeLLM, Reply, fake_llm, refused_url
from tests.qa_support import QA_BUILTINS, artifact_parts, ask, corpus_settings, failure
from tests.support import Harness, harness, isolated_settings, validate_definition

QUESTION = "What is a just wage for a worker?"
FAILED = "The language model service failed"


def wage(index: int) -> dict[str, Any]:
    return {
        "cited_text": "A worker is owed a just wage. The wage must be enough to support the "
        "worker and his family. To defraud a labourer of his wage is a sin that cries to heaven.",
        "cited_text_heading": "The just wage",
        "document_title": "Letter on Labour",
        "document_index": index,
        "document_author": "Pope Test I",
        "document_year": 1901,
        "document_reference": "LL",
        "source_url": "https://example.org/letter-on-labour",
        "document_id": "letter-on-labour",
    }


def employers(index: int) -> dict[str, Any]:
    return {
        "cited_text": "The employer must pay the agreed wage on time and in full. "
        "He may not keep back what is owed to those who work for him.",
        "cited_text_heading": "Employers and the wage",
        "document_title": "A Small Catechism",
        "document_index": index,
        "document_author": "Council of Testing",
        "document_year": 1900,
        "document_reference": None,
        "source_url": None,
        "document_id": "small-catechism",
    }


def rest(index: int) -> dict[str, Any]:
    return {
        "cited_text": "Every worker has a right to rest on the Lord's day, free from servile work.",
        "cited_text_heading": "Rest on the Lord's day",
        "document_title": "Letter on Labour",
        "document_index": index,
        "document_author": "Pope Test I",
        "document_year": 1901,
        "document_reference": "LL",
        "source_url": "https://example.org/letter-on-labour",
        "document_id": "letter-on-labour",
    }


@pytest.fixture(scope="session")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Settings]:
    with isolated_settings() as base:
        yield corpus_settings(base, tmp_path_factory.mktemp("qa-corpus"))


@pytest.fixture
def fake() -> Iterator[FakeLLM]:
    with fake_llm() as server:
        yield server


def with_llm(settings: Settings, url: str, **overrides: Any) -> Settings:
    update: dict[str, Any] = {
        "llm_base_url": url,
        "llm_model": "fake-model",
        "llm_api_key": SecretStr("sk-fake"),
        "llm_timeout_seconds": 2.0,
        **overrides,
    }
    return settings.model_copy(update=update)


@contextlib.asynccontextmanager
async def running(settings: Settings) -> AsyncIterator[tuple[Harness, str]]:
    async with harness(settings, builtins=QA_BUILTINS) as h:
        yield h, await h.token(plan="enterprise", qa_per_minute=100)


async def test_footnoted_answer_with_related_questions(
    corpus: Settings, fake: FakeLLM, schema: dict[str, Any]
) -> None:
    fake.answers(
        "A worker is owed a wage that supports his family [1]. "
        "The employer must pay it on time [2][1].\n\n"
        'Related questions: ["Is there a right to rest on Sunday?", "What is owed to workers?"]'
    )
    async with running(with_llm(corpus, fake.url)) as (h, token):
        task = await ask(h, token, QUESTION)
    validate_definition(schema, "Task", task)
    assert artifact_parts(task) == [
        {
            "kind": "text",
            "text": "A worker is owed a wage that supports his family [1]. "
            "The employer must pay it on time [2][1].",
        },
        {"kind": "data", "data": {"citations": [wage(0), employers(1)]}},
        {
            "kind": "data",
            "data": {
                "related_questions": [
                    "Is there a right to rest on Sunday?",
                    "What is owed to workers?",
                ]
            },
        },
    ]
    [request] = fake.requests
    assert request["path"] == "/v1/chat/completions"
    assert request["auth"] == "Bearer sk-fake"
    body = request["body"]
    assert (body["model"], body["max_tokens"], body["temperature"]) == ("fake-model", 1024, 0.2)
    system, user = body["messages"]
    assert system["role"] == "system" and "[1]" in system["content"]
    assert user["role"] == "user"
    assert user["content"].startswith(
        "Sources:\n\n[1] Letter on Labour — LL — The just wage — Pope Test I, 1901\n"
        "A worker is owed a just wage."
    )
    assert (
        "\n\n[2] A Small Catechism — Employers and the wage — Council of Testing, 1900\n"
        in (user["content"])
    )
    assert "[3] Letter on Labour — LL — Rest on the Lord's day" in user["content"]
    assert f"Question: {QUESTION}" in user["content"]


async def test_footnotes_out_of_range_are_removed_and_the_rest_renumbered(
    corpus: Settings, fake: FakeLLM
) -> None:
    fake.answers(
        "The employer must pay on time [2]. A worker is owed a just wage [1][7], "
        "as the letter says [0]; see also [12].\n\n"
        'Related questions: ["What is owed to workers?"]'
    )
    async with running(with_llm(corpus, fake.url)) as (h, token):
        task = await ask(h, token, QUESTION)
    assert artifact_parts(task) == [
        {
            "kind": "text",
            "text": "The employer must pay on time [1]. A worker is owed a just wage [2], "
            "as the letter says; see also.",
        },
        {"kind": "data", "data": {"citations": [employers(0), wage(1)]}},
        {"kind": "data", "data": {"related_questions": ["What is owed to workers?"]}},
    ]


async def test_invented_citations_never_reach_the_client(corpus: Settings, fake: FakeLLM) -> None:
    fake.answers(
        "A just wage is owed [1, 3]. Pope Leo XIII taught the same in Rerum Novarum [4].\n\n"
        "Sources:\n[1] Letter on Labour, 1901\n[4] Leo XIII, Rerum Novarum (1891)\n\n"
        "Related questions: []"
    )
    async with running(with_llm(corpus, fake.url)) as (h, token):
        task = await ask(h, token, QUESTION)
    assert artifact_parts(task) == [
        {
            "kind": "text",
            "text": "A just wage is owed [1][2]. Pope Leo XIII taught the same in Rerum Novarum.",
        },
        {"kind": "data", "data": {"citations": [wage(0), rest(1)]}},
    ]


async def test_related_questions_that_are_not_json_are_dropped(
    corpus: Settings, fake: FakeLLM
) -> None:
    fake.answers(
        "Workers are owed a just wage [1].\n\n"
        "Related questions: What about Sunday rest? Are unions allowed?"
    )
    async with running(with_llm(corpus, fake.url)) as (h, token):
        task = await ask(h, token, QUESTION)
    assert artifact_parts(task) == [
        {"kind": "text", "text": "Workers are owed a just wage [1]."},
        {"kind": "data", "data": {"citations": [wage(0)]}},
    ]


async def test_an_answer_that_cites_nothing_has_no_citations_part(
    corpus: Settings, fake: FakeLLM
) -> None:
    fake.answers("The sources available here do not address this question.")
    async with running(with_llm(corpus, fake.url)) as (h, token):
        task = await ask(h, token, "Is a just wage owed to robots?")
    assert artifact_parts(task) == [
        {"kind": "text", "text": "The sources available here do not address this question."}
    ]


async def test_no_relevant_passage_is_answered_honestly_without_the_model(
    corpus: Settings, fake: FakeLLM
) -> None:
    async with running(with_llm(corpus, fake.url)) as (h, token):
        task = await ask(h, token, "quantum chromodynamics of gluons")
    assert artifact_parts(task) == [
        {"kind": "text", "text": "The sources available here do not address this question."}
    ]
    assert fake.requests == []


async def test_a_stalled_model_fails_the_task_at_the_timeout(
    corpus: Settings, fake: FakeLLM
) -> None:
    fake.answers(Reply("too late [1].", stall=30.0))
    async with running(with_llm(corpus, fake.url, llm_timeout_seconds=2.0)) as (h, token):
        started = time.monotonic()
        task = await ask(h, token, QUESTION)
        elapsed = time.monotonic() - started
    assert failure(task) == (
        "The language model did not answer within 2 seconds; please try again later."
    )
    assert elapsed < 10, "the task waited for the stalled server instead of the timeout"


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        (Reply(status=500), f"{FAILED} (HTTP 500); please try again later."),
        (Reply(status=503), f"{FAILED} (HTTP 503); please try again later."),
        (
            Reply(status=429, headers={"Retry-After": "7"}),
            "The language model service is busy (HTTP 429); please try again in 7 seconds.",
        ),
        (
            Reply(status=429),
            "The language model service is busy (HTTP 429); please try again in a moment.",
        ),
        (
            Reply(status=401),
            "The language model service refused the request (HTTP 401); "
            "the server's LLM settings need checking.",
        ),
        (
            Reply(body=b"<html>gateway</html>"),
            "The language model returned a malformed reply; please try again later.",
        ),
        (
            Reply(body=b'{"choices": []}'),
            "The language model returned a malformed reply; please try again later.",
        ),
        (Reply(""), "The language model returned an empty answer; please try again."),
        (Reply(None), "The language model returned an empty answer; please try again."),
        (
            Reply("<think>The user wants a wage.</think>\n"),
            "The language model returned an empty answer; please try again.",
        ),
        (
            Reply("[1]\n\nRelated questions: []"),
            "The language model returned an empty answer; please try again.",
        ),
    ],
)
async def test_provider_failures_fail_the_task_readably(
    corpus: Settings, fake: FakeLLM, reply: Reply, message: str, schema: dict[str, Any]
) -> None:
    fake.answers(reply)
    async with running(with_llm(corpus, fake.url)) as (h, token):
        task = await ask(h, token, QUESTION)
    validate_definition(schema, "Task", task)
    assert failure(task) == message


async def test_connection_refused_fails_the_task_readably(corpus: Settings) -> None:
    async with running(with_llm(corpus, refused_url())) as (h, token):
        task = await ask(h, token, QUESTION)
    assert failure(task) == (
        "The language model service cannot be reached; please try again later."
    )


async def test_the_full_chat_completions_url_is_accepted(corpus: Settings, fake: FakeLLM) -> None:
    fake.answers("<think>Plan the answer.</think>Workers are owed a just wage [1].")
    settings = with_llm(corpus, f"{fake.url}/chat/completions/", llm_api_key=None)
    async with running(settings) as (h, token):
        task = await ask(h, token, QUESTION)
    assert artifact_parts(task)[0] == {"kind": "text", "text": "Workers are owed a just wage [1]."}
    assert fake.requests[0]["path"] == "/v1/chat/completions"
    assert fake.requests[0]["auth"] is None


def test_a_base_url_without_a_model_stops_start_up(corpus: Settings) -> None:
    settings = with_llm(corpus, "http://127.0.0.1:9/v1", llm_model="")
    kb = KnowledgeBase.open(settings)
    try:
        with pytest.raises(ValueError, match="A2A_LLM_MODEL is empty"):
            provider_from_settings(settings, kb)
    finally:
        kb.store.close()
