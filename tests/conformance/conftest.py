"""One real server for every conformance test: a ``magisterium-a2a serve``
subprocess in test mode, on the embedded store, with the test plug-in skills
(``echo`` among them). Tests never share a token, so they never share state.
The server records every request it answers (``A2A_RECORD_DIR``), so a test
can show what a client sent on the wire."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from magisterium_a2a.testing.pytest_plugin import MagisteriumServer, serve_in_test_mode
from tests.support import ROOT


@pytest.fixture(scope="session")
def conformance_records(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the conformance server records the requests it answers."""
    return tmp_path_factory.mktemp("records")


@pytest.fixture(scope="session")
def conformance_server(
    tmp_path_factory: pytest.TempPathFactory, plugin_site: Path, conformance_records: Path
) -> Iterator[MagisteriumServer]:
    plugins = os.pathsep.join([str(ROOT), str(ROOT / "tests" / "plugins"), str(plugin_site)])
    workdir = tmp_path_factory.mktemp("conformance")
    env = {"PYTHONPATH": plugins, "A2A_RECORD_DIR": str(conformance_records)}
    with serve_in_test_mode(workdir, env) as server:
        yield server
