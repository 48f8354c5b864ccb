"""The licence and the notices travel with the code: LICENSE and NOTICE at the
root and in the wheel, and NOTICE naming every third-party source and licence
that a shipped data file's header names (issue 24).

A data file's header is its leading ``#`` comment block (text and YAML) or, for
JSON, its top-level strings. In it, a *source* is a URL (``https://...`` or a
bare ``github.com/owner/repo``), a repository named as such (``repository
owner/repo``) or Wikidata; a *licence* is one of the names in ``LICENCES``.
NOTICE must name every source and licence found, and must name the data file
itself (``data/...``) whenever its header names a licence or a source.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

from tests.support import ROOT

DATA = ROOT / "skills" / "magisterium_a2a" / "skills" / "data"
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
NOT_SOURCES = ("apache.org/licenses", "creativecommons.org", "unlicense.org", "opensource.org")
URL = re.compile(r"(?:https?://)?(?:www\.)?((?:github\.com/[\w.-]+/[\w-]+)|(?<=://)[\w.-]+\.\w+)")
REPOSITORY = re.compile(r"repository\s+([\w-]+/[\w.-]*\w)")


def header(path: Path) -> str:
    if path.suffix == ".json":
        document = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(document, dict):
            return ""
        return "\n".join(v for v in document.values() if isinstance(v, str))
    lines = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith("#"):
            break
        lines.append(line.lstrip("# "))
    return " ".join(" ".join(lines).split())


def named(text: str) -> tuple[set[str], set[str]]:
    """The sources and licences a header names."""
    sources = {m.group(1) for m in URL.finditer(text)}
    sources |= {m.group(1) for m in REPOSITORY.finditer(text)}
    if "Wikidata" in text:
        sources.add("Wikidata")
    sources = {s for s in sources if not any(s.startswith(n) or n in s for n in NOT_SOURCES)}
    licences = {name for pattern, name in LICENCES.items() if re.search(pattern, text)}
    return sources, licences


def unlisted(data_dir: Path, notice: str) -> list[str]:
    """What the data files' headers name that ``notice`` does not."""
    flat = " ".join(notice.split())
    problems = []
    for path in sorted(data_dir.rglob("*")):
        if path.suffix not in {".txt", ".yaml", ".json"} or path.name == "README.md":
            continue
        sources, licences = named(header(path))
        relative = f"data/{path.relative_to(data_dir).as_posix()}"
        if (sources or licences) and relative not in flat:
            problems.append(f"{relative} names {sorted(sources | licences)} but is not in NOTICE")
        problems += [f"{relative}: source {s!r} not in NOTICE" for s in sources if s not in flat]
        problems += [f"{relative}: licence {n!r} not in NOTICE" for n in licences if n not in flat]
    for path in sorted(data_dir.rglob("*.npz")):
        with np.load(path, allow_pickle=False) as archive:
            if "model" in archive.files and str(archive["model"]) not in flat:
                problems.append(f"{path.name}: model {archive['model']} not in NOTICE")
    return problems


def test_license_and_notice_are_at_the_root() -> None:
    licence = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert "Apache License" in licence and "Version 2.0, January 2004" in licence
    assert "END OF TERMS AND CONDITIONS" in licence
    assert "Apache License, Version 2.0" in NOTICE.read_text(encoding="utf-8")


def test_notice_lists_every_source_and_licence_the_data_names() -> None:
    assert unlisted(DATA, NOTICE.read_text(encoding="utf-8")) == []


def test_every_licence_text_notice_points_at_exists() -> None:
    for name in re.findall(r"LICENSES/[\w.-]+\.txt", NOTICE.read_text(encoding="utf-8")):
        assert (ROOT / name).is_file(), name


def test_the_check_fails_when_notice_misses_a_line(tmp_path: Path) -> None:
    """Dropping one source's line from NOTICE, or adding a data file with an
    unlisted source, is caught."""
    notice = NOTICE.read_text(encoding="utf-8")
    trimmed = "\n".join(
        line for line in notice.splitlines() if "github.com/jayarathina/" not in line
    )
    assert any("jayarathina" in p for p in unlisted(DATA, trimmed))
    (tmp_path / "extra.yaml").write_text(
        "# Names from https://example.org/saints (CC BY-SA 4.0).\n- a\n", encoding="utf-8"
    )
    problems = unlisted(tmp_path, notice)
    assert any("example.org" in p for p in problems)
    assert any("CC BY" in p for p in problems)
    assert any("data/extra.yaml" in p for p in problems)


@pytest.mark.subprocess
def test_the_wheel_carries_license_and_notice(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(tmp_path), "."],
        cwd=ROOT,
        check=True,
        timeout=600,
    )
    [wheel] = tmp_path.glob("magisterium_a2a-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
    licences = {Path(n).name for n in names if ".dist-info/licenses/" in n}
    assert {"LICENSE", "NOTICE", "Apache-2.0.txt", "CC0-1.0.txt"} <= licences, names
