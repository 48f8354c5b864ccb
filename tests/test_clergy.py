"""person_lookup end to end through /api/v1/a2a, and the clergy importer:
the 2025-04-29 Wikidata export of the College of Cardinals, small files
written here (CSV, SPARQL JSON, our JSON) with malformed rows, re-import,
and imports interrupted before and while the file is written."""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from magisterium_a2a.server.cli import cli
from magisterium_a2a.server.config import Settings
from magisterium_a2a.skills.people import store
from magisterium_a2a.skills.people.clergy import Person
from magisterium_a2a.skills.people.directory import SAMPLE, builtin_sample
from magisterium_a2a.skills.people.sample import build
from magisterium_a2a.skills.people.store import clergy_file, import_clergy, read_imported
from tests.support import ROOT, SHARED, harness

BUILTINS = (
    "magisterium_a2a.skills.pope_lookup:create",
    "magisterium_a2a.skills.person_lookup:create",
)
CARDINALS = SHARED / "refdata" / "clergy-wikidata-cardinals"
SAMPLE_FILE = ROOT / "skills" / "magisterium_a2a" / "skills" / "data" / "people" / SAMPLE
runner = CliRunner()

CSV_HEADER = "person,personLabel,birthDate,birthPlaceLabel,priestStartTime,bishopStartTime\n"
ROW_ONE = (
    "http://www.wikidata.org/entity/Q1000001,Anna Example,1950-01-02T00:00:00Z,Lyon,"
    "1975-06-01T00:00:00Z,1990-03-04T00:00:00Z\n"
)
ROW_BAD_DATE = "http://www.wikidata.org/entity/Q1000002,Bruno Example,1950-13-45,Rome,,\n"
ROW_THREE = "http://www.wikidata.org/entity/Q1000003,Carlo Example,1961-07-08T00:00:00Z,Milan,,\n"


def refdata(path: Path) -> Path:
    if not path.exists():
        pytest.skip(f"{path} is absent (../shared/refdata is provided in CI)")
    return path


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# -- the importer ------------------------------------------------------------------


def test_refdata_export_imports_and_reimports_without_duplicates(settings: Settings) -> None:
    source = refdata(CARDINALS / "wikidata_cardinals.csv")
    data_dir = settings.data_dir
    first = import_clergy(data_dir, source, as_of="2025-04-29")
    assert (first.added, first.updated, first.errors) == (252, 0, [])
    written = clergy_file(data_dir).read_bytes()
    again = import_clergy(data_dir, source, as_of="2025-04-29")
    assert (again.added, again.updated, again.unchanged) == (0, 0, 252)
    assert clergy_file(data_dir).read_bytes() == written
    people = {p.wikidata: p for p in read_imported(data_dir)}
    assert len(people) == 252
    prevost = people["Q6109517"]
    assert (prevost.name, prevost.born, prevost.created_cardinal, prevost.as_of) == (
        "Robert Francis Prevost",
        "1955-09-14",
        "2023-09-30",
        "2025-04-29",
    )


def test_builtin_sample_is_the_script_output_of_the_refdata() -> None:
    source = refdata(CARDINALS / "wikidata_cardinals.csv")
    licence = (CARDINALS / "LICENSE.md").read_text(encoding="utf-8")
    press_office = refdata(CARDINALS / "vatican_cardinals.csv").read_text(encoding="utf-8")
    rebuilt = build(source.read_text(encoding="utf-8"), licence, press_office)
    assert json.loads(SAMPLE_FILE.read_text(encoding="utf-8")) == rebuilt


def test_builtin_sample_says_as_of() -> None:
    sample = builtin_sample()
    assert len(sample) == 252
    assert all(p.as_of == "2025-04-29" for p in sample)
    header = json.loads(SAMPLE_FILE.read_text(encoding="utf-8"))
    assert "Cristian Consonni" in header["notice"] and "CC0" in header["credit"]
    # Two consecration dates, one birth date and six stale order labels contradict the record.
    assert len(header["dropped"]) == 9
    assert sum("cardinal_title" in d for d in header["dropped"]) == 6


def test_the_order_of_each_cardinal_is_the_press_offices() -> None:
    """Issue 19: Prevost was shown as a cardinal-deacon, though made a cardinal-bishop on
    2025-02-06, before the sample's date; the order now comes from the Holy See Press
    Office's list of 2025-04-29 (11 bishops, 2 Eastern patriarchs, 205 priests, 34 deacons)."""
    sample = {p.wikidata: p for p in builtin_sample()}
    orders = Counter(p.cardinal_order for p in sample.values())
    assert orders == {"bishop": 11, "patriarch": 2, "priest": 205, "deacon": 34}
    assert sample["Q6109517"].cardinal_order == "bishop"  # Prevost
    assert sample["Q6109517"].cardinal_title is None  # Wikidata's stale "cardinal-deacon"
    assert sample["Q515887"].cardinal_order == "priest"  # Burke, since 2021
    assert sample["Q44842"].cardinal_title == "Cardinal-bishop of Sabina-Poggio Mirteto"  # Re


def test_csv_malformed_rows_are_reported_by_line_and_the_others_imported(
    settings: Settings, tmp_path: Path
) -> None:
    extra_cells = "http://www.wikidata.org/entity/Q1000004,Dora Example,,,,,surplus\n"
    text = CSV_HEADER + ROW_ONE + ROW_BAD_DATE + ROW_THREE + extra_cells
    report = import_clergy(settings.data_dir, write(tmp_path, "c.csv", text))
    assert [str(e) for e in report.errors] == [
        "line 3: born: '1950-13-45' is not a date",
        "line 5: 6 columns expected",
    ]
    assert report.added == 2
    names = {p.name for p in read_imported(settings.data_dir)}
    assert names == {"Anna Example", "Carlo Example"}


def test_sparql_json_rows_merge_and_bad_bindings_are_reported_by_line(
    settings: Settings, tmp_path: Path
) -> None:
    def binding(item: str, label: str, **more: str) -> dict[str, Any]:
        row = {"item": {"type": "uri", "value": f"http://www.wikidata.org/entity/{item}"}}
        row["itemLabel"] = {"type": "literal", "value": label}
        row.update({k: {"type": "literal", "value": v} for k, v in more.items()})
        return row

    data = {
        "head": {"vars": ["item", "itemLabel", "educatedAtLabel", "birthDate"]},
        "results": {
            "bindings": [
                binding("Q2000001", "Elena Example", educatedAtLabel="Gregorian University"),
                binding("Q2000001", "Elena Example", educatedAtLabel="University of Navarre"),
                {"item": {"type": "uri", "value": "not an item"}},
                binding("Q2000002", "Fabio Example", birthDate="1944-02-29T00:00:00Z"),
            ]
        },
    }
    path = write(tmp_path, "export.json", json.dumps(data, indent=2))
    report = import_clergy(settings.data_dir, path, as_of="2026-01-01")
    lines = path.read_text().splitlines()
    [error] = report.errors
    assert lines[error.line - 1].strip() == "{"  # the bad binding starts on the reported line
    assert '"not an item"' in lines[error.line + 2]
    assert "not a Wikidata item" in error.message
    people = {p.wikidata: p for p in read_imported(settings.data_dir)}
    assert people["Q2000001"].education == ["Gregorian University", "University of Navarre"]
    assert people["Q2000002"].born == "1944-02-29" and people["Q2000002"].as_of == "2026-01-01"


def test_our_json_format_updates_in_place(settings: Settings, tmp_path: Path) -> None:
    data_dir = settings.data_dir
    records = [
        {"id": "gina-example", "name": "Gina Example", "position": "Bishop of Nowhere"},
        {"name": "Hugo Example", "ordained_priest": "1999-02-30"},
    ]
    first = write(tmp_path, "ours.json", json.dumps({"people": records}, indent=1))
    report = import_clergy(data_dir, first)
    assert [str(e) for e in report.errors] == ["line 8: '1999-02-30' is not a date"]
    assert report.added == 1
    records[0]["position"] = "Archbishop of Somewhere"
    second = write(tmp_path, "ours2.json", json.dumps(records[:1]))
    update = import_clergy(data_dir, second)
    assert (update.added, update.updated) == (0, 1)
    [gina] = read_imported(data_dir)
    assert gina.position == "Archbishop of Somewhere" and gina.source == "imported"


def test_unreadable_files_are_refused(settings: Settings, tmp_path: Path) -> None:
    data_dir = settings.data_dir
    for name, text in (("x.json", "{not json"), ("x.xml", "<a/>"), ("x.json", '{"people": 3}')):
        with pytest.raises(store.ClergyImportError):
            import_clergy(data_dir, write(tmp_path, name, text))
    assert not clergy_file(data_dir).exists()
    clergy_file(data_dir).parent.mkdir(parents=True)
    clergy_file(data_dir).write_text('{"people": [{"nom": "x"}]}')
    with pytest.raises(store.ClergyImportError, match="damaged"):
        read_imported(data_dir)


def test_a_csv_saved_with_a_byte_order_mark_imports(settings: Settings, tmp_path: Path) -> None:
    path = tmp_path / "bom.csv"
    path.write_text(CSV_HEADER + ROW_ONE, encoding="utf-8-sig")
    assert import_clergy(settings.data_dir, path).added == 1


@pytest.mark.parametrize("where", ["before the rename", "while writing"])
def test_an_interrupted_import_leaves_the_previous_file(
    settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    data_dir = settings.data_dir
    import_clergy(data_dir, write(tmp_path, "a.csv", CSV_HEADER + ROW_ONE))
    before = clergy_file(data_dir).read_bytes()
    if where == "before the rename":

        def stop(*_: Any) -> None:
            raise KeyboardInterrupt

        monkeypatch.setattr(Path, "replace", stop)
    else:
        calls = {"n": 0}
        dump = Person.model_dump_json

        def stop_on_second(self: Person, **kw: Any) -> str:
            calls["n"] += 1
            if calls["n"] == 2:
                raise KeyboardInterrupt
            return dump(self, **kw)

        monkeypatch.setattr(Person, "model_dump_json", stop_on_second)
    with pytest.raises(KeyboardInterrupt):
        import_clergy(data_dir, write(tmp_path, "b.csv", CSV_HEADER + ROW_ONE + ROW_THREE))
    assert clergy_file(data_dir).read_bytes() == before
    assert sorted(p.name for p in clergy_file(data_dir).parent.iterdir()) == ["clergy.json"]


async def test_cli_reports_rows_and_exit_codes(settings: Settings, tmp_path: Path) -> None:
    env = {"A2A_DATA_DIR": str(settings.data_dir)}
    bad = write(tmp_path, "bad.csv", CSV_HEADER + ROW_ONE + ROW_BAD_DATE)

    def run(*args: str) -> Any:
        return runner.invoke(cli, ["content", "import", "clergy", *args], env=env)

    result = await asyncio.to_thread(run, str(bad), "--as-of", "2026-11-01")
    assert result.exit_code == 1
    assert "line 3: born: '1950-13-45' is not a date" in result.stderr
    assert "1 added, 0 updated, 0 unchanged, 1 rows rejected" in result.stdout
    good = write(tmp_path, "good.csv", CSV_HEADER + ROW_THREE)
    assert (await asyncio.to_thread(run, str(good))).exit_code == 0
    assert (await asyncio.to_thread(run, str(tmp_path / "missing.csv"))).exit_code == 2
    refused = await asyncio.to_thread(run, str(good), "--as-of", "yesterday")
    assert refused.exit_code == 1 and "is not a date" in refused.stderr
    assert len(read_imported(settings.data_dir)) == 2


# -- end to end --------------------------------------------------------------------


async def _send(
    settings: Settings, text: str = "", parts: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    async with harness(settings, builtins=BUILTINS) as h:
        token = await h.token()
        response = await h.send(token, text, "person_lookup", parts=parts)
        assert response.status_code == 200
        task: dict[str, Any] = response.json()["result"]
        return task


def _parts(task: dict[str, Any]) -> list[dict[str, Any]]:
    assert task["status"]["state"] == "completed"
    assert [a["name"] for a in task["artifacts"]] == ["person"]
    parts: list[dict[str, Any]] = task["artifacts"][0]["parts"]
    return parts


async def test_by_name_says_as_of(settings: Settings) -> None:
    text, data = _parts(await _send(settings, "Cardinal Tagle"))
    assert text["text"].startswith("Luis Antonio Tagle — cardinal")
    assert "as of 2025-04-29" in text["text"]
    [person] = data["data"]["people"]
    assert (person["id"], person["wikidata"], person["as_of"]) == (
        "luis-antonio-tagle",
        "Q26901",
        "2025-04-29",
    )


async def test_by_id_and_by_data_part(settings: Settings) -> None:
    by_text = _parts(await _send(settings, "pietro-parolin"))
    by_id = _parts(await _send(settings, parts=[_data(person_id="pietro-parolin")]))
    by_query = _parts(await _send(settings, parts=[_data(query="Parolin")]))
    assert by_text == by_id == by_query
    assert "Born 1955-01-17, Schiavon." in by_id[0]["text"]


async def test_a_cardinal_who_became_pope_points_to_pope_lookup(settings: Settings) -> None:
    text, data = _parts(await _send(settings, "Prevost"))
    assert "Later elected pope as Leo XIV: see pope_lookup, pope_id leo-xiv." in text["text"]
    assert data["data"]["people"][0]["pope_id"] == "leo-xiv"


async def test_popes_are_pointers_to_pope_lookup(settings: Settings) -> None:
    text, data = _parts(await _send(settings, "Pope John Paul II"))
    assert "Popes are served by pope_lookup: ask it for pope_id john-paul-ii" in text["text"]
    assert data["data"]["people"][0]["kind"] == "pope"


async def test_ambiguous_name_ranks_candidates_with_ids(settings: Settings) -> None:
    text, data = _parts(await _send(settings, "John"))
    assert text["text"].startswith("Several people match 'John'; ask again with one of these ids:")
    assert "as of 2025-04-29" in text["text"]
    assert len(data["data"]["people"]) == 10
    kinds = [p["kind"] for p in data["data"]["people"]]
    assert kinds == sorted(kinds)  # the cardinals named John before the popes


@pytest.mark.parametrize(
    ("query", "ident", "rank"),
    [
        ("Prevost", "robert-francis-prevost", "cardinal-bishop"),
        ("Cardinal Tagle", "luis-antonio-tagle", "cardinal-bishop"),
        ("Cardinal Burke", "raymond-leo-burke", "cardinal-priest"),
        ("Cardinal Farrell", "kevin-farrell", "cardinal-deacon"),
        ("Cardinal Sako", "louis-raphael-i-sako", "cardinal-bishop (Eastern patriarch)"),
    ],
)
async def test_ranks_are_the_orders_of_the_college(
    settings: Settings, query: str, ident: str, rank: str
) -> None:
    text, data = _parts(await _send(settings, query))
    [person] = data["data"]["people"]
    assert (person["id"], person["rank"]) == (ident, rank)
    assert text["text"].startswith(f"{person['name']} — {rank} — person_id {ident}")
    assert "cardinal-deacon" not in text["text"] or rank == "cardinal-deacon"


@pytest.mark.parametrize(
    ("query", "ident", "position"),
    [
        ("Cardinal Parolin", "pietro-parolin", "Secretary of State"),
        ("Secretary of State", "pietro-parolin", "Secretary of State"),
        ("Vatican Secretary of State", "pietro-parolin", "Secretary of State"),
        ("Archbishop of Chicago", "blase-j-cupich", "Archbishop of Chicago"),
        ("the camerlengo", "kevin-farrell", "Camerlengo of the Holy Roman Church"),
        ("dean of the college of cardinals", "giovanni-battista-re", "Dean of the College"),
    ],
)
async def test_positions_are_shown_dated_and_found(
    settings: Settings, query: str, ident: str, position: str
) -> None:
    """Issue 19: position was null for everyone ("Cardinal Parolin" never said Secretary
    of State); offices come from the authored table, dated 2025-04-20."""
    text, data = _parts(await _send(settings, query))
    [person] = data["data"]["people"]
    assert person["id"] == ident and position in person["position"]
    assert person["position_as_of"] == "2025-04-20"
    assert person["position_source"].startswith(("Holy See Press Office", "Praedicate"))
    assert f"Position (as of 2025-04-20): {person['position']}." in text["text"]


async def test_an_imported_position_is_kept(settings: Settings, tmp_path: Path) -> None:
    record = {"name": "Pietro Parolin", "wikidata": "Q574058", "position": "Imported office"}
    import_clergy(settings.data_dir, write(tmp_path, "p.json", json.dumps([record])))
    _, data = _parts(await _send(settings, "Pietro Parolin"))
    [person] = data["data"]["people"]
    assert person["position"] == "Imported office" and person["position_as_of"] is None


@pytest.mark.parametrize(
    ("query", "ident"),
    [
        ("Cardinal Tagel", "luis-antonio-tagle"),  # two letters swapped
        ("Cardinal Parolini", "pietro-parolin"),
        ("Cardinal Mueller", "gerhard-ludwig-muller"),  # not Walter Brandmüller
        ("Cardinal Gregory", "wilton-daniel-gregory"),  # a cardinal, not Pope Gregory
    ],
)
async def test_names_with_typos_and_titles(settings: Settings, query: str, ident: str) -> None:
    _, data = _parts(await _send(settings, query))
    assert data["data"]["people"][0]["id"] == ident


async def test_a_name_only_its_first_word_shares_is_not_found(settings: Settings) -> None:
    """Issue 19 (the alphabetical fillers): "John Henry Newman" used to list John Njue,
    John Dew and the popes named John."""
    assert _parts(await _send(settings, "John Henry Newman")) == [
        {"kind": "text", "text": "No person found."}
    ]


async def test_imported_clergy_are_found(settings: Settings, tmp_path: Path) -> None:
    import_clergy(settings.data_dir, write(tmp_path, "a.csv", CSV_HEADER + ROW_ONE))
    text, _ = _parts(await _send(settings, "Anna Example"))
    assert text["text"].startswith("Anna Example — bishop — person_id anna-example")
    assert "Source: Wikidata." in text["text"]


@pytest.mark.parametrize(
    "parts",
    [
        [{"kind": "text", "text": "Xyzzy Qwertyuiop"}],
        [{"kind": "data", "data": {"person_id": "nobody-at-all"}}],
    ],
)
async def test_not_found(settings: Settings, parts: list[dict[str, Any]]) -> None:
    assert _parts(await _send(settings, parts=parts)) == [
        {"kind": "text", "text": "No person found."}
    ]


@pytest.mark.parametrize(
    ("data", "says"),
    [
        ({"person_id": ""}, "'person_id' must be a non-empty string"),
        ({"name": "Tagle"}, "Unknown field(s) 'name'"),
        ({"query": ["Tagle"]}, "'query' must be a non-empty string"),
    ],
)
async def test_bad_data_part_fails_the_task(
    settings: Settings, data: dict[str, Any], says: str
) -> None:
    task = await _send(settings, parts=[{"kind": "data", "data": data}])
    assert task["status"]["state"] == "failed" and task["artifacts"] == []
    assert says in task["status"]["message"]["parts"][0]["text"]


def _data(**fields: str) -> dict[str, Any]:
    return {"kind": "data", "data": fields}
