"""``magisterium-a2a ask``: one question answered on the terminal, as
``catholic_qa`` would answer it, with the same knowledge base and provider."""

from __future__ import annotations

import asyncio
import json
from typing import Annotated, Any

import typer
from rich.console import Console

from magisterium_a2a.server.cli.common import err, load_family
from magisterium_a2a.skills.catholic_qa import answer_parts
from magisterium_a2a.skills.knowledge.retrieval import KnowledgeBase
from magisterium_a2a.skills.knowledge.settings import KnowledgeSettings
from magisterium_a2a.skills.knowledge.store import StoreError
from magisterium_a2a.skills.qa.engine import Outcome, QAEngine, provider_from_settings
from magisterium_a2a.skills.qa.provider import ProviderError
from magisterium_a2a.skills.qa.settings import QASettings

ask_cli = typer.Typer()
out = Console(soft_wrap=True, highlight=False)


async def _answer(
    knowledge: KnowledgeSettings, settings: QASettings, question: str
) -> tuple[Outcome, str]:
    kb = KnowledgeBase.open(knowledge)
    try:
        provider = provider_from_settings(settings, kb)
        try:
            engine = QAEngine(kb, provider, sources=settings.qa_sources)
            return await engine.ask(question), provider.description
        finally:
            await provider.aclose()
    finally:
        await kb.aclose()


def source_facts(citation: dict[str, Any]) -> list[str]:
    """Title, reference, heading, then author and year, each said once: a
    catalogue entry's heading ("Encyclical letter, Leo XIII, 1891") already
    names the author and the year."""
    facts = [str(citation["document_title"])]
    if citation["document_reference"] not in (None, citation["document_title"]):
        facts.append(str(citation["document_reference"]))
    heading = citation["cited_text_heading"]
    if heading:
        facts.append(str(heading))
    said = " ".join(facts)
    byline = [
        str(x)
        for x in (citation["document_author"], citation["document_year"])
        if x and str(x) not in said
    ]
    if byline:
        facts.append(", ".join(byline))
    return facts


def _show(outcome: Outcome, provider: str) -> None:
    answer = outcome.answer
    err.print(f"[dim]Answered by {provider}; retrieval query: {outcome.query!r}[/dim]")
    out.print(answer.text, markup=False)
    if answer.citations:
        out.print("\n[bold]Sources[/bold]")
    for citation in answer.citations:
        out.print(
            f"[{citation['document_index'] + 1}] " + " — ".join(source_facts(citation)),
            markup=False,
        )
        out.print(f"    id: {citation['document_id']}", markup=False)
        if citation["source_url"]:
            out.print(f"    {citation['source_url']}", markup=False)
    if answer.related_questions:
        out.print("\n[bold]Related questions[/bold]")
        for related in answer.related_questions:
            out.print(f"- {related}", markup=False)


@ask_cli.command("ask")
def ask(
    question: Annotated[str, typer.Argument(help="The question, in quotes")],
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the artifact's parts as JSON")
    ] = False,
) -> None:
    """Answer a question from the knowledge base, with its citations (as catholic_qa does)."""
    knowledge, settings = load_family(KnowledgeSettings), load_family(QASettings)
    if not question.strip():
        err.print('[red]Ask a question:[/red] magisterium-a2a ask "What is grace?"')
        raise typer.Exit(2)
    try:
        outcome, provider = asyncio.run(_answer(knowledge, settings, question.strip()))
    except ValueError as exc:
        err.print(f"[red]Invalid configuration:[/red] {exc}")
        raise typer.Exit(2) from None
    except StoreError as exc:
        err.print(f"[red]Cannot open the knowledge base:[/red] {exc}")
        raise typer.Exit(1) from None
    except ProviderError as exc:
        err.print(f"[red]No answer:[/red] {exc}")
        raise typer.Exit(1) from None
    if as_json:
        parts = answer_parts(outcome.answer)
        # As the wire writes them: an absent field is left out, never null.
        dumped = [p.model_dump(mode="json", by_alias=True, exclude_none=True) for p in parts]
        out.print_json(json.dumps(dumped))
    else:
        _show(outcome, provider)
