"""The knowledge-base commands: ``init``, ``ingest``, ``documents list|show|delete|embed``
and ``doctor``."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TaskID,
    TextColumn,
    TimeRemainingColumn,
)
from rich.table import Table
from rich.text import Text

from magisterium_a2a.server.cli.common import load_family
from magisterium_a2a.skills.knowledge.embeddings import EmbeddingsError
from magisterium_a2a.skills.knowledge.ingest import Defaults, IngestError
from magisterium_a2a.skills.knowledge.ingestion import IngestReport, embed_missing, ingest
from magisterium_a2a.skills.knowledge.library import Progress as IngestProgress
from magisterium_a2a.skills.knowledge.library import delete_document, knowledge_dir, prepare
from magisterium_a2a.skills.knowledge.model import KINDS, DocumentKind, Origin
from magisterium_a2a.skills.knowledge.retrieval import KnowledgeBase
from magisterium_a2a.skills.knowledge.settings import KnowledgeSettings
from magisterium_a2a.skills.knowledge.store import Store, StoreError

knowledge_cli = typer.Typer()
documents_cli = typer.Typer(help="List, show, delete and embed stored documents.")
knowledge_cli.add_typer(documents_cli, name="documents", no_args_is_help=True)
# Paths and ids must not be broken across lines: no wrapping.
out = Console(soft_wrap=True)
err = Console(stderr=True, soft_wrap=True)


@contextlib.contextmanager
def _store_errors() -> Iterator[None]:
    """The store's and the embeddings endpoint's failures, as messages and exit 1."""
    try:
        yield
    except StoreError as exc:
        err.print(f"[red]Cannot open the knowledge store:[/red] {exc}")
        raise typer.Exit(1) from None
    except EmbeddingsError as exc:
        err.print(
            f"[red]Embedding failed:[/red] {exc}. The documents and the vectors computed so far "
            "are stored (passages without a vector are found by their words): run "
            "'magisterium-a2a documents embed' to compute the rest."
        )
        raise typer.Exit(1) from None


class _Rate(ProgressColumn):
    """Items a second, averaged over rich's recent window (passages while embedding)."""

    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        unit = task.fields.get("unit", "")
        return Text("" if speed is None else f"{speed:,.1f} {unit}/s", style="progress.data.speed")


def _bar(console: Console) -> Progress:
    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        _Rate(),
        TimeRemainingColumn(),
        console=console,
        transient=True,
    )


def _progress(bar: Progress) -> IngestProgress:
    tasks: dict[str, TaskID] = {}

    def files(total: int) -> None:
        tasks["files"] = bar.add_task("Reading files", total=total, unit="files")

    def file_done(path: Path) -> None:
        bar.advance(tasks["files"])

    def embedding(total: int) -> None:
        tasks["embed"] = bar.add_task("Embedding passages", total=total, unit="passages")

    def embedded(count: int) -> None:
        bar.advance(tasks["embed"], count)

    return IngestProgress(files, file_done, embedding, embedded)


def _kind(value: str | None) -> DocumentKind | None:
    if value is None:
        return None
    if value not in KINDS:
        err.print(f"[red]Unknown kind {value!r};[/red] choose one of {', '.join(KINDS)}.")
        raise typer.Exit(2)
    return DocumentKind(value)


@knowledge_cli.command("ingest")
def ingest_command(
    paths: Annotated[
        list[Path], typer.Argument(help="Files or directories (Markdown, text, HTML, JSONL, PDF)")
    ],
    kind: Annotated[
        str | None, typer.Option(help=f"Kind for documents that do not say ({', '.join(KINDS)})")
    ] = None,
    author: Annotated[str | None, typer.Option(help="Author for documents that do not say")] = None,
    language: Annotated[
        str | None, typer.Option(help="Language for documents that do not say (default en)")
    ] = None,
    include: Annotated[
        str | None, typer.Option(help="Only files under directories matching this glob")
    ] = None,
) -> None:
    """Add or update documents from files; unchanged documents are left alone."""
    settings = load_family(KnowledgeSettings)
    defaults = Defaults(kind=_kind(kind), author=author, language=language)
    try:
        with _store_errors(), _bar(err) as bar:
            report = ingest(
                paths, settings, defaults=defaults, include=include, progress=_progress(bar)
            )
    except IngestError as exc:
        err.print(f"[red]Cannot ingest[/red] {exc}")
        raise typer.Exit(2) from None
    _summary(report)
    if report.errors:
        raise typer.Exit(1)


def _summary(report: IngestReport) -> None:
    for error in report.errors:
        err.print(f"[red]error[/red] {error}")
    for path in report.skipped_files:
        err.print(f"[yellow]skipped[/yellow] {path}: not a supported file type")
    out.print(
        f"Ingested {report.documents} documents from {report.files} files in "
        f"{report.seconds:.1f} s: {len(report.added)} added, {len(report.replaced)} replaced, "
        f"{len(report.unchanged)} unchanged; {report.passages} passages written"
        + (f", {report.embedded} embedded" if report.embedded else "")
        + (
            f"; {len(report.superseded)} catalogue entries now have their full text"
            if report.superseded
            else ""
        )
        + (f"; {len(report.errors)} files failed" if report.errors else "")
        + "."
    )


@knowledge_cli.command("init")
def init_command() -> None:
    """Prepare the data directory as a server would at start-up (the built-in catalogue,
    the full-text index, the catalogue's vectors), then exit: the one-shot step before
    several servers start on a fresh, shared data directory. Running it again changes nothing."""
    settings = load_family(KnowledgeSettings)
    started = time.monotonic()
    try:
        with _store_errors():
            kb = KnowledgeBase.open(settings)
    except OSError as exc:
        err.print(f"[red]Cannot prepare the data directory:[/red] {exc}")
        raise typer.Exit(1) from None
    try:
        stats = kb.store.stats()
        mode = kb.mode
    finally:
        asyncio.run(kb.aclose())
    out.print(
        f"Data directory ready in {time.monotonic() - started:.1f} s: "
        f"{knowledge_dir(settings)} holds {stats.documents} documents, {stats.passages} passages; "
        f"search mode {mode.mode.upper()}."
    )


def _store() -> tuple[Store, KnowledgeSettings]:
    settings = load_family(KnowledgeSettings)
    try:
        prepare(settings)
        return Store(knowledge_dir(settings)), settings
    except (StoreError, OSError) as exc:
        err.print(f"[red]Cannot open the knowledge store:[/red] {exc}")
        raise typer.Exit(1) from None


@documents_cli.command("list")
def documents_list(
    kind: Annotated[str | None, typer.Option(help="Only this kind")] = None,
    origin: Annotated[
        str | None, typer.Option(help="Only 'catalogue' (built-in) or 'ingest' documents")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object per line")] = False,
) -> None:
    """List stored documents."""
    _kind(kind)
    if origin is not None and origin not in (o.value for o in Origin):
        err.print("[red]--origin must be 'catalogue' or 'ingest'.[/red]")
        raise typer.Exit(2)
    store, _ = _store()
    try:
        rows = store.documents(origin=Origin(origin) if origin else None, kind=kind)
    finally:
        store.close()
    if as_json:
        for row in rows:
            record = row.info.model_dump(mode="json")
            record.update(origin=row.origin.value, passages=row.passages, source=row.source)
            typer.echo(json.dumps(record, ensure_ascii=False))
        return
    table = Table("id", "title", "author", "year", "kind", "origin", "passages")
    for row in rows:
        info = row.info
        table.add_row(
            info.id,
            info.title,
            info.author or "",
            str(info.year or ""),
            info.kind.value,
            row.origin.value,
            str(row.passages),
        )
    out.print(table)
    out.print(f"{len(rows)} documents.")


@documents_cli.command("show")
def documents_show(
    document_id: Annotated[str, typer.Argument(metavar="ID", help="The document id")],
    full: Annotated[bool, typer.Option(help="Print the whole body, not its beginning")] = False,
) -> None:
    """Show a document's metadata and text."""
    store, _ = _store()
    try:
        document = store.document(document_id)
    finally:
        store.close()
    if document is None:
        err.print(f"[red]No document with id {document_id!r}.[/red]")
        raise typer.Exit(1)
    for label, value in (
        ("id", document.id),
        ("title", document.title),
        ("author", document.author),
        ("ref", document.ref),
        ("url", document.url),
        ("year", document.year),
        ("kind", document.kind.value),
        ("genre", document.genre),
        ("language", document.language),
        ("origin", document.origin.value),
        ("full text", "yes" if document.full_text else "no (catalogue abstract)"),
        ("source", document.source),
        ("sections", len(document.sections)),
    ):
        if value is not None:
            out.print(f"[bold]{label}:[/bold] {value}", highlight=False)
    body = document.body
    limit = 2000
    out.print()
    out.print(body if full or len(body) <= limit else body[:limit] + " [...]", highlight=False)


@documents_cli.command("delete")
def documents_delete(
    document_id: Annotated[str, typer.Argument(metavar="ID", help="The document id")],
) -> None:
    """Delete a document (an ingested full text gives way to its catalogue entry)."""
    store, settings = _store()
    try:
        outcome = delete_document(store, settings, document_id)
    finally:
        store.close()
    if outcome is None:
        err.print(f"[red]No document with id {document_id!r}.[/red]")
        raise typer.Exit(1)
    if outcome == "restored":
        out.print(f"Deleted {document_id}; its built-in catalogue entry is served again.")
    else:
        out.print(f"Deleted {document_id}.")


@documents_cli.command("embed")
def documents_embed() -> None:
    """Compute embeddings for every passage that has none for the configured models; after an
    interruption, only what is still missing (vectors are committed as they are computed)."""
    settings = load_family(KnowledgeSettings)
    try:
        with _store_errors(), _bar(err) as bar:
            count = embed_missing(settings, _progress(bar))
    except ValueError as exc:
        err.print(f"[red]{exc}[/red]")
        raise typer.Exit(2) from None
    out.print(f"Embedded {count} passages.")


def knowledge_report(settings: KnowledgeSettings) -> int:
    """Print the knowledge store's state and search mode; the number of problems."""
    problems = 0
    try:
        kb = KnowledgeBase.open(settings)
    except (StoreError, OSError, ValueError) as exc:
        err.print(f"[red]knowledge store: cannot open it:[/red] {exc}")
        return 1
    try:
        stats = kb.store.stats()
        mode = kb.mode
        in_sync = kb.store.index_in_sync()
        searched = dict(kb.vector_states)
    finally:
        asyncio.run(kb.aclose())
    out.print(
        f"[bold]knowledge store:[/bold] {knowledge_dir(settings)}\n"
        f"  documents: {stats.documents} ({stats.catalogue_documents} from the built-in "
        f"catalogue{'' if settings.builtin_corpus else ', disabled by A2A_BUILTIN_CORPUS'})\n"
        f"  passages: {stats.passages}, in the full-text index: {stats.indexed_passages}"
        f" ({'consistent' if in_sync else 'NOT consistent: restart or run ingest to rebuild'})\n"
        f"  size: database {stats.database_bytes / 1e6:.1f} MB, "
        f"index {stats.index_bytes / 1e6:.1f} MB",
        highlight=False,
    )
    if stats.embedded:
        vectors = ", ".join(f"{model}: {n}" for model, n in sorted(stats.embedded.items()))
        out.print(f"  vectors: {vectors}", highlight=False)
    for model, state in searched.items():
        # Whether the approximate index (ann.py) serves, its file and size, or why not.
        out.print(f"  vector search, {model}: {state}", highlight=False)
    problems += not in_sync
    out.print(f"[bold]search mode:[/bold] {mode.mode.upper()}: {mode.reason}", highlight=False)
    embedder = kb.embedder
    if embedder is not None:
        label = "embedding model" if embedder.url == "in-process" else "embeddings endpoint"
        try:
            started = time.monotonic()
            vector = next(embedder.embed(["doctor"]))
            elapsed = (time.monotonic() - started) * 1000
            out.print(
                f"[bold]{label}:[/bold] {embedder.model} ({embedder.url}) answered "
                f"{vector.shape[1]}-dimensional vectors in {elapsed:.0f} ms",
                highlight=False,
            )
        except EmbeddingsError as exc:
            problems += 1
            err.print(f"[red]{label}:[/red] {exc}")
    return problems
