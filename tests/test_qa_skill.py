"""catholic_qa as a skill on a fresh data directory (the built-in catalogue,
no language model): the default skill, its card entry, its artifact, its
rate-limit bucket, bad input, and the ``ask`` command."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

from magisterium_a2a.server.clock import ManualClock
from magisterium_a2a.server.config import Settings
from magisterium_a2a.skills.qa.engine import NOT_ADDRESSED
from magisterium_a2a.skills.qa.extractive import INTRO
from tests.fake_llm import refused_url
from tests.kb_support import run_cli
from tests.qa_support import QA_BUILTINS, artifact_parts, ask, failure, footnotes
from tests.support import Harness, harness, validate_definition

START = 1_800_000_000.0
NO_QUESTION = "catholic_qa needs a question in a text part."


@pytest.fixture
async def h(settings: Settings) -> AsyncIterator[Harness]:
    async with harness(settings, clock=ManualClock(START), builtins=QA_BUILTINS) as running:
        yield running


async def test_a_message_without_skill_id_is_answered_by_catholic_qa(
    h: Harness, schema: dict[str, Any]
) -> None:
    token = await h.token()
    # (Asked of Rerum Novarum by name: for "what is a just wage" in general, search by
    # meaning ranks Laborem Exercens, on human work, first, and this test is about the
    # answer's form.)
    response = await h.send(token, "What did Rerum Novarum teach about a just wage?", skill=None)
    task = response.json()["result"]
    validate_definition(schema, "Task", task)
    assert task["metadata"] == {"skillId": "catholic_qa"}
    text, citations, related = artifact_parts(task)
    assert text["text"].startswith(INTRO + "\n\n*Rerum Novarum* (Leo XIII, 1891), in the summary")
    assert footnotes(text["text"]) == list(range(1, len(citations["data"]["citations"]) + 1))
    first = citations["data"]["citations"][0]
    assert first["document_id"] == "rerum-novarum"
    assert first["document_index"] == 0
    assert first["document_reference"] == "Rerum Novarum"
    assert first["source_url"].startswith("https://www.vatican.va/")
    assert first["cited_text"].startswith("On capital and labour")
    assert all(isinstance(q, str) for q in related["data"]["related_questions"])
    # The agent's reply in history carries the same parts.
    assert task["history"][1]["parts"] == task["artifacts"][0]["parts"]


async def test_the_card_lists_catholic_qa(h: Harness) -> None:
    card = (await h.client.get("/.well-known/agent.json")).json()
    entry = next(skill for skill in card["skills"] if skill["id"] == "catholic_qa")
    assert entry["name"] == "Catholic Q&A"
    assert entry["examples"]


async def test_a_question_the_sources_do_not_address(h: Harness) -> None:
    token = await h.token()
    task = await ask(h, token, "quantum chromodynamics of gluons")
    assert artifact_parts(task) == [{"kind": "text", "text": NOT_ADDRESSED}]


@pytest.mark.parametrize(
    ("parts", "message"),
    [
        ([{"kind": "data", "data": {"question": 1}}], NO_QUESTION),
        ([{"kind": "text", "text": "   "}], NO_QUESTION),
        (
            [{"kind": "text", "text": "why " * 1001}],
            "The question is too long (at most 4000 characters).",
        ),
    ],
)
async def test_unusable_input_fails_the_task_readably(
    h: Harness, parts: list[dict[str, Any]], message: str
) -> None:
    token = await h.token()
    response = await h.send(token, skill="catholic_qa", parts=parts)
    assert failure(response.json()["result"]) == message


async def test_third_question_in_a_minute_is_rate_limited_but_search_is_not(h: Harness) -> None:
    token = await h.token(plan="pro")
    for _ in range(2):
        admitted = await h.send(token, "Is euthanasia allowed?", skill="catholic_qa")
        assert admitted.json()["result"]["status"]["state"] == "completed"
    rejected = await h.send(token, "Is euthanasia allowed?", skill="catholic_qa")
    assert rejected.status_code == 429
    error = rejected.json()["error"]
    assert error["code"] == -32003
    assert error["data"]["retryAfter"] >= 1
    search = await h.send(token, "euthanasia", skill="document_search")
    assert search.status_code == 200
    results = search.json()["result"]["artifacts"][0]["parts"][0]["data"]["results"]
    assert results[0]["id"] == "iura-et-bona"


def test_ask_prints_the_answer_and_its_sources(settings: Settings) -> None:
    result = run_cli(settings, "ask", "What did Rerum Novarum teach about a just wage?")
    assert result.exit_code == 0, result.output
    assert INTRO in result.output
    assert "*Rerum Novarum* (Leo XIII, 1891)" in result.output
    # Issue 19: the catalogue's heading already names the author and the year;
    # they are not said a second time.
    assert (
        "\nSources\n[1] Rerum Novarum — Encyclical letter, Leo XIII, 1891\n"
        "    id: rerum-novarum\n    https://www.vatican.va/"
    ) in result.output
    assert result.output.count("Leo XIII, 1891") == 2  # the quote's label and the source
    assert "\nRelated questions\n- " in result.output


def test_ask_json_prints_the_artifact_parts(settings: Settings) -> None:
    result = run_cli(settings, "ask", "--json", "What did Rerum Novarum teach about a just wage?")
    assert result.exit_code == 0, result.output
    parts = json.loads(result.stdout)
    assert [p["kind"] for p in parts] == ["text", "data", "data"]
    assert parts[1]["data"]["citations"][0]["document_id"] == "rerum-novarum"
    # Issue 19: parts as the wire writes them, with no "metadata": null.
    assert all("metadata" not in part for part in parts)
    assert '"metadata"' not in result.stdout


def test_ask_reports_an_unreachable_model_and_bad_settings(settings: Settings) -> None:
    down = run_cli(
        settings,
        "ask",
        "What is a just wage for workers?",
        env={"A2A_LLM_BASE_URL": refused_url(), "A2A_LLM_MODEL": "m"},
    )
    assert down.exit_code == 1
    assert "No answer: The language model service cannot be reached" in " ".join(
        down.output.split()
    )
    assert "Traceback" not in down.output
    unnamed = run_cli(settings, "ask", "grace", env={"A2A_LLM_BASE_URL": refused_url()})
    assert unnamed.exit_code == 2
    assert "A2A_LLM_MODEL is empty" in " ".join(unnamed.output.split())
    blank = run_cli(settings, "ask", "  ")
    assert blank.exit_code == 2
