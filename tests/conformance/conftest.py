"""One real server for every conformance test: a ``magisterium-a2a serve``
subprocess in test mode, on the embedded store, with the test plug-in skills
(``echo`` among them). Tests never share a token, so they never share state."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.admin_client import AdminClient
from app.pytest_plugin import MagisteriumServer
from tests.support import server_process


@pytest.fixture(scope="session")
def conformance_server(
    tmp_path_factory: pytest.TempPathFactory, plugin_site: Path
) -> Iterator[MagisteriumServer]:
    workdir = tmp_path_factory.mktemp("conformance")
    admin_token = secrets.token_urlsafe(24)
    env = {
        "A2A_TEST_MODE": "1",
        "A2A_ADMIN_TOKEN": admin_token,
        "A2A_DATA_DIR": str(workdir / "data"),
        "A2A_LOG_LEVEL": "warning",
        "PYTHONPATH": str(plugin_site),
    }
    with server_process(env, workdir) as process:
        admin = AdminClient(process.base_url, admin_token)
        try:
            yield MagisteriumServer(process.base_url, admin)
        finally:
            admin.close()
