"""'magisterium-a2a test ...' drives a running server's test mode over HTTP."""

from __future__ import annotations

import json
import subprocess
import sys
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


def command(server: ServerProcess, *args: str) -> subprocess.CompletedProcess[str]:
    """The installed ``magisterium-a2a`` command, as a user types it."""
    executable = Path(sys.executable).with_name("magisterium-a2a")
    return subprocess.run(
        [str(executable), "test", *args, "--url", server.base_url, "--admin-token", ADMIN],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def rpc_v1(server: ServerProcess, token: str, method: str, params: object) -> httpx.Response:
    return httpx.post(
        f"{server.base_url}/api/v1/a2a",
        json={"jsonrpc": "2.0", "id": 1, "method": method, "params": params},
        headers={"Authorization": f"Bearer {token}", "A2A-Version": "1.0"},
    )


def scenario_v1(server: ServerProcess, token: str, *args: str) -> subprocess.CompletedProcess[str]:
    """``test scenario --kind error --a2a-version 1.0`` with more options."""
    base = ("scenario", "--token", token, "--kind", "error", "--a2a-version", "1.0")
    return command(server, *base, *args)


def test_a_scenario_in_1_0_codes_from_the_command_line(server: ServerProcess) -> None:
    issued = command(server, "token", "--plan", "pro")
    assert issued.returncode == 0, issued.stderr
    token = issued.stdout.strip().splitlines()[-1]
    task = send(server, token).json()["result"]

    # -31429, 1.0's rate limit, for the next two GetTask calls: tasks/get is the same operation.
    added = scenario_v1(
        server, token, "--code", "-31429", "--retry-after", "7", "--method", "GetTask"
    )
    assert added.returncode == 0, added.stderr
    assert scenario_v1(server, token, "--code", "-31429", "--method", "GetTask").returncode == 0
    listed = command(server, "scenarios", "--token", token)
    pending = json.loads(listed.stdout)
    assert [(s["code"], s["version"], s["count"]) for s in pending] == [
        (-31429, "1.0", 1),
        (-31429, "1.0", 1),
    ]
    limited = rpc_v1(server, token, "GetTask", {"id": task["id"]})
    assert (limited.status_code, limited.headers["retry-after"]) == (429, "7")
    error = limited.json()["error"]
    assert error["code"] == -31429
    assert error["data"][1] == {
        "@type": "type.googleapis.com/google.rpc.RetryInfo",
        "retryDelay": "7s",
    }
    # The same forced error, to a client of the hosted dialect, in its own code.
    hosted = httpx.post(
        f"{server.base_url}/api/v1/a2a",
        json=rpc_body("tasks/get", {"id": task["id"]}),
        headers={"Authorization": f"Bearer {token}"},
    )
    assert (hosted.status_code, hosted.json()["error"]["code"]) == (429, -32003)
    # Spent: the next GetTask is answered.
    got = rpc_v1(server, token, "GetTask", {"id": task["id"]})
    assert got.json()["result"]["status"]["state"] == "TASK_STATE_COMPLETED"

    # -32002 is TaskNotCancelableError in 1.0 (a hosted client's -32002 is "Skill not found").
    assert scenario_v1(server, token, "--code", "-32002").returncode == 0
    refused = rpc_v1(server, token, "CancelTask", {"id": "whatever"})
    assert refused.json()["error"]["data"][0]["reason"] == "TASK_NOT_CANCELABLE"

    # A code of the other version is refused, naming the version's codes.
    plan_code = scenario_v1(server, token, "--code", "-32005")
    assert plan_code.returncode == 1
    said = " ".join(plan_code.stderr.split())
    assert "HTTP 422" in said and "-31403" in said and "(A2A 1.0)" in said
    unknown = command(
        server, "scenario", "--token", token, "--kind", "error", "--code", "-32001",
        "--a2a-version", "2.0",
    )  # fmt: skip
    assert unknown.returncode == 1
    assert "HTTP 422" in unknown.stderr
