"""The clients nobody on this team wrote, installed once and kept.

Each client lives in its own directory under the user's cache
(``$XDG_CACHE_HOME/magisterium-a2a/conformance/``, by default
``~/.cache/magisterium-a2a/conformance/``; ``MAGISTERIUM_A2A_TEST_CACHE`` names
another), beside pip's own cache, so that every clone and worktree on a machine
installs each client once: named for the exact versions it holds and the
interpreter that built it, a Python virtual environment built with pip from
PyPI, or an npm prefix. A directory counts only once its
``.complete`` marker exists, so an interrupted install is redone, and a file
lock keeps two test runs from building the same one at once. Bumping a pinned
version below builds a new directory beside the old one.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.support import SHARED

CACHE = (
    Path(os.environ["MAGISTERIUM_A2A_TEST_CACHE"])
    if os.environ.get("MAGISTERIUM_A2A_TEST_CACHE")
    else Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    / "magisterium-a2a"
    / "conformance"
)
# A virtual environment links to the interpreter that made it: one made by another
# Python of the same version (another pyenv build, the system's) is another directory.
INTERPRETER = hashlib.sha256(os.path.realpath(sys.base_prefix).encode()).hexdigest()[:8]
TCK_SOURCE = SHARED / "refdata" / "a2a-tck-1.0"

# The newest release of each line on the day these tests were written.
PYTHON_SDK_1X = "a2a-sdk==1.3.0"
JS_SDK_03 = "@a2a-js/sdk@0.3.14"
JS_SDK_1X = "@a2a-js/sdk@1.3.0"
PLAYWRIGHT = "playwright-core@1.65.1"
MCP_SDK = "mcp==2.3.0"

CHROMIUM = Path("/usr/bin/chromium")
INSTALL_TIMEOUT = 900
# pip without byte-compiling every module it installs (most of an install's CPU): a
# client compiles what it imports, once, as it imports it.
QUIET = ("--quiet", "--no-compile")


def require(available: bool, reason: str) -> None:
    """Skip without the tool, except in CI, where its absence is a failure."""
    if available:
        return
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI=true but {reason}")
    pytest.skip(reason)


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9.]+", "-", text).strip("-")


@contextmanager
def _locked(name: str) -> Iterator[None]:
    CACHE.mkdir(parents=True, exist_ok=True)
    with (CACHE / f"{name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _run(args: Sequence[str | Path], cwd: Path | None = None) -> None:
    done = subprocess.run(
        [str(a) for a in args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=INSTALL_TIMEOUT,
        check=False,
    )
    if done.returncode != 0:
        pytest.fail(
            f"installing a conformance client failed: {' '.join(map(str, args))}\n"
            f"{done.stdout[-4000:]}\n{done.stderr[-4000:]}"
        )


def python_env(requirement: str) -> Path:
    """The interpreter of a virtual environment holding ``requirement``."""
    version = f"py{sys.version_info.major}{sys.version_info.minor}-{INTERPRETER}"
    name = f"{_slug(requirement)}-{version}"
    target = CACHE / name
    python = target / "bin" / "python"
    marker = target / ".complete"
    with _locked(name):
        if not marker.exists():
            shutil.rmtree(target, ignore_errors=True)
            _run([sys.executable, "-m", "venv", target])
            pip = [python, "-m", "pip", "--disable-pip-version-check", "install", *QUIET]
            _run([*pip, requirement])
            marker.write_text(requirement + "\n")
    return python


def tck_env() -> tuple[Path, Path]:
    """The A2A TCK (its 1.0 track, from the refdata) and the interpreter of a
    virtual environment of its own, built with pip from PyPI as its SOURCE.md
    says (``pip install -e .``, and the ``python-dotenv`` its requirements lack).

    The TCK writes reports into its tree, so it runs from a copy kept here, named
    for the snapshot it copies.
    """
    if not (TCK_SOURCE / "run_tck.py").exists():
        pytest.skip(f"{TCK_SOURCE} is absent")
    snapshot = hashlib.sha256(
        (TCK_SOURCE / "SOURCE.md").read_bytes() + (TCK_SOURCE / "pyproject.toml").read_bytes()
    ).hexdigest()[:12]
    version = f"py{sys.version_info.major}{sys.version_info.minor}-{INTERPRETER}"
    name = f"a2a-tck-1.0-{snapshot}-{version}"
    target = CACHE / name
    source, python = target / "src", target / "venv" / "bin" / "python"
    marker = target / ".complete"
    with _locked(name):
        if not marker.exists():
            shutil.rmtree(target, ignore_errors=True)
            shutil.copytree(TCK_SOURCE, source, ignore=shutil.ignore_patterns("reports"))
            for path in [source, *source.rglob("*")]:
                path.chmod(path.stat().st_mode | 0o200)
            _run([sys.executable, "-m", "venv", target / "venv"])
            pip = [python, "-m", "pip", "--disable-pip-version-check", "install", *QUIET]
            _run([*pip, "-e", source, "python-dotenv"])
            marker.write_text(f"{TCK_SOURCE} {snapshot}\n")
    return python, source


def npm_prefix(packages: Sequence[str]) -> Path:
    """A directory whose ``node_modules`` holds exactly these npm packages.

    Node resolves a module's imports from the module's own directory, so a
    script that uses them is run from a copy placed here (see ``node_script``).
    """
    require(shutil.which("node") is not None, "Node.js (node) is not installed")
    require(shutil.which("npm") is not None, "npm is not installed")
    name = "npm-" + "+".join(_slug(p) for p in packages)
    target = CACHE / name
    marker = target / ".complete"
    with _locked(name):
        if not marker.exists():
            shutil.rmtree(target, ignore_errors=True)
            target.mkdir(parents=True)
            manifest = {"name": "conformance-clients", "private": True, "type": "module"}
            (target / "package.json").write_text(json.dumps(manifest))
            _run(
                [
                    "npm",
                    "install",
                    "--no-audit",
                    "--no-fund",
                    "--ignore-scripts",
                    "--save-exact",
                    *packages,
                ],
                cwd=target,
            )
            marker.write_text("\n".join(packages) + "\n")
    return target


# The modules every probe may import (``./plan.mjs``), copied beside it.
PROBE_HELPERS = tuple(
    Path(__file__).resolve().parent / "probes" / name for name in ("plan.mjs", "bearer.mjs")
)


def node_script(prefix: Path, script: Path) -> Path:
    """A copy of ``script`` inside ``prefix``, with the probes' helpers, so its
    imports resolve there."""
    for source in (*PROBE_HELPERS, script):
        copy = prefix / source.name
        if not copy.exists() or copy.read_bytes() != source.read_bytes():
            shutil.copyfile(source, copy)
    return prefix / script.name
