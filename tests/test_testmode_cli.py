"""'magisterium-a2a test ...' drives a running server's test mode over HTTP."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from magisterium_a2a.server.cli import cli
from magisterium_a2a.testing.pytest_plugin import ServerProcess
from tests.support import rpc_body, send_params, server_process

pytestmark = pytest.mark.subprocess
ADMIN = "cli-admin-token-0123456789abcdef"
runner = CliRunner()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    directory = tmp_path_factory.mktemp("testmode-cli")
    env = {"A2A_TEST_MODE": "1", "A2A_ADMIN_TOKEN": ADMIN, "A2A_DATA_DIR": str(directory)}
    with server_process(env, directory) as running:
        yield running


def run(server: ServerProcess, *args: str) -> str:
    result = runner.invoke(cli, ["test", *args, "--url", server.base_url, "--admin-token", ADMIN])
    assert result.exit_code == 0, result.output
    return result.stdout


def send(server: ServerProcess, token: str, skill: str = "document_search") -> httpx.Response:
    return httpx.post(
        f"{server.base_url}/api/v1/a2a",
        json=rpc_body("message/send", send_params("grace", skill)),
        headers={"Authorization": f"Bearer {token}"},
    )


def test_the_whole_cycle(server: ServerProcess) -> None:
    run(server, "reset")
    token = run(server, "token", "--plan", "pro").strip().splitlines()[-1]
    assert send(server, token).status_code == 200

    run(
        server,
        "scenario",
        "--token",
        token,
        "--kind",
        "error",
        "--code",
        "-32003",
        "--retry-after",
        "9",
        "--count",
        "2",
    )
    pending = json.loads(run(server, "scenarios", "--token", token))
    assert [(s["code"], s["count"]) for s in pending] == [(-32003, 2)]
    limited = send(server, token)
    assert limited.status_code == 429
    assert limited.headers["retry-after"] == "9"

    run(server, "scenario", "--token", token, "--kind", "fail", "--message", "Down for the test.")
    send(server, token)  # the second forced 429 comes first
    failed = send(server, token).json()["result"]
    assert failed["status"]["message"]["parts"][0]["text"] == "Down for the test."

    task = send(server, token).json()["result"]
    before = json.loads(run(server, "clock"))["epoch"]
    after = json.loads(run(server, "clock", "--advance", "90000"))["epoch"]
    assert after - before == pytest.approx(90000, abs=5)
    gone = httpx.post(
        f"{server.base_url}/api/v1/a2a",
        json=rpc_body("tasks/get", {"id": task["id"]}),
        headers={"Authorization": f"Bearer {token}"},
    )
    assert gone.json()["error"]["code"] == -32001
    assert json.loads(run(server, "clock", "--set", "2027-03-19T08:00:00Z"))["now"].startswith(
        "2027-03-19T08:00"
    )

    task = send(server, token).json()["result"]
    assert f"Expired {task['id']}." in run(server, "expire", task["id"], "--token", token)
    assert "Reset" in run(server, "reset")


def test_errors_are_clear(server: ServerProcess, tmp_path: Path) -> None:
    wrong = runner.invoke(
        cli, ["test", "reset", "--url", server.base_url, "--admin-token", "wrong-token-xxxxxxxx"]
    )
    assert wrong.exit_code == 1
    assert "HTTP 401" in wrong.output
    bad = runner.invoke(
        cli,
        [
            "test",
            "scenario",
            "--token",
            "t",
            "--kind",
            "error",
            "--code",
            "7",
            "--url",
            server.base_url,
            "--admin-token",
            ADMIN,
        ],
    )
    assert bad.exit_code == 1
    assert "HTTP 422" in bad.output
    down = runner.invoke(
        cli, ["test", "reset", "--url", "http://127.0.0.1:9", "--admin-token", ADMIN]
    )
    assert down.exit_code == 1
    assert "Cannot reach the server" in down.output
