"""``diocese_lookup`` and ``diocese_statistics_lookup`` end to end through
/api/v1/a2a, and the two importers (``content import dioceses`` and
``content import diocese-statistics``) on small files written here: bad lines
reported by number while the rest go in, re-imports that change nothing, and
an interrupted import that writes nothing."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from magisterium_a2a.server.config import Settings
from magisterium_a2a.skills.dioceses import importing
from magisterium_a2a.skills.dioceses.model import DERIVED, METRICS
from magisterium_a2a.skills.dioceses.store import (
    Reader,
    Statistic,
    database_path,
    put_statistics,
    writing,
)
from tests.kb_support import run_cli
from tests.support import Harness, a2a_schema, harness, validate_definition

BUILTINS = (
    "magisterium_a2a.skills.diocese_lookup:create",
    "magisterium_a2a.skills.diocese_statistics_lookup:create",
)
LOOKUP = "diocese_lookup"
STATISTICS = "diocese_statistics_lookup"

# Figures below are made up for the tests; nothing here is a fact about a diocese.
LONG_CSV = """diocese,year,metric,value,source
chicago,2017,catholics,"2,100,000",test-a
chicago,2018,catholics,2110000,test-a
chicago,2019,catholics,2120000,test-a
chicago,2020,catholics,2130000,test-a
chicago,2021,catholics,2140000,test-a
chicago,2022,catholics,2150000,test-b
chicago,2022,diocesan_priests,700,test-b
chicago,2022,religious_priests,500,test-b
chicago,2022,percent_catholic,35.5,test-b
chicago,2023,catholics,2160000,test-b
chicago,2023,total_revenue,1500000,test-report
chicago,2023,net_assets,-20000,test-report
"""
WIDE_CSV = """Year,Catholics,Total Population,Percent Catholic,Diocesan Priests,Religious Priests,\
Total Priests,Catholics Per Priest,Permanent Deacons,Male Religious,Female Religious,Parishes,Source
1950,"1,000,000","3,000,000",33.3%,400,200,600,"1,666",,250,"1,200",300,test-w
1970,"1,200,000","4,000,000",30.0%,450,250,700,"1,714",10,260,"1,100",310,test-w
2000,"1,300,000",,,500,,,,,,,320,test-w
"""


async def ask(h: Harness, skill: str, part: str | dict[str, Any]) -> dict[str, Any]:
    token = await h.token()
    parts = (
        [{"kind": "text", "text": part}]
        if isinstance(part, str)
        else [{"kind": "data", "data": part}]
    )
    response = await h.send(token, skill=skill, parts=parts)
    assert response.status_code == 200, response.text
    task: dict[str, Any] = response.json()["result"]
    return task


def answer(task: dict[str, Any]) -> tuple[str, dict[str, Any] | None]:
    assert task["status"]["state"] == "completed", task["status"]
    (artifact,) = task["artifacts"]
    parts = artifact["parts"]
    data = parts[1]["data"] if len(parts) > 1 else None
    return parts[0]["text"], data


def failure(task: dict[str, Any]) -> str:
    assert task["status"]["state"] == "failed"
    assert task["artifacts"] == []
    text: str = task["status"]["message"]["parts"][0]["text"]
    return text


@pytest.fixture
async def h(settings: Settings) -> AsyncIterator[Harness]:
    async with harness(settings, builtins=BUILTINS) as running:
        yield running


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def statistic_rows(settings: Settings) -> list[tuple[Any, ...]]:
    with sqlite3.connect(database_path(settings.data_dir)) as db:
        return db.execute("SELECT * FROM statistics ORDER BY 1, 2, 3").fetchall()


# -- lookups ------------------------------------------------------------------------


async def test_lookup_by_name(h: Harness) -> None:
    task = await ask(h, LOOKUP, "Archdiocese of Chicago")
    assert task["artifacts"][0]["name"] == "diocese"
    text, data = answer(task)
    assert data is not None
    record = data["diocese"]
    assert record["id"] == "chicago" and record["name"] == "Archdiocese of Chicago"
    assert record["type"] == "archdiocese" and record["province"] == "Chicago"
    assert record["metropolitan"] == "chicago" and record["erected"] == 1843
    assert record["cathedral"] == "Holy Name Cathedral"
    assert "springfield-in-illinois" in record["suffragans"] and len(record["suffragans"]) == 5
    assert "Holy Name Cathedral" in text and "Province of Chicago" in text
    assert data["statistics"] == [] and data["statistics_loaded"] is False
    assert data["financials"] is None
    assert "No statistics are loaded" in text


@pytest.mark.parametrize(
    ("query", "ident"),
    [
        ("Chicago", "chicago"),
        ("diocese of st. paul", "st-paul-and-minneapolis"),
        ("Saint Paul and Minneapolis", "st-paul-and-minneapolis"),
        ("ARCHDIOCESE OF NEW YORK", "new-york"),
        ("Diócesis de San Diego", "san-diego"),
        ("San Agustín", "st-augustine"),
        ("the diocese of Rockville Center", "rockville-centre"),
        ("Chicgo", "chicago"),
        ("Ukrainian Catholic Eparchy of Parma", "ukrainian-parma"),
        ("Eparchy of Newton", "melkite-newton"),
        ("military archdiocese", "military-services"),
        ("LA archdiocese", "los-angeles"),
        ("Archdiocese of Portland", "portland-in-oregon"),  # the one Portland that is one
        ("how many Catholics are in the Archdiocese of New York?", "new-york"),
    ],
)
async def test_names_are_matched_forgivingly(h: Harness, query: str, ident: str) -> None:
    _, data = answer(await ask(h, LOOKUP, query))
    assert data is not None and data["diocese"]["id"] == ident


@pytest.mark.parametrize(
    ("query", "ident", "name", "state"),
    [
        (
            "San Juan, Puerto Rico",
            "san-juan-de-puerto-rico",
            "Archdiocese of San Juan de Puerto Rico",
            "PR",
        ),
        ("Diocese of Ponce", "ponce", "Diocese of Ponce", "PR"),
        ("Mayaguez", "mayaguez", "Diocese of Mayagüez", "PR"),
        ("Guam", "agana", "Archdiocese of Agaña", "GU"),
        ("Northern Mariana Islands", "chalan-kanoa", "Diocese of Chalan Kanoa", "MP"),
        ("American Samoa", "samoa-pago-pago", "Diocese of Samoa-Pago Pago", "AS"),
        ("Virgin Islands", "st-thomas", "Diocese of St. Thomas", "VI"),
    ],
)
async def test_the_territories_are_built_in(
    h: Harness, query: str, ident: str, name: str, state: str
) -> None:
    """Issue 19: Puerto Rico, Guam, the Northern Marianas and American Samoa answered
    "No diocese found."; both skills now resolve them."""
    _, data = answer(await ask(h, LOOKUP, query))
    assert data is not None
    assert (data["diocese"]["id"], data["diocese"]["name"]) == (ident, name)
    assert data["diocese"]["state"] == state
    text, _ = answer(await ask(h, STATISTICS, query))
    assert text == f"No statistics are loaded for the {name}."


async def test_las_vegas_is_a_metropolitan_see(h: Harness) -> None:
    """Issue 19: the Diocese of Las Vegas became a metropolitan archdiocese on
    2023-05-30, with Reno and Salt Lake City its suffragans."""
    text, data = answer(await ask(h, LOOKUP, "Diocese of Las Vegas"))
    assert data is not None
    record = data["diocese"]
    assert (record["name"], record["type"]) == ("Archdiocese of Las Vegas", "archdiocese")
    assert record["suffragans"] == ["reno", "salt-lake-city"]
    assert "Metropolitan see of the Province of Las Vegas" in text
    text, data = answer(await ask(h, LOOKUP, "Salt Lake City"))
    assert data is not None and data["diocese"]["metropolitan"] == "las-vegas"
    assert "Suffragan of the Archdiocese of Las Vegas" in text
    _, data = answer(await ask(h, LOOKUP, "San Francisco"))
    assert data is not None
    assert not {"reno", "salt-lake-city", "las-vegas"} & set(data["diocese"]["suffragans"])


async def test_cathedrals_and_sees_issue_19_found_wrong(h: Harness) -> None:
    _, data = answer(await ask(h, LOOKUP, "Anchorage"))
    assert data is not None and data["diocese"]["cathedral"] == "Our Lady of Guadalupe Cathedral"
    _, data = answer(await ask(h, LOOKUP, "Diocese of Burlington"))
    assert data is not None and data["diocese"]["cathedral"] == "Cathedral of St. Joseph"
    text, _ = answer(await ask(h, LOOKUP, "Diocese of Honolulu"))
    assert "co-cathedral: Co-Cathedral of St. Theresa of the Child Jesus" in text
    text, data = answer(await ask(h, LOOKUP, "Syriac Catholic Eparchy of Our Lady of Deliverance"))
    assert data is not None and data["diocese"]["see"] == "Farmington Hills"
    assert "See: Farmington Hills, MI, US" in text
    text, _ = answer(await ask(h, LOOKUP, "Diocese of Orange"))
    assert "Cathedral: Christ Cathedral (Garden Grove)" in text


async def test_a_suffragan_of_a_metropolitan_outside_the_directory(h: Harness) -> None:
    text, data = answer(await ask(h, LOOKUP, "Pago Pago"))
    assert data is not None and data["diocese"]["metropolitan"] is None
    assert "Province of Samoa-Apia (its metropolitan is not in this directory)" in text
    assert "Immediately subject" not in text


async def test_lookup_by_id_source_code_and_data_part_query(h: Harness) -> None:
    _, data = answer(await ask(h, LOOKUP, {"diocese_id": "boston"}))
    assert data is not None and data["diocese"]["name"] == "Archdiocese of Boston"
    _, data = answer(await ask(h, LOOKUP, {"query": "Fairbanks"}))
    assert data is not None and data["diocese"]["metropolitan"] == "anchorage-juneau"
    for code in ("dtuls", "tuls", "TULS"):  # with or without catholic-hierarchy's "d"
        _, data = answer(await ask(h, LOOKUP, {"source_code": code}))
        assert data is not None and data["diocese"]["id"] == "tulsa", code
    text, data = answer(await ask(h, LOOKUP, {"diocese_id": "melkite-newton"}))
    assert data is not None and data["diocese"]["church"] == "Melkite Greek Catholic Church"
    assert "Immediately subject to the Holy See" in text


async def test_ambiguous_names_get_ranked_ids(h: Harness) -> None:
    for skill in (LOOKUP, STATISTICS):
        task = await ask(h, skill, "Springfield")
        text, data = answer(task)
        assert data is not None and "diocese" not in data
        ids = [m["id"] for m in data["matches"]]
        assert ids[:2] == ["springfield-in-illinois", "springfield-in-massachusetts"]
        assert "springfield-cape-girardeau" in ids  # its see is Springfield, Missouri
        assert "springfield-in-illinois" in text and "springfield-in-massachusetts" in text
    _, data = answer(await ask(h, LOOKUP, "Portland"))
    assert data is not None
    assert {m["id"] for m in data["matches"]} == {"portland-in-oregon", "portland-maine"}


async def test_not_found(h: Harness) -> None:
    for skill, part in (
        (LOOKUP, "Atlantis"),
        (LOOKUP, {"diocese_id": "atlantis"}),
        (LOOKUP, {"source_code": "zzzz9"}),
        (STATISTICS, "Atlantis"),
    ):
        task = await ask(h, skill, part)
        assert task["status"]["state"] == "completed"
        assert task["artifacts"][0]["parts"] == [{"kind": "text", "text": "No diocese found."}]


@pytest.mark.parametrize(
    ("skill", "data", "says"),
    [
        (LOOKUP, {"diocese_id": 5}, '"diocese_id"'),
        (LOOKUP, {"dioceseId": "boston"}, '"dioceseId"'),
        (LOOKUP, {"query": ""}, "needs a diocese"),
        (LOOKUP, {}, "needs a diocese"),
        (LOOKUP, {"year_from": 2000, "query": "Boston"}, '"year_from"'),
        (STATISTICS, {"diocese_id": "chicago", "year_from": 2020, "year_to": 2010}, "after"),
        (STATISTICS, {"diocese_id": "chicago", "metrics": ["souls"]}, "unknown metric 'souls'"),
        (STATISTICS, {"diocese_id": "chicago", "metrics": "catholics"}, '"metrics"'),
        (STATISTICS, {"diocese_id": "chicago", "year": "2020"}, '"year"'),
        (STATISTICS, {"diocese_id": "chicago", "year": 2020, "year_to": 2021}, "either"),
        (STATISTICS, {"query": "x" * 501}, '"query"'),
    ],
)
async def test_bad_data_parts_fail_the_task_with_a_reason(
    h: Harness, skill: str, data: dict[str, Any], says: str
) -> None:
    text = failure(await ask(h, skill, data))
    assert says in text
    assert "Traceback" not in text


async def test_statistics_before_any_import(h: Harness) -> None:
    text, data = answer(await ask(h, STATISTICS, "Chicago"))
    assert text == "No statistics are loaded for the Archdiocese of Chicago."
    assert data is not None
    assert data["years"] == [] and data["statistics_loaded"] is False
    assert data["diocese"] == {"id": "chicago", "name": "Archdiocese of Chicago"}


async def test_statistics_after_import_in_a_running_server(
    h: Harness, settings: Settings, tmp_path: Path
) -> None:
    _, before = answer(await ask(h, LOOKUP, "Chicago"))
    assert before is not None and before["statistics"] == []
    result = run_cli(
        settings,
        "content",
        "import",
        "diocese-statistics",
        str(write(tmp_path / "l.csv", LONG_CSV)),
    )
    assert result.exit_code == 0, result.output
    assert "Imported 7 diocese-years and 2 financial values" in result.output

    text, data = answer(await ask(h, LOOKUP, "Chicago"))
    assert data is not None and data["statistics_loaded"] is True
    assert [row["year"] for row in data["statistics"]] == [2019, 2020, 2021, 2022, 2023]
    row_2022 = data["statistics"][3]
    assert row_2022["catholics"] == 2150000 and row_2022["percent_catholic"] == 35.5
    assert row_2022["total_priests"] == 1200 and row_2022["catholics_per_priest"] == 1792
    assert row_2022["parishes"] is None and row_2022["source"] == "test-b"
    assert set(row_2022) == {"year", *METRICS, *DERIVED, "source"}
    assert data["financials"] == {
        "year": 2023,
        "currency": None,
        "total_revenue": 1500000,
        "total_expenses": None,
        "net_assets": -20000,
        "source": "test-report",
    }
    assert "2022: Catholics 2,150,000" in text and "2017" not in text
    assert "Financial totals (2023): total revenue 1,500,000; net assets -20,000" in text

    text, data = answer(await ask(h, STATISTICS, "Archdiocese of Chicago"))
    assert data is not None and [r["year"] for r in data["years"]] == list(range(2017, 2024))
    assert data["metrics"] == [*METRICS, *DERIVED]
    assert text.startswith("Statistics of the Archdiocese of Chicago, 2017-2023 (7 years):")

    request = {
        "diocese_id": "chicago",
        "year_from": 2021,
        "metrics": ["catholics", "total_priests"],
    }
    text, data = answer(await ask(h, STATISTICS, request))
    assert data is not None
    assert data["years"] == [
        {"year": 2021, "catholics": 2140000, "total_priests": None, "source": "test-a"},
        {"year": 2022, "catholics": 2150000, "total_priests": 1200, "source": "test-b"},
        {"year": 2023, "catholics": 2160000, "total_priests": None, "source": "test-b"},
    ]
    assert "2022: Catholics 2,150,000; priests 1,200 [source: test-b]" in text

    # A text part names the diocese, a data part narrows the series.
    token = await h.token()
    parts = [{"kind": "text", "text": "Chicago"}, {"kind": "data", "data": {"year": 2022}}]
    response = await h.send(token, skill=STATISTICS, parts=parts)
    _, data = answer(response.json()["result"])
    assert data is not None and [r["year"] for r in data["years"]] == [2022]

    text, data = answer(await ask(h, STATISTICS, {"diocese_id": "chicago", "year": 1990}))
    assert text == "No statistics of the Archdiocese of Chicago are loaded for 1990."
    assert data is not None and data["years"] == []
    text, _ = answer(await ask(h, STATISTICS, {"diocese_id": "boston"}))
    assert text == "No statistics are loaded for the Archdiocese of Boston."


# -- importers ----------------------------------------------------------------------


async def test_wide_catholic_hierarchy_table(
    h: Harness, settings: Settings, tmp_path: Path
) -> None:
    path = write(tmp_path / "wide.csv", WIDE_CSV)
    result = run_cli(settings, "content", "import", "diocese-statistics", str(path))
    assert result.exit_code == 1 and "no Diocese column" in result.output
    result = run_cli(
        settings, "content", "import", "diocese-statistics", str(path), "--diocese", "boston"
    )
    assert result.exit_code == 0, result.output
    _, data = answer(await ask(h, STATISTICS, {"diocese_id": "boston"}))
    assert data is not None
    y1950, y1970, y2000 = data["years"]
    assert y1950["catholics"] == 1000000 and y1950["percent_catholic"] == 33.3
    assert y1950["permanent_deacons"] is None and y1970["permanent_deacons"] == 10
    # Total Priests and Catholics Per Priest are derived by us, not imported.
    assert y1950["total_priests"] == 600 and y1950["catholics_per_priest"] == 1667
    assert y2000["religious_priests"] is None and y2000["total_priests"] is None
    assert y2000["total_population"] is None and y2000["parishes"] == 320
    assert y2000["seminarians"] is None and y2000["source"] == "test-w"


def test_a_malformed_row_is_reported_by_line_and_the_rest_go_in(
    settings: Settings, tmp_path: Path
) -> None:
    text = (
        "diocese,year,metric,value,source\n"
        "chicago,2020,catholics,100,t\n"
        "chicago,20x0,catholics,100,t\n"  # line 3
        "nowhere,2020,catholics,100,t\n"  # line 4
        "chicago,2020,souls,100,t\n"  # line 5
        "chicago,2021,parishes,12.5,t\n"  # line 6
        "chicago,2021,catholics,-4,t\n"  # line 7
        "chicago,2020,catholics,200,t\n"  # line 8: given on line 2
        "chicago,2021,total_priests,9,t\n"  # line 9: derived
        "chicago,2021,percent_catholic,140,t\n"  # line 10
        "chicago,2021,baptisms,7,t,extra\n"  # line 11
        "boston,2021,baptisms,7,t\n"
    )
    result = run_cli(
        settings, "content", "import", "diocese-statistics", str(write(tmp_path / "s.csv", text))
    )
    assert result.exit_code == 1
    for line in range(3, 12):
        assert f"line {line}:" in result.output, line
    assert "line 2:" not in result.output and "line 12:" not in result.output
    assert "Imported 2 diocese-years" in result.output and "9 lines rejected" in result.output
    values = {(r[0], r[1], r[2]): r[3] for r in statistic_rows(settings)}
    assert values == {("boston", 2021, "baptisms"): 7.0, ("chicago", 2020, "catholics"): 100.0}


def test_reimport_changes_nothing_and_nulls_never_erase(settings: Settings, tmp_path: Path) -> None:
    long_path = write(tmp_path / "l.csv", LONG_CSV)
    for _ in range(2):
        result = run_cli(settings, "content", "import", "diocese-statistics", str(long_path))
        assert result.exit_code == 0, result.output
    first = statistic_rows(settings)
    assert len(first) == 10
    run_cli(settings, "content", "import", "diocese-statistics", str(long_path))
    assert statistic_rows(settings) == first
    # A wide row for 2022 without a Religious Priests figure keeps the earlier value.
    wide = "Diocese,Year,Catholics,Religious Priests,Source\nchicago,2022,2150001,,test-c\n"
    result = run_cli(
        settings, "content", "import", "diocese-statistics", str(write(tmp_path / "w.csv", wide))
    )
    assert result.exit_code == 0, result.output
    rows = {(r[1], r[2]): (r[3], r[4]) for r in statistic_rows(settings)}
    assert rows[2022, "catholics"] == (2150001.0, "test-c")
    assert rows[2022, "religious_priests"] == (500.0, "test-b")
    assert rows[2022, "baptisms"] == (None, "test-c")  # that source lacks the figure


def test_an_interrupted_import_writes_nothing(
    settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_cli(
        settings,
        "content",
        "import",
        "diocese-statistics",
        str(
            write(
                tmp_path / "a.csv", "diocese,year,metric,value,source\nboston,2000,parishes,1,t\n"
            )
        ),
    )
    before = statistic_rows(settings)

    def put_then_interrupt(db: sqlite3.Connection, rows: list[Statistic]) -> None:
        put_statistics(db, list(rows)[:3])
        raise KeyboardInterrupt

    monkeypatch.setattr(importing, "put_statistics", put_then_interrupt)
    result = run_cli(
        settings,
        "content",
        "import",
        "diocese-statistics",
        str(write(tmp_path / "l.csv", LONG_CSV)),
    )
    assert result.exit_code != 0
    monkeypatch.undo()
    assert statistic_rows(settings) == before


def test_unreadable_files_are_refused(settings: Settings, tmp_path: Path) -> None:
    cases = {
        "missing.csv": None,
        "empty.csv": "",
        "other.csv": "a,b\n1,2\n",
        "latin1.csv": "diocese,year,metric,value,source\nsaint-\xe9,2000,parishes,1,t\n",
    }
    for name, text in cases.items():
        path = tmp_path / name
        if text is not None:
            path.write_bytes(text.encode("latin-1"))
        result = run_cli(settings, "content", "import", "diocese-statistics", str(path))
        assert result.exit_code in (1, 2), name
        assert "Traceback" not in result.output
    assert not database_path(settings.data_dir).exists()


async def test_directory_import_our_formats_and_wikidata(
    h: Harness, settings: Settings, tmp_path: Path
) -> None:
    ours = [
        {
            "id": "test-see-xx",
            "name": "Diocese of Testopolis",
            "type": "diocese",
            "country": "XX",
            "see": "Testopolis",
            "catholic_hierarchy": "ttst",
        },
        {"id": "bad", "name": "Diocese of Nowhere", "type": "bishopric"},
    ]
    result = run_cli(
        settings, "content", "import", "dioceses", str(write(tmp_path / "d.json", json.dumps(ours)))
    )
    assert result.exit_code == 1 and "record 2: type: Input should be" in result.output
    assert "Imported 1 jurisdictions" in result.output
    csv_text = (
        "id,name,type,country,see,aliases,erected\n"
        "test-two-xx,Archdiocese of Testburg,archdiocese,XX,Testburg,Old Testburg;Testburgum,1901\n"
        "test-three-xx,Diocese of Badyear,diocese,XX,Badyear,,nineteen\n"
    )
    result = run_cli(
        settings, "content", "import", "dioceses", str(write(tmp_path / "d.csv", csv_text))
    )
    assert result.exit_code == 1 and "line 3:" in result.output

    sparql = {
        "head": {"vars": ["item", "itemLabel", "typeLabel", "countryCode", "chId", "gcId"]},
        "results": {
            "bindings": [
                {
                    "item": {"type": "uri", "value": "http://www.wikidata.org/entity/Q999001"},
                    "itemLabel": {
                        "type": "literal",
                        "value": "Roman Catholic Archdiocese of Chicago",
                    },
                    "typeLabel": {"type": "literal", "value": "metropolitan archdiocese"},
                    "countryCode": {"type": "literal", "value": "US"},
                    "chId": {"type": "literal", "value": "tchic"},
                    "gcId": {"type": "literal", "value": "tchi0"},
                    "inception": {"type": "literal", "value": "1800-01-01T00:00:00Z"},
                },
                {
                    "item": {"type": "uri", "value": "http://www.wikidata.org/entity/Q999002"},
                    "itemLabel": {"type": "literal", "value": "Catholic Eparchy of Testhausen"},
                    "typeLabel": {"type": "literal", "value": "eparchy"},
                    "countryCode": {"type": "literal", "value": "XY"},
                    "seeLabel": {"type": "literal", "value": "Testhausen"},
                },
                {"item": {"type": "uri", "value": "not an entity"}},
            ]
        },
    }
    path = write(tmp_path / "wd.json", json.dumps(sparql))
    result = run_cli(settings, "content", "import", "dioceses", str(path))
    assert result.exit_code == 1 and "result 3: item is not a Wikidata entity" in result.output
    assert "Imported 1 jurisdictions and completed 1 known ones" in result.output

    # A running server sees the import: codes reach the built-in record, authored
    # facts are kept (the year stays 1843), new jurisdictions are found by name.
    for code in ("tchic", "dtchic", "TCHI0", "Q999001"):
        _, data = answer(await ask(h, LOOKUP, {"source_code": code}))
        assert data is not None and data["diocese"]["id"] == "chicago", code
    assert data is not None
    record = data["diocese"]
    assert record["erected"] == 1843 and record["wikidata"] == "Q999001"
    assert record["catholic_hierarchy"] == "tchic" and record["gcatholic"] == "tchi0"
    _, data = answer(await ask(h, LOOKUP, "Testhausen"))
    assert data is not None and data["diocese"]["id"] == "testhausen-xy"
    assert (
        data["diocese"]["type"] == "eparchy" and data["diocese"]["name"] == "Eparchy of Testhausen"
    )
    _, data = answer(await ask(h, LOOKUP, "Old Testburg"))
    assert data is not None and data["diocese"]["erected"] == 1901
    _, data = answer(await ask(h, LOOKUP, {"source_code": "ttst"}))
    assert data is not None and data["diocese"]["id"] == "test-see-xx"

    # Again: the same records, nothing added.
    with sqlite3.connect(database_path(settings.data_dir)) as db:
        before = db.execute("SELECT * FROM dioceses ORDER BY id").fetchall()
    run_cli(settings, "content", "import", "dioceses", str(path))
    with sqlite3.connect(database_path(settings.data_dir)) as db:
        assert db.execute("SELECT * FROM dioceses ORDER BY id").fetchall() == before
    assert len(before) == 4


async def test_agent_card_lists_both_skills(h: Harness) -> None:
    card = (await h.client.get("/.well-known/agent.json")).json()
    skills = {skill["id"]: skill for skill in card["skills"]}
    for ident in (LOOKUP, STATISTICS):
        assert skills[ident]["tags"] and skills[ident]["examples"], ident
        assert "dioceses" in skills[ident]["tags"]


async def test_answers_are_valid_a2a_tasks(h: Harness, settings: Settings, tmp_path: Path) -> None:
    schema = a2a_schema()
    if schema is None:
        pytest.skip("../shared/refdata/a2a-v0.3 is absent (CI has it)")
    run_cli(
        settings,
        "content",
        "import",
        "diocese-statistics",
        str(write(tmp_path / "l.csv", LONG_CSV)),
    )
    for skill, part in ((LOOKUP, "Chicago"), (LOOKUP, "Springfield"), (STATISTICS, "Chicago")):
        validate_definition(schema, "Task", await ask(h, skill, part))
    validate_definition(schema, "Task", await ask(h, LOOKUP, {"diocese_id": 5}))


def test_wikidata_csv_export_and_an_unknown_diocese_option(
    settings: Settings, tmp_path: Path
) -> None:
    text = (
        "item,itemLabel,typeLabel,countryCode,seeLabel,inception,chId,gcId\n"
        "http://www.wikidata.org/entity/Q999003,Roman Catholic Diocese of Testville,"
        "suffragan diocese,ZZ,Testville,1950-05-01T00:00:00Z,ttvl,ttvl0\n"
        "http://www.wikidata.org/entity/Q999003,Roman Catholic Diocese of Testville,"
        "diocese,ZZ,Testville,1950-05-01T00:00:00Z,ttvl,ttvl0\n"
        "http://www.wikidata.org/entity/Q999004,Something else,,ZZ,,,,\n"
    )
    result = run_cli(
        settings, "content", "import", "dioceses", str(write(tmp_path / "wd.csv", text))
    )
    assert result.exit_code == 1
    assert "line 4: Q999004: cannot tell the jurisdiction's type" in result.output
    found = importing.current_directory(settings.data_dir).by_code("dttvl")
    assert found is not None and found.id == "testville-zz"
    assert (found.name, found.type, found.erected, found.gcatholic, found.wikidata) == (
        "Diocese of Testville",
        "diocese",
        1950,
        "ttvl0",
        "Q999003",
    )
    result = run_cli(
        settings,
        "content",
        "import",
        "diocese-statistics",
        str(write(tmp_path / "w.csv", WIDE_CSV)),
        "--diocese",
        "nowhere",
    )
    assert result.exit_code == 1 and "--diocese: unknown diocese 'nowhere'" in result.output


KILLED_IMPORT = """
import sys
from pathlib import Path
from magisterium_a2a.skills.dioceses.store import Statistic, put_statistics, writing
with writing(Path("data")) as db:
    put_statistics(db, [Statistic("boston", y, "parishes", 2.0, "t") for y in range(1900, 2000)])
    db.execute("UPDATE statistics SET value = 99")
    print("inside", flush=True)
    sys.stdin.read()  # held open until the test kills this process
"""


@pytest.mark.subprocess
def test_an_import_killed_mid_transaction_leaves_the_old_data(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # a relative data directory, as A2A_DATA_DIR may be
    data_dir = Path("data")
    with writing(data_dir) as db:
        put_statistics(db, [Statistic("boston", 2000, "parishes", 1.0, "t")])
    child = subprocess.Popen(
        [sys.executable, "-c", KILLED_IMPORT],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None and child.stdout.readline().strip() == "inside"
    child.kill()
    child.wait()
    assert database_path(data_dir).with_name("dioceses.sqlite-journal").exists()
    expected = [Statistic("boston", 2000, "parishes", 1.0, "t")]
    assert Reader(data_dir).statistics("boston") == expected
    with writing(data_dir) as db:  # the next import rolls the journal back and goes on
        put_statistics(db, [Statistic("boston", 2001, "parishes", 3.0, "t")])
    after = [(s.year, s.value) for s in Reader(data_dir).statistics("boston")]
    assert after == [(2000, 1.0), (2001, 3.0)]
