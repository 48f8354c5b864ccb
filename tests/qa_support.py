"""Shared pieces of the Q&A tests: a small corpus whose retrieval is known,
the skills to load, and helpers to read a catholic_qa task."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from magisterium_a2a.server.config import Settings
from magisterium_a2a.skills.knowledge.ingestion import ingest
from tests.support import Harness

QA_BUILTINS = (
    "magisterium_a2a.skills.catholic_qa:create",
    "magisterium_a2a.skills.document_search:create",
    "magisterium_a2a.skills.document_fetch:create",
)

LABOUR = """---
id: letter-on-labour
title: Letter on Labour
author: Pope Test I
year: 1901
url: https://example.org/letter-on-labour
ref: LL
---
# Letter on Labour

## The just wage

A worker is owed a just wage. The wage must be enough to support the worker and his family.
To defraud a labourer of his wage is a sin that cries to heaven.

## Rest on the Lord's day

Every worker has a right to rest on the Lord's day, free from servile work.
"""

CATECHISM = """---
id: small-catechism
title: A Small Catechism
author: Council of Testing
year: 1900
kind: catechism
---
# A Small Catechism

## Employers and the wage

The employer must pay the agreed wage on time and in full.
He may not keep back what is owed to those who work for him.

## Prayer

Prayer is the raising of the mind and heart to God.
"""

GARDEN = """---
id: garden-notes
title: Garden Notes
---
# Garden Notes

Tomatoes and beans grow along the fence in summer.
"""


def write_corpus(directory: Path) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    for name, text in (("labour", LABOUR), ("catechism", CATECHISM), ("garden", GARDEN)):
        (directory / f"{name}.md").write_text(text)
    return directory


def corpus_settings(base: Settings, directory: Path) -> Settings:
    """Settings whose knowledge base holds the small corpus only."""
    settings = base.model_copy(update={"data_dir": directory / "data", "builtin_corpus": False})
    report = ingest([write_corpus(directory / "src")], settings)
    assert not report.errors, report.errors
    return settings


async def ask(
    h: Harness, token: str, question: str, *, context_id: str | None = None
) -> dict[str, Any]:
    """The task of one catholic_qa call (asserting the call itself succeeded)."""
    response = await h.send(token, question, skill="catholic_qa", context_id=context_id)
    assert response.status_code == 200, response.text
    body = response.json()
    assert "result" in body, body
    task: dict[str, Any] = body["result"]
    return task


def artifact_parts(task: dict[str, Any]) -> list[dict[str, Any]]:
    assert task["status"]["state"] == "completed", task["status"]
    [artifact] = task["artifacts"]
    assert artifact["name"] == "catholic_qa_response"
    parts: list[dict[str, Any]] = artifact["parts"]
    return parts


def failure(task: dict[str, Any]) -> str:
    assert task["status"]["state"] == "failed", task
    assert task["artifacts"] == []
    [part] = task["status"]["message"]["parts"]
    text: str = part["text"]
    return text


def footnotes(text: str) -> list[int]:
    return [int(n) for n in re.findall(r"\[(\d+)\]", text)]
