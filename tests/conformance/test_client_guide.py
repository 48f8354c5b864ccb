"""docs/clients.md's examples, run as they stand on the page against a real
server: the Python one with the official ``a2a-sdk`` 0.3 (this suite's own), the
JavaScript one with ``@a2a-js/sdk`` 0.3 in Node. Each prints what the page says
it prints, and handles a free plan and the rate limit as the page says."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from magisterium_a2a.testing.pytest_plugin import MagisteriumServer
from tests.conformance.toolchains import JS_SDK_03, node_script, npm_prefix
from tests.support import ROOT, rpc_body, send_params

pytestmark = pytest.mark.subprocess

GUIDE = (ROOT / "docs" / "clients.md").read_text()


def block(language: str) -> str:
    found = re.findall(rf"^```{language}\n(.*?)^```", GUIDE, flags=re.M | re.S)
    assert len(found) == 1, f"one ```{language} block in docs/clients.md"
    return str(found[0])


PRINTS = block("text").strip().splitlines()


def run(command: list[str], server: MagisteriumServer, token: str, cwd: Path) -> list[str]:
    env = {**os.environ, "A2A_URL": server.base_url, "A2A_TOKEN": token}
    done = subprocess.run(
        command, env=env, cwd=cwd, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout.strip().splitlines()


def spent(server: MagisteriumServer, user: str) -> str:
    """A token whose only request of the minute is already used."""
    token = server.issue_token("enterprise", user, perMinute=1)
    answer = httpx.post(
        server.endpoint_url,
        json=rpc_body("message/send", send_params("Leo XIV", "pope_lookup")),
        headers={"Authorization": f"Bearer {token}"},
        timeout=60,
    )
    assert answer.status_code == 200, answer.text
    return token


def test_the_python_example(conformance_server: MagisteriumServer, tmp_path: Path) -> None:
    program = tmp_path / "client.py"
    program.write_text(block("python"))
    command = [sys.executable, str(program)]
    server = conformance_server
    assert run(command, server, server.issue_token("pro", "guide-py"), tmp_path) == PRINTS
    free = run(command, server, server.issue_token("free", "guide-py-free"), tmp_path)
    assert free == ["403 -32005 Paid plan required"]
    limited = run(command, server, spent(server, "guide-py-limited"), tmp_path)
    assert len(limited) == 1 and re.fullmatch(r"rate limited; retry after \d+ s", limited[0])


def test_the_javascript_example(conformance_server: MagisteriumServer, tmp_path: Path) -> None:
    prefix = npm_prefix([JS_SDK_03])
    source = tmp_path / "client_guide.mjs"
    source.write_text(block("js"))
    command = ["node", str(node_script(prefix, source))]
    server = conformance_server
    assert run(command, server, server.issue_token("pro", "guide-js"), prefix) == PRINTS
    free = run(command, server, server.issue_token("free", "guide-js-free"), prefix)
    assert free == ["-32005 Paid plan required"]
    limited = run(command, server, spent(server, "guide-js-limited"), prefix)
    assert len(limited) == 1 and re.fullmatch(r"rate limited; retry after \d+ s", limited[0])
