"""The licence and the notices travel with the code: LICENSE and NOTICE at the
root and in the wheel, and NOTICE accounting, entry by entry, for every data
file the package ships (issue 24).

What a data file says about itself is its header: the leading ``#`` comment
block of a text file (``.txt``, ``.yaml``, ``.tsv`` and any other), the whole of a
Markdown file, the top-level strings of a JSON object, the ``model`` array of a
``.npz`` archive. A header credits each third-party source with two fields, a
``Source:`` line naming it in a form this check reads (a URL, ``github.com/owner/repo``
with or without ``https://``, or Wikidata) and, after it, a ``Licence:`` line naming
its licence (one of ``LICENCES``); a JSON file lists them under ``"sources"`` as
``{"source": ..., "licence": ...}``. A field runs on over the following lines until a
blank comment line or the next ``Field:``.

NOTICE has a list of the team's own tables and one entry (a block) per source, with
``Source:``, ``Licence:`` and ``Derived:`` (or ``Used:``) fields. For each source a
header credits, an entry's ``Source:`` must name it, that entry's ``Licence:`` must
name the header's licence, and its ``Derived:`` or ``Used:`` must name the file; a
``.npz`` file's model must be named by the ``Source:`` of the entry that derives it.
Every shipped data file (pyproject's package-data) must be the team's or derived in
an entry, and a source or licence a header names anywhere else must be accounted for
too. So deleting any one ``Source:`` or ``Licence:`` line of NOTICE fails the check.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from importlib.metadata import metadata
from pathlib import Path

import numpy as np
import pytest

from tests.support import ROOT

PACKAGE = ROOT / "skills" / "magisterium_a2a" / "skills"
DATA = PACKAGE / "data"
NOTICE = ROOT / "NOTICE"
LICENCES = {
    r"Apache License|Apache-2\.0": "Apache License, Version 2.0",
    r"\bMIT\b": "MIT License",
    r"\bCC0\b": "CC0",
    r"Unlicense": "Unlicense",
    r"CC BY": "CC BY",
    r"\bGPL\b|GNU General Public": "GPL",
    r"\bBSD\b": "BSD",
}
# Licence texts' own addresses, not sources.
NOT_SOURCES = ("apache.org", "creativecommons.org", "unlicense.org", "opensource.org")
GITHUB = re.compile(r"(?:https?://)?(?:www\.)?github\.com/([\w.-]+/[\w.-]*[\w-])", re.IGNORECASE)
URL = re.compile(r"https?://(?:www\.)?([\w-]+(?:\.[\w-]+)+)", re.IGNORECASE)
# A repository named in prose ("the public repository owner/repo"): taken for GitHub's.
REPOSITORY = re.compile(r"\brepository\s+([\w-]+/[\w.-]*[\w-])")
WIKIDATA = re.compile(r"\bWikidata\b")
FIELD = re.compile(r"^([A-Z][A-Za-z]*):\s*(.*)$")
DATA_PATH = re.compile(r"\bdata/[\w./-]*[\w]")


# --- reading ---------------------------------------------------------------------------


def sources(text: str, *, prose: bool = False) -> set[str]:
    """The sources ``text`` names in the forms a ``Source:`` line may use (a URL,
    ``github.com/owner/repo``, Wikidata); in ``prose``, the URLs and repositories,
    also one named as such ("the repository owner/repo")."""
    found = {f"github.com/{m[1].lower().removesuffix('.git')}" for m in GITHUB.finditer(text)}
    found |= {m[1].lower() for m in URL.finditer(text) if m[1].lower() != "github.com"}
    if prose:
        # Prose names Wikidata as a thing (the field "as Wikidata's P1866 holds it"), not
        # only as a source: there the word alone is not taken for one.
        found |= {f"github.com/{m[1].lower()}" for m in REPOSITORY.finditer(text)}
    elif WIKIDATA.search(text):
        found.add("Wikidata")
    return {s for s in found if not any(s == n or s.endswith("." + n) for n in NOT_SOURCES)}


def licences(text: str) -> set[str]:
    return {name for pattern, name in LICENCES.items() if re.search(pattern, text)}


def fields(lines: Iterable[str]) -> list[tuple[str, str]]:
    """``Field: text`` pairs; a field runs on until a blank line or the next field,
    and lines before any field are left out."""
    found: list[list[str]] = []
    current: list[str] | None = None
    for line in lines:
        if match := FIELD.match(line):
            current = [match[1], match[2]]
            found.append(current)
        elif not line.strip():
            current = None
        elif current is not None:
            current[1] += " " + line.strip()
    return [(name, " ".join(text.split())) for name, text in found]


@dataclass
class Credit:
    source: str
    licence: str


@dataclass
class Header:
    text: str
    credits: list[Credit] = field(default_factory=list)
    model: str | None = None


def _credits(pairs: list[tuple[str, str]]) -> list[Credit]:
    """Each Source: field with the first Licence: field after it (before the next
    Source:); a Licence: before any Source: is the team's own statement."""
    credits: list[Credit] = []
    for name, text in pairs:
        if name == "Source":
            credits.append(Credit(text, ""))
        elif name == "Licence" and credits and not credits[-1].licence:
            credits[-1].licence = text
    return credits


def header(path: Path) -> Header:
    if path.suffix == ".npz":
        with np.load(path, allow_pickle=False) as archive:
            model = str(archive["model"]) if "model" in archive.files else None
        return Header("", model=model)
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".json":
        document = json.loads(text)
        if not isinstance(document, dict):
            return Header("")
        listed = document.get("sources", [])
        credits = [
            Credit(str(s.get("source", "")), str(s.get("licence", "")))
            for s in listed
            if isinstance(s, dict)
        ]
        strings = [v for v in document.values() if isinstance(v, str)]
        strings += [c.source + " " + c.licence for c in credits]
        return Header("\n".join(strings), credits)
    if path.suffix == ".md":
        lines = text.splitlines()
    else:
        lines = []
        for line in text.splitlines():
            if not line.startswith("#"):
                break
            lines.append(line[2:] if line.startswith("# ") else line[1:])
    return Header("\n".join(lines), _credits(fields(lines)))


@dataclass
class Entry:
    """One third-party source's block of NOTICE."""

    title: str
    fields: list[tuple[str, str]]

    def field(self, *names: str) -> str:
        return " ".join(text for name, text in self.fields if name in names)

    @property
    def text(self) -> str:
        return " ".join(text for _, text in self.fields)

    @property
    def paths(self) -> set[str]:
        return set(DATA_PATH.findall(self.field("Derived", "Used")))


@dataclass
class Notice:
    team: set[str]
    entries: list[Entry]


def parse_notice(notice: str) -> Notice:
    team_part, _, third_part = notice.partition("\nThird-party sources\n")
    _, _, team_part = team_part.partition("\nTables of the team\n")
    entries = []
    for block in re.split(r"\n\s*\n", third_part.lstrip("=\n")):
        lines = block.splitlines()
        if lines:
            body = [line[2:] if line.startswith("  ") else line for line in lines[1:]]
            entries.append(Entry(lines[0], fields(body)))
    return Notice(set(DATA_PATH.findall(team_part)), entries)


def shipped(data_dir: Path) -> list[Path]:
    """The data files the wheel ships: pyproject's package-data patterns under data/."""
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = pyproject["tool"]["setuptools"]["package-data"]["magisterium_a2a.skills"]
    found = {
        path
        for pattern in patterns
        if pattern.startswith("data/")
        for path in data_dir.glob(pattern.removeprefix("data/"))
        if path.is_file() and path.suffix not in (".py", ".pyc")
    }
    return sorted(found)


# --- the check ---------------------------------------------------------------------------


def unlisted(data_dir: Path, notice_text: str) -> list[str]:
    """What NOTICE does not account for, one line per problem (empty: all is listed)."""
    notice = parse_notice(notice_text)
    problems: list[str] = []
    files = shipped(data_dir)
    names = {f"data/{path.relative_to(data_dir).as_posix()}": path for path in files}
    for rel, path in names.items():
        problems += _file_problems(rel, header(path), notice)
    for entry in notice.entries:
        problems += [
            f"NOTICE ({entry.title}): {p} is not shipped" for p in entry.paths - set(names)
        ]
    problems += [
        f"NOTICE (tables of the team): {p} is not shipped" for p in notice.team - set(names)
    ]
    return problems


def _file_problems(rel: str, head: Header, notice: Notice) -> list[str]:
    problems = []
    listing = [e for e in notice.entries if rel in e.paths]
    if rel not in notice.team and not listing:
        problems.append(f"{rel}: neither among NOTICE's tables of the team nor derived in an entry")
    for entry in listing:
        if not sources(entry.field("Source")):
            problems.append(f"{rel}: its NOTICE entry ({entry.title}) has no Source: line")
        if not licences(entry.field("Licence")):
            problems.append(
                f"{rel}: its NOTICE entry ({entry.title}) has no Licence: line naming a licence"
            )
    declared: set[str] = set()
    given: set[str] = set()
    for credit in head.credits:
        named, licence = sources(credit.source), licences(credit.licence)
        declared |= named
        given |= licence
        if not named:
            problems.append(
                f"{rel}: Source: {credit.source[:60]!r} names no source in a form the check "
                "reads (a URL, github.com/owner/repo, Wikidata)"
            )
        if not licence:
            problems.append(f"{rel}: Source: {credit.source[:60]!r} has no Licence: line after it")
        for source in sorted(named):
            problems += _entry_problems(rel, source, licence, notice)
    for source in sorted(sources(head.text, prose=True) - declared):
        problems.append(f"{rel}: names the source {source} outside a Source: line")
    for name in sorted(licences(head.text) - given):
        if not any(name in licences(entry.text) for entry in listing):
            problems.append(
                f"{rel}: names the licence {name!r}, which no Licence: line of its header "
                "and no NOTICE entry listing it names"
            )
    if head.model is not None and not any(head.model in e.field("Source") for e in listing):
        problems.append(
            f"{rel}: its model {head.model} is not named by the Source: line of a NOTICE "
            "entry that derives the file"
        )
    return problems


def _entry_problems(rel: str, source: str, licence: set[str], notice: Notice) -> list[str]:
    """What is missing for one source a file's header credits with ``licence``."""
    naming = [e for e in notice.entries if source in sources(e.field("Source"))]
    if not naming:
        return [f"{rel}: no NOTICE entry's Source: line names {source}"]
    agreeing = [e for e in naming if licence <= licences(e.field("Licence"))]
    if not agreeing:
        titles = "; ".join(e.title for e in naming)
        return [
            f"{rel}: the NOTICE entry naming {source} ({titles}) has no Licence: line "
            f"naming {', '.join(sorted(licence))}"
        ]
    if not any(rel in e.paths for e in agreeing):
        return [f"{rel}: the NOTICE entry naming {source} does not list it under Derived: or Used:"]
    return []


# --- the tests --------------------------------------------------------------------------


def test_license_and_notice_are_at_the_root() -> None:
    licence = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert "Apache License" in licence and "Version 2.0, January 2004" in licence
    assert "END OF TERMS AND CONDITIONS" in licence
    assert "Apache License, Version 2.0" in NOTICE.read_text(encoding="utf-8")


def test_notice_accounts_for_every_shipped_data_file() -> None:
    problems = unlisted(DATA, NOTICE.read_text(encoding="utf-8"))
    assert not problems, "NOTICE does not account for the data:\n" + "\n".join(problems)


def test_the_check_reads_every_kind_of_shipped_file() -> None:
    kinds = {path.suffix for path in shipped(DATA)}
    assert {".txt", ".yaml", ".tsv", ".json", ".npz", ".md"} <= kinds
    credited = {
        f"data/{path.relative_to(DATA).as_posix()}"
        for path in shipped(DATA)
        if header(path).credits or header(path).model
    }
    assert credited == {
        "data/catalogue-vectors.npz",
        "data/catalogue-vectors.use-multilingual-v3-int8.npz",
        "data/dioceses-us.yaml",
        "data/language/calendar-words.yaml",
        "data/language/romcal-names.tsv",
        "data/lectionary-derived.txt",
        "data/martyrology.txt",
        "data/memorial-commons.txt",
        "data/people/cardinals-2025-04-29.json",
        "data/people/popes.yaml",
    }


def test_every_licence_text_notice_points_at_exists() -> None:
    for name in re.findall(r"LICENSES/[\w.-]+\.txt", NOTICE.read_text(encoding="utf-8")):
        assert (ROOT / name).is_file(), name


NOTICE_LINES = NOTICE.read_text(encoding="utf-8").splitlines()
ENTRY_LINES = [n for n, line in enumerate(NOTICE_LINES) if re.match(r"  (Source|Licence):", line)]
TEAM_LINES = [n for n, line in enumerate(NOTICE_LINES) if re.match(r"  data/", line)]


def _without(number: int) -> str:
    return "\n".join(line for n, line in enumerate(NOTICE_LINES) if n != number) + "\n"


def _entry_at(number: int) -> Entry:
    """The NOTICE entry line ``number`` belongs to: the block whose title (the line
    after a blank one) comes last before it."""
    title = NOTICE_LINES[max(n for n in range(1, number + 1) if not NOTICE_LINES[n - 1].strip())]
    return next(
        e for e in parse_notice(NOTICE.read_text(encoding="utf-8")).entries if e.title == title
    )


@pytest.mark.parametrize(
    "number",
    ENTRY_LINES,
    ids=lambda n: f"{_entry_at(n).title.split(',')[0]} {NOTICE_LINES[n].split(':')[0].strip()}",
)
def test_deleting_one_source_or_licence_line_of_notice_fails(number: int) -> None:
    """Each Source: and Licence: line in turn: without it, every file its entry
    derives is reported."""
    entry = _entry_at(number)
    problems = unlisted(DATA, _without(number))
    print(
        f"without NOTICE line {number + 1} ({NOTICE_LINES[number].strip()}):", *problems, sep="\n  "
    )
    assert entry.paths
    for path in entry.paths:
        assert any(p.startswith(f"{path}:") for p in problems), (path, problems)


@pytest.mark.parametrize("number", TEAM_LINES, ids=lambda n: NOTICE_LINES[n].split()[0])
def test_deleting_one_of_the_team_s_tables_from_notice_fails(number: int) -> None:
    path = NOTICE_LINES[number].split()[0]
    problems = unlisted(DATA, _without(number))
    if any(path in e.paths for e in parse_notice(_without(number)).entries):
        # Derived in an entry as well (data/dioceses-us.yaml, data/people/popes.yaml ...):
        # still accounted for, so deleting the line is no error.
        assert problems == []
    else:
        assert problems == [
            f"{path}: neither among NOTICE's tables of the team nor derived in an entry"
        ]


def test_a_new_file_with_an_unlisted_source_is_caught(tmp_path: Path) -> None:
    (tmp_path / "extra.yaml").write_text(
        "# Names from https://example.org/saints (CC BY-SA 4.0).\n- a\n", "utf-8"
    )
    problems = unlisted(tmp_path, NOTICE.read_text(encoding="utf-8"))
    assert [p for p in problems if not p.startswith("NOTICE")] == [
        "data/extra.yaml: neither among NOTICE's tables of the team nor derived in an entry",
        "data/extra.yaml: names the source example.org outside a Source: line",
        "data/extra.yaml: names the licence 'CC BY', which no Licence: line of its header "
        "and no NOTICE entry listing it names",
    ]
    # And NOTICE's own paths, none of which is in tmp_path, are reported as not shipped.
    assert "NOTICE (tables of the team): data/glossary.txt is not shipped" in problems
    assert "NOTICE (romcal): data/language/romcal-names.tsv is not shipped" in problems


def test_a_source_in_a_form_the_check_cannot_read_is_caught(tmp_path: Path) -> None:
    """A Source: line naming ropensci/historydata without github.com/, and one whose
    licence is not the one NOTICE's entry for that source gives."""
    (tmp_path / "language").mkdir()
    (tmp_path / "language" / "a.tsv").write_text(
        "# Source: ropensci/historydata, its table.\n# Licence: MIT License.\nx\ty\n", "utf-8"
    )
    (tmp_path / "b.txt").write_text(
        "# Source: romcal (github.com/emagnier/romcal).\n# Licence: MIT License.\nx\n", "utf-8"
    )
    notice = NOTICE.read_text(encoding="utf-8").replace(
        "\nThird-party sources\n", "  data/language/a.tsv\n  data/b.txt\n\nThird-party sources\n"
    )
    assert [p for p in unlisted(tmp_path, notice) if not p.startswith("NOTICE")] == [
        "data/b.txt: the NOTICE entry naming github.com/emagnier/romcal (romcal) has no "
        "Licence: line naming MIT License",
        "data/language/a.tsv: Source: 'ropensci/historydata, its table.' names no source in a form "
        "the check reads (a URL, github.com/owner/repo, Wikidata)",
    ]


def test_the_romcal_licence_is_the_one_its_package_gives() -> None:
    given = metadata("romcal")["License"]
    assert given == "Apache-2.0"
    [entry] = [
        e for e in parse_notice(NOTICE.read_text(encoding="utf-8")).entries if e.title == "romcal"
    ]
    assert licences(entry.field("Licence")) == licences(given)
    for path in shipped(DATA):
        for credit in header(path).credits:
            if "github.com/emagnier/romcal" in sources(credit.source):
                assert licences(credit.licence) == licences(given), path


COPY_IGNORED = shutil.ignore_patterns(
    ".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".*_cache", ".hypothesis",
    "out",
)  # fmt: skip


@pytest.mark.subprocess
def test_the_wheel_carries_license_notice_and_the_data_notice_lists(tmp_path: Path) -> None:
    """Built from a copy of the sources, so the repository gets no build/ or egg-info."""
    before = sorted(p.name for p in ROOT.iterdir())
    source = tmp_path / "src"
    shutil.copytree(ROOT, source, ignore=COPY_IGNORED)
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(tmp_path), "."],
        cwd=source,
        check=True,
        timeout=600,
    )
    assert sorted(p.name for p in ROOT.iterdir()) == before
    [wheel] = tmp_path.glob("magisterium_a2a-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
    licence_files = {Path(n).name for n in names if ".dist-info/licenses/" in n}
    assert {"LICENSE", "NOTICE", "Apache-2.0.txt", "CC0-1.0.txt"} <= licence_files, names
    data = {
        n.removeprefix("magisterium_a2a/skills/")
        for n in names
        if n.startswith("magisterium_a2a/skills/data/") and not n.endswith(".py")
    }
    assert data == {f"data/{p.relative_to(DATA).as_posix()}" for p in shipped(DATA)}
