"""document_search and document_fetch end to end through /api/v1/a2a, on the
built-in catalogue of a fresh data directory (CONTRACT section 5)."""

from __future__ import annotations

from typing import Any

import pytest

from magisterium_a2a.server.config import Settings
from magisterium_a2a.skills.knowledge.catalogue import load_catalogue
from tests.kb_support import BUILTINS, fetch, result_ids, search
from tests.support import Harness, harness, validate_definition


@pytest.fixture
async def kb(settings: Settings) -> Any:
    async with harness(settings, builtins=BUILTINS) as running:
        yield running


async def test_search_then_fetch_a_returned_id(kb: Harness, schema: dict[str, Any]) -> None:
    token = await kb.token()
    task = await search(kb, token, "the rights of workers to a just wage")
    validate_definition(schema, "Task", task)
    [part] = task["artifacts"][0]["parts"]
    results = part["data"]["results"]
    assert len(results) == 10
    # Rerum Novarum and Laborem Exercens (on human work) both answer this.
    assert {
        "id": "rerum-novarum",
        "url": "https://www.vatican.va/content/leo-xiii/en/encyclicals/documents/"
        "hf_l-xiii_enc_15051891_rerum-novarum.html",
        "title": "Rerum Novarum",
    } in results[:2]
    assert results[0]["id"] in {"rerum-novarum", "laborem-exercens"}
    assert all(set(r) == {"id", "url", "title"} for r in results)
    assert len({r["id"] for r in results}) == 10

    fetched = await fetch(kb, token, [{"kind": "data", "data": {"id": "rerum-novarum"}}])
    validate_definition(schema, "Task", fetched)
    assert fetched["status"]["state"] == "completed"
    [artifact] = fetched["artifacts"]
    assert artifact["name"] == "document"
    text, data = artifact["parts"]
    assert text["kind"] == "text"
    assert "just wage" in text["text"]
    assert "Full text: https://www.vatican.va/" in text["text"]
    assert data == {
        "kind": "data",
        "data": {
            "id": "rerum-novarum",
            "title": "Rerum Novarum",
            "author": "Leo XIII",
            "ref": "Rerum Novarum",
        },
    }


async def test_every_search_result_is_fetchable(kb: Harness) -> None:
    token = await kb.token(plan="enterprise", per_minute=100)
    ids = result_ids(await search(kb, token, {"query": "the Church", "limit": 25}))
    assert len(ids) == 25
    for doc_id in ids[:12]:
        task = await fetch(kb, token, [{"kind": "text", "text": doc_id}])
        assert task["artifacts"][0]["parts"][1]["data"]["id"] == doc_id


async def test_fetch_unknown_id_is_a_completed_not_found(kb: Harness) -> None:
    token = await kb.token()
    for parts in (
        [{"kind": "data", "data": {"id": "no-such-document"}}],
        [{"kind": "data", "data": {"id": 12345}}],
        [{"kind": "text", "text": "x" * 500}],
    ):
        task = await fetch(kb, token, parts)
        assert task["status"]["state"] == "completed"
        [artifact] = task["artifacts"]
        assert artifact["name"] == "document"
        assert artifact["parts"] == [{"kind": "text", "text": "Document not found."}]


async def test_fetch_with_a_text_part(kb: Harness) -> None:
    token = await kb.token()
    task = await fetch(kb, token, [{"kind": "text", "text": "  lumen-gentium \n"}])
    text, data = task["artifacts"][0]["parts"]
    assert data["data"]["title"] == "Lumen Gentium"
    assert data["data"]["author"] == "Second Vatican Council"
    assert "universal call to holiness" in text["text"]


async def test_search_without_hits_gives_empty_results(kb: Harness) -> None:
    token = await kb.token()
    for query in ("xyzzyplugh qwertzuiop", "the of and", "???"):
        task = await search(kb, token, query)
        assert task["status"]["state"] == "completed"
        assert task["artifacts"][0]["parts"] == [{"kind": "data", "data": {"results": []}}]


async def test_search_data_part_with_limit_and_kind(kb: Harness) -> None:
    token = await kb.token()
    ids = result_ids(await search(kb, token, {"query": "Mary", "limit": 3}))
    assert len(ids) == 3
    kinds = {doc.id: doc.kind.value for doc in load_catalogue()}
    councils = result_ids(await search(kb, token, {"query": "the Church", "kind": "council"}))
    assert len(councils) == 10
    assert {kinds[i] for i in councils} == {"council"}
    encyclicals = result_ids(
        await search(kb, token, {"query": "the Church", "kind": "encyclical", "limit": 50})
    )
    assert "lumen-gentium" not in encyclicals
    assert "lumen-gentium" in result_ids(
        await search(kb, token, {"query": "the Church", "kind": "council", "limit": 50})
    )


@pytest.mark.parametrize(
    ("parts", "message"),
    [
        ([{"kind": "data", "data": {"query": "grace", "kind": "sermon"}}], '"kind" must be one of'),
        ([{"kind": "data", "data": {"query": "grace", "limit": 0}}], '"limit" must be'),
        ([{"kind": "data", "data": {"query": "grace", "limit": "5"}}], '"limit" must be'),
        ([{"kind": "data", "data": {"limit": 5}}], "needs a query"),
        ([{"kind": "text", "text": "   "}], "needs a query"),
        ([{"kind": "text", "text": "grace " * 500}], "too long"),
    ],
)
async def test_search_bad_input_fails_the_task_with_a_clear_message(
    kb: Harness, parts: list[dict[str, Any]], message: str
) -> None:
    response = await kb.send(await kb.token(), skill="document_search", parts=parts)
    task = response.json()["result"]
    assert task["status"]["state"] == "failed"
    assert message in task["status"]["message"]["parts"][0]["text"]


async def test_fetch_without_an_id_fails_clearly(kb: Harness) -> None:
    for data in ({"id": ""}, {"id": None}, {"id": ["a"]}, {"other": 1}):
        response = await kb.send(
            await kb.token(), skill="document_fetch", parts=[{"kind": "data", "data": data}]
        )
        task = response.json()["result"]
        assert task["status"]["state"] == "failed"
        assert "needs a document id" in task["status"]["message"]["parts"][0]["text"]


async def test_skills_are_on_the_agent_card(kb: Harness) -> None:
    card = (await kb.client.get("/.well-known/agent.json")).json()
    ids = [skill["id"] for skill in card["skills"]]
    assert ids[:2] == ["document_search", "document_fetch"]
