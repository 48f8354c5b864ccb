"""Follow-up questions: the earlier turns of a context, read from the task
store, shape the retrieval query; another user's identical contextId does not
see them, and a second server process on the same Redis does."""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr

from magisterium_a2a.server.config import Settings
from magisterium_a2a.skills.qa.prompt import REWRITE, SYSTEM
from tests.fake_llm import FakeLLM, fake_llm
from tests.kb_support import FakeEmbeddings, fake_embeddings
from tests.qa_support import QA_BUILTINS, artifact_parts, ask, corpus_settings
from tests.support import Harness, harness, isolated_settings

FIRST = "What does the Letter on Labour teach about the just wage?"
FOLLOW_UP = "And what does it say about rest?"


@pytest.fixture(scope="session")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Settings]:
    with isolated_settings() as base:
        yield corpus_settings(base, tmp_path_factory.mktemp("qa-conversation"))


@pytest.fixture
def fake() -> Iterator[FakeLLM]:
    with fake_llm() as server:
        yield server


def with_llm(settings: Settings, fake: FakeLLM) -> Settings:
    return settings.model_copy(
        update={
            "llm_base_url": fake.url,
            "llm_model": "fake-model",
            "llm_api_key": SecretStr("sk-fake"),
            "llm_timeout_seconds": 5.0,
        }
    )


@contextlib.asynccontextmanager
async def running(settings: Settings) -> AsyncIterator[Harness]:
    async with harness(settings, builtins=QA_BUILTINS) as h:
        yield h


def sources_of(body: dict[str, Any]) -> str:
    content: str = body["messages"][-1]["content"]
    return content


async def test_a_follow_up_is_rewritten_by_the_model_with_the_earlier_turn(
    corpus: Settings, fake: FakeLLM
) -> None:
    context = f"ctx-{uuid.uuid4()}"
    fake.answers(
        "A worker is owed a just wage [1].",
        "What does the Letter on Labour teach about rest on the Lord's day?",
        "Every worker may rest on the Lord's day [1].",
        "It speaks of rest on the Lord's day [1].",
    )
    async with running(with_llm(corpus, fake)) as h:
        alice = await h.token(user="alice", plan="enterprise", qa_per_minute=100)
        bob = await h.token(user="bob", plan="enterprise", qa_per_minute=100)
        first = await ask(h, alice, FIRST, context_id=context)
        second = await ask(h, alice, FOLLOW_UP, context_id=context)
        assert second["contextId"] == first["contextId"] == context
        answer, rewrite, followed = fake.bodies()[:3]
        assert [m["role"] for m in answer["messages"]] == ["system", "user"]

        # The rewrite request shows the model the earlier turn.
        assert rewrite["messages"][0] == {"role": "system", "content": REWRITE}
        assert rewrite["messages"][1]["content"] == (
            f"User: {FIRST}\nAssistant: A worker is owed a just wage.\n"
            f"User (last message): {FOLLOW_UP}"
        )
        assert rewrite["temperature"] == 0.0
        # The answer request carries the conversation, then the sources the
        # rewritten query found (the rest passage first).
        assert followed["messages"][:3] == [
            {"role": "system", "content": SYSTEM},
            {"role": "user", "content": FIRST},
            {"role": "assistant", "content": "A worker is owed a just wage."},
        ]
        assert sources_of(followed).startswith(
            "Sources:\n\n[1] Letter on Labour — LL — Rest on the Lord's day"
        )
        assert artifact_parts(second)[0]["text"] == "Every worker may rest on the Lord's day [1]."

        # Bob reuses Alice's contextId: a separate context, no earlier turn.
        bobs = await ask(h, bob, FOLLOW_UP, context_id=context)
        assert bobs["contextId"] == context
        [alone] = fake.bodies()[3:]
        assert [m["role"] for m in alone["messages"]] == ["system", "user"]
        assert "Question: And what does it say about rest?" in sources_of(alone)


async def test_an_unusable_rewrite_falls_back_to_the_earlier_question(
    corpus: Settings, fake: FakeLLM
) -> None:
    context = f"ctx-{uuid.uuid4()}"
    fake.answers("A worker is owed a just wage [1].", "", "It speaks of rest [1].")
    async with running(with_llm(corpus, fake)) as h:
        alice = await h.token(plan="enterprise", qa_per_minute=100)
        await ask(h, alice, FIRST, context_id=context)
        second = await ask(h, alice, FOLLOW_UP, context_id=context)
    assert artifact_parts(second)[0]["text"] == "It speaks of rest [1]."
    # "rest" and "Letter on Labour" were both searched for: both passages are sources.
    followed = sources_of(fake.bodies()[2])
    assert "— Rest on the Lord's day —" in followed and "— The just wage —" in followed


@pytest.fixture
def embeddings() -> Iterator[FakeEmbeddings]:
    with fake_embeddings() as server:
        yield server


async def test_without_a_model_the_follow_up_query_carries_the_earlier_subject(
    settings: Settings, embeddings: FakeEmbeddings, tmp_path: Path
) -> None:
    """Hybrid retrieval: the fake embeddings server sees each retrieval query."""
    hybrid = settings.model_copy(
        update={"embeddings_url": embeddings.url, "embeddings_model": "fake-mini"}
    )
    hybrid = corpus_settings(hybrid, tmp_path / "hybrid")
    embedded = len(embeddings.requests)
    assert embedded > 0, "ingestion embedded the passages"
    context = "shared-context-id"
    async with running(hybrid) as h:
        alice = await h.token(user="alice", plan="enterprise", qa_per_minute=100)
        bob = await h.token(user="bob", plan="enterprise", qa_per_minute=100)
        await ask(h, alice, FIRST, context_id=context)
        second = await ask(h, alice, FOLLOW_UP, context_id=context)
        await ask(h, bob, FOLLOW_UP, context_id=context)
    queries = [r["body"]["input"] for r in embeddings.requests[embedded:]]
    assert queries == [[FIRST], [f"{FOLLOW_UP} {FIRST}"], [FOLLOW_UP]]
    citations = artifact_parts(second)[1]["data"]["citations"]
    headings = [c["cited_text_heading"] for c in citations]
    assert "Rest on the Lord's day" in headings


async def test_a_second_server_process_sees_the_conversation(
    corpus: Settings, fake: FakeLLM, redis_settings: Settings
) -> None:
    """Two apps on one Redis, as two replicas would be: the follow-up goes to the other."""
    shared = with_llm(
        redis_settings.model_copy(update={"data_dir": corpus.data_dir, "builtin_corpus": False}),
        fake,
    )
    context = f"ctx-{uuid.uuid4()}"
    fake.answers(
        "A worker is owed a just wage [1].",
        "What does the Letter on Labour teach about rest?",
        "Workers may rest [1].",
    )
    async with running(shared) as one, running(shared) as two:
        token = await one.token(plan="enterprise", qa_per_minute=100)
        await ask(one, token, FIRST, context_id=context)
        await ask(two, token, FOLLOW_UP, context_id=context)
    rewrite = fake.bodies()[1]
    assert rewrite["messages"][0]["content"] == REWRITE
    assert f"User: {FIRST}" in rewrite["messages"][1]["content"]
