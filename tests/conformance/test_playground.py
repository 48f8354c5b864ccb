"""The playground in a real browser: headless Chromium (Debian's ``chromium``,
driven by ``playwright-core``) opens ``/`` of a development server, picks its
language from the browser's, sends to three skills (by keyboard, by button,
a data part), reads the answers, runs into the rate limit and shows its
``Retry-After``, gets and cancels a task by id, signs in through the built-in
OAuth server (PKCE) and sends as that user. The calls the page offers to copy
(curl, and Python with the official SDK) are then run as they are."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from magisterium_a2a.testing.pytest_plugin import ServerProcess, running_server
from tests.conformance.plan import PROBES, run_probe
from tests.conformance.toolchains import CHROMIUM, PLAYWRIGHT, node_script, npm_prefix, require

pytestmark = pytest.mark.subprocess

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
# Three requests a minute in the default bucket: the fourth send is a 429.
LIMIT = 3


@pytest.fixture(scope="module")
def dev_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """What ``make run`` starts: development mode, the embedded store."""
    workdir = tmp_path_factory.mktemp("playground")
    env = {
        "A2A_DEV_MODE": "1",
        "A2A_DATA_DIR": str(workdir / "data"),
        "A2A_LIMIT_DEFAULT_PER_MINUTE": str(LIMIT),
        "A2A_LOG_LEVEL": "warning",
    }
    with running_server(env, workdir) as server:
        yield server


@pytest.fixture(scope="module")
def report(dev_server: ServerProcess, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    require(
        CHROMIUM.exists() or shutil.which("chromium") is not None,
        "Chromium is not installed (apt-get install chromium; .ci/run does it)",
    )
    prefix = npm_prefix([PLAYWRIGHT])
    workdir = tmp_path_factory.mktemp("browser")
    plan = {
        "executablePath": str(CHROMIUM if CHROMIUM.exists() else shutil.which("chromium")),
        "args": CHROMIUM_ARGS,
        "userDataDir": str(workdir / "profile"),
        "baseUrl": dev_server.base_url,
        "locale": "pl-PL",
        "screenshot": os.environ.get("PLAYGROUND_SCREENSHOT") or str(workdir / "playground.png"),
    }
    seen: dict[str, Any] = run_probe(
        ["node", str(node_script(prefix, PROBES / "playground.mjs"))], plan, cwd=prefix
    )
    assert "error" not in seen, seen.get("error")
    return seen


def test_language_and_keyboard(report: dict[str, Any]) -> None:
    language = report["steps"]["language"]
    # The browser said Polish; the picker offers the server's languages.
    assert language["detected"] == "pl"
    assert language["sendLabel"] == "Wyślij"
    assert language["languages"] == [
        "en", "es", "pt", "it", "fr", "de", "pl", "ja", "ko", "zh-Hans", "zh-Hant", "vi", "tl"
    ]  # fmt: skip
    assert language["after"] == {"lang": "en", "sendLabel": "Send"}
    keyboard = report["steps"]["keyboard"]
    assert keyboard == {"firstFocus": "skip", "afterSkip": "compose"}
    # Nothing the page loads or does breaks its Content Security Policy or throws;
    # the one failed load the console reports is the 429 the test asks for.
    problems = [
        line
        for line in report["console"]
        if not line.startswith("verbose:") and "status of 429 (Too Many Requests)" not in line
    ]
    assert problems == []


def test_three_skills_answer_in_the_page(report: dict[str, Any]) -> None:
    steps = report["steps"]
    assert steps["popeExamples"][0] == "Leo XIV"  # the card's examples
    pope, readings, search = steps["pope"], steps["readings"], steps["search"]
    for step in (pope, readings, search):
        assert step["wire"]["status"] == 200
        assert step["httpStatus"] == "200" and step["state"] == "completed"
        assert step["taskId"] and step["taskId"] in step["rawResponse"]
    # Leo XIV was born Robert Francis Prevost (Vatican press office, 8 May 2025).
    assert "Robert Francis Prevost" in pope["answer"]
    # Christmas, Mass during the Day: the Gospel is John 1:1-18 (Lectionary 16).
    assert "Mass during the Day" in readings["answer"]
    assert "Jn 1:1-18" in readings["answer"]
    assert steps["readingsDataDisabled"] is True  # the card says text/plain only
    assert "Rerum Novarum" in search["answer"]
    assert '"kind": "data"' in search["rawRequest"]
    # The rate-limit headers of each admitted send, as the wire carried them.
    for left, step in zip((2, 1, 0), (pope, readings, search), strict=True):
        shown = step["headersShown"]
        assert shown["x-ratelimit-limit"] == str(LIMIT)
        assert shown["x-ratelimit-remaining"] == str(left)
        assert shown["x-ratelimit-reset"] == step["wire"]["headers"]["x-ratelimit-reset"]
        assert "Authorization: Bearer demo-pro" in step["rawRequest"]


def test_the_429_and_its_retry_after(report: dict[str, Any]) -> None:
    limited = report["steps"]["limited"]
    assert limited["wire"]["status"] == 429
    assert limited["rpcError"] == "-32003"
    header = limited["wire"]["headers"]["retry-after"]
    assert 1 <= int(header) <= 60
    assert limited["headersShown"]["retry-after"] == header
    assert f"Retry-After: {header} s" in limited["limits"]
    assert "A2A_LIMIT_DEFAULT_PER_MINUTE" in limited["outcome"]  # how to raise it
    assert f'"retryAfter": {header}' in limited["rawResponse"]


def test_tasks_get_and_cancel_by_id(report: dict[str, Any]) -> None:
    steps = report["steps"]
    # The id field holds the last task the page saw: the search's (the 429 made none).
    assert steps["taskIdField"] == steps["search"]["taskId"]
    got = steps["get"]
    assert got["wire"]["status"] == 200 and got["state"] == "completed"
    assert got["taskId"] == steps["search"]["taskId"]
    assert '"historyLength": 1' in got["rawRequest"]
    assert got["headersShown"] == {}  # tasks/get is never counted
    cancel = steps["cancel"]
    assert cancel["rpcError"] == "-32602"  # a completed task cannot be canceled
    assert "Invalid state transition" in cancel["outcome"]


def test_oauth_sign_in_from_the_page(report: dict[str, Any], dev_server: ServerProcess) -> None:
    steps = report["steps"]
    login = steps["loginPage"]["url"]
    assert login.startswith(f"{dev_server.base_url}/oauth/authorize?")
    assert "code_challenge_method=S256" in login and "resource=" in login
    signed = steps["signedIn"]
    assert signed["credential"] == "oauth"
    assert signed["accessToken"].startswith("mat_")
    assert re.search(r"expires in \d+ s", signed["status"])
    sent = steps["oauthSend"]
    # Another user (the organization demo user), so a fresh rate-limit window.
    assert sent["wire"]["status"] == 200 and sent["state"] == "completed"
    assert sent["headersShown"]["x-ratelimit-remaining"] == str(LIMIT - 1)
    assert "Authorization: Bearer mat_" in sent["rawRequest"]
    # 19 March: the Solemnity of Saint Joseph, Spouse of the Blessed Virgin Mary.
    assert "Saint Joseph, Spouse of the Blessed Virgin Mary" in sent["answer"]


def _run(command: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command, capture_output=True, text=True, timeout=120, env={**os.environ, **env}, check=False
    )


def test_the_copied_calls_run_as_they_are(report: dict[str, Any], tmp_path: Path) -> None:
    steps = report["steps"]
    require(shutil.which("curl") is not None, "curl is not installed")
    # tasks/get with the demo token written out (it counts against no limit).
    got = _run(["bash", "-c", steps["get"]["curl"]], {})
    assert got.returncode == 0, got.stderr
    assert got.stdout.startswith("HTTP/1.1 200")
    body = json.loads(got.stdout.split("\n\n", 1)[1])
    assert body["result"]["id"] == steps["search"]["taskId"]
    program = tmp_path / "get_task.py"
    program.write_text(steps["get"]["python"])
    printed = _run([sys.executable, str(program)], {})
    assert printed.returncode == 0, printed.stderr
    assert json.loads(printed.stdout)["id"] == steps["search"]["taskId"]

    # message/send with the OAuth access token, which a snippet reads from A2A_TOKEN.
    sent = steps["oauthSend"]
    token = {"A2A_TOKEN": steps["signedIn"]["accessToken"]}
    assert "$A2A_TOKEN" in sent["curl"] and "mat_" not in sent["curl"]
    answered = _run(["bash", "-c", sent["curl"]], token)
    assert answered.returncode == 0, answered.stderr
    task = json.loads(answered.stdout.split("\n\n", 1)[1])["result"]
    assert task["status"]["state"] == "completed"
    assert "Saint Joseph" in json.dumps(task["artifacts"])
    program = tmp_path / "send.py"
    program.write_text(sent["python"])
    assert 'os.environ["A2A_TOKEN"]' in sent["python"]
    printed = _run([sys.executable, str(program)], token)
    assert printed.returncode == 0, printed.stderr
    task = json.loads(printed.stdout)
    assert task["status"]["state"] == "completed"
    assert "Saint Joseph" in json.dumps(task["artifacts"])
