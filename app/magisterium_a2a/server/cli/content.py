"""``magisterium-a2a content``: import content into the data directory.

``content import lectionary PATH`` reads our own lectionary formats (``.txt``,
``.csv``, ``.json``; see ``skills/liturgy/lectionary_format.py``) or the Tamil
Lectionary SQL dump (``.sql``); ``content import martyrology PATH`` reads the
CRMEDR registry, the 1914 English edition or Divinum Officium's text files.
Imported data lives under ``<data_dir>/liturgy`` and is read at start-up.
``content import dioceses PATH`` and ``content import diocese-statistics PATH``
fill ``<data_dir>/dioceses/dioceses.sqlite`` (see ``skills/dioceses/formats.py``);
a running server follows them. ``content import clergy PATH`` reads a Wikidata
SPARQL export (JSON or CSV) or our own clergy JSON into ``<data_dir>/people``,
read at start-up.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from magisterium_a2a.server.cli.common import err, load_family, load_settings
from magisterium_a2a.skills.dioceses.formats import FormatError as DioceseFormatError
from magisterium_a2a.skills.dioceses.importing import import_directory, import_statistics
from magisterium_a2a.skills.liturgy.calendar import CalendarError, LiturgicalCalendar
from magisterium_a2a.skills.liturgy.engine import save_lectionary, save_martyrology
from magisterium_a2a.skills.liturgy.lectionary import Table
from magisterium_a2a.skills.liturgy.lectionary_format import (
    FormatError,
    parse_csv,
    parse_json,
    parse_text,
)
from magisterium_a2a.skills.liturgy.martyrology import MartyrologyImportError, import_martyrology
from magisterium_a2a.skills.liturgy.settings import LiturgySettings
from magisterium_a2a.skills.liturgy.tamil import TamilImportError, celebration_names, parse_dump
from magisterium_a2a.skills.people.clergy import ClergyImportError
from magisterium_a2a.skills.people.dates import DateFormatError, HistoricalDate
from magisterium_a2a.skills.people.store import import_clergy

content_cli = typer.Typer(
    help="Import content (lectionary, martyrology, dioceses, diocese statistics, clergy).",
    no_args_is_help=True,
)
import_cli = typer.Typer(help="Import a data set into the data directory.", no_args_is_help=True)
content_cli.add_typer(import_cli, name="import")

PathArgument = Annotated[Path, typer.Argument(help="File or folder to import")]


@import_cli.command("lectionary")
def import_lectionary(path: PathArgument) -> None:
    """Import a lectionary table; it fills what the built-in table lacks."""
    settings = load_family(LiturgySettings)
    if not path.is_file():
        err.print(f"[red]No such file:[/red] {path}")
        raise typer.Exit(2)
    try:
        text = path.read_text(encoding="utf-8")
        table = _read_table(path, text, settings.liturgy_calendar, settings.liturgy_locale)
    except (FormatError, TamilImportError, CalendarError, UnicodeDecodeError) as exc:
        err.print(f"[red]Cannot import {path}:[/red] {exc}")
        raise typer.Exit(1) from None
    target = save_lectionary(settings, table)
    typer.echo(f"Imported {len(table.entries)} lectionary entries from {path} into {target}.")


def _read_table(path: Path, text: str, calendar_id: str, locale: str) -> Table:
    suffix = path.suffix.lower()
    name = path.stem
    if suffix == ".sql":
        names = celebration_names(LiturgicalCalendar(calendar_id, locale))
        table, report = parse_dump(text, names, name=name)
        typer.echo(
            f"Read {report.rows} rows: {report.entries} entries; "
            f"{len(report.skipped_days)} day keys and {report.skipped_refs} references not placed."
        )
        return table
    if suffix == ".csv":
        return parse_csv(text, name)
    if suffix == ".json":
        return parse_json(text, name)
    if suffix == ".txt":
        return parse_text(text, name)
    raise FormatError(f"unknown lectionary format {suffix!r} (use .txt, .csv, .json or .sql)")


@import_cli.command("martyrology")
def import_martyrology_command(path: PathArgument) -> None:
    """Import a Roman Martyrology data set (one of the three known formats)."""
    settings = load_family(LiturgySettings)
    if not path.exists():
        err.print(f"[red]No such file or folder:[/red] {path}")
        raise typer.Exit(2)
    try:
        martyrology = import_martyrology(path)
    except MartyrologyImportError as exc:
        err.print(f"[red]Cannot import:[/red] {exc}")
        raise typer.Exit(1) from None
    target = save_martyrology(settings, martyrology)
    typer.echo(f"Imported {len(martyrology.entries)} martyrology entries into {target}.")


def _require_file(path: Path) -> None:
    if not path.is_file():
        err.print(f"[red]No such file:[/red] {path}")
        raise typer.Exit(2)


def _cannot_import(path: Path, exc: Exception) -> typer.Exit:
    err.print(
        f"[red]Cannot import {escape(str(path))}:[/red] {escape(str(exc))}",
        soft_wrap=True,
        highlight=False,
    )
    return typer.Exit(1)


def _finish(path: Path, errors: Sequence[object], summary: str, unit: str = "lines") -> None:
    """Rejected lines one per line, then the summary; exit 1 when any was rejected
    (the good lines are in all the same)."""
    for error in errors:
        err.print(f"{path}: {error}", highlight=False, markup=False, soft_wrap=True)
    typer.echo(f"{summary} {len(errors)} {unit} rejected.")
    if errors:
        raise typer.Exit(1)


@import_cli.command("dioceses")
def import_dioceses_command(path: PathArgument) -> None:
    """Import diocese directory records (our JSON/YAML/CSV, or a Wikidata export)."""
    settings = load_settings()
    _require_file(path)
    try:
        report = import_directory(settings.data_dir, path)
    except DioceseFormatError as exc:
        raise _cannot_import(path, exc) from None
    _finish(
        path,
        report.errors,
        f"Imported {report.imported} jurisdictions and completed {report.merged} known ones "
        f"from {path};",
    )


@import_cli.command("diocese-statistics")
def import_diocese_statistics_command(
    path: PathArgument,
    diocese: Annotated[
        str | None,
        typer.Option(help="The jurisdiction (id or code) of a wide CSV without a Diocese column"),
    ] = None,
) -> None:
    """Import yearly diocese statistics: a long CSV or Catholic-Hierarchy's wide table."""
    settings = load_settings()
    _require_file(path)
    try:
        report = import_statistics(settings.data_dir, path, diocese)
    except DioceseFormatError as exc:
        raise _cannot_import(path, exc) from None
    _finish(
        path,
        report.errors,
        f"Imported {report.imported} diocese-years and {report.merged} financial values "
        f"from {path};",
    )


@import_cli.command("clergy")
def import_clergy_command(
    path: PathArgument,
    as_of: Annotated[
        str | None,
        typer.Option("--as-of", help="Date the data describes (YYYY-MM-DD), shown in answers"),
    ] = None,
) -> None:
    """Import clergy: a Wikidata SPARQL export (.json or .csv) or our own JSON format."""
    settings = load_settings()
    _require_file(path)
    try:
        if as_of is not None:
            HistoricalDate.parse(as_of)
        report = import_clergy(settings.data_dir, path, as_of=as_of)
    except (ClergyImportError, DateFormatError, OSError) as exc:
        raise _cannot_import(path, exc) from None
    _finish(
        path,
        report.errors,
        f"Imported clergy from {path} into {report.target}: {report.added} added, "
        f"{report.updated} updated, {report.unchanged} unchanged,",
        unit="rows",
    )
