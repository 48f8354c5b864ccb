"""A pytest plugin for testing A2A clients against this server.

Installing the package registers it (entry point ``pytest11``). It offers:

- ``magisterium_server`` (session): a real server on a free port, in test
  mode, on the embedded store, with a token ready for every plan;
- ``magisterium`` (function): the same server, reset before the test, for a
  client of the A2A version ``magisterium_version`` names;
- ``magisterium_version`` (function): ``"0.3"`` (the hosted dialect) by
  default; override it, or parametrize a test with it, to test a 1.0 client
  (``@pytest.mark.parametrize("magisterium_version", ["0.3", "1.0"])``);
- ``magisterium_server_env`` (session): extra ``A2A_*`` settings for the
  server; override it in your ``conftest.py`` (e.g. ``A2A_DETERMINISTIC``).

``magisterium.headers(plan)`` gives the headers a client of that version sends
(its bearer token, and ``A2A-Version`` for 1.0), and ``force_error`` takes the
JSON-RPC code as that version names it.

``magisterium.oauth_login(plan)`` signs in through the built-in OAuth server
(discovery, registration, authorization code with PKCE) and returns the tokens.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import secrets
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from magisterium_a2a.testing.admin_client import AdminClient
from magisterium_a2a.testing.oauth import OAuthLogin, oauth_login

PLANS = ("free", "pro", "organization", "enterprise")
VERSIONS = ("0.3", "1.0")
START_TIMEOUT = 60.0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@dataclass
class ServerProcess:
    """A ``magisterium-a2a serve`` subprocess."""

    port: int
    process: subprocess.Popen[bytes]
    log_path: Path

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")


@contextlib.contextmanager
def running_server(
    env: dict[str, str],
    log_dir: Path,
    *,
    workers: int = 1,
    timeout: float = START_TIMEOUT,
    python: str = sys.executable,
) -> Iterator[ServerProcess]:
    """Start a server with these ``A2A_*`` settings; stop it on exit.

    The server sees none of the caller's own ``A2A_*`` variables, only ``env``.
    """
    port = free_port()
    log_path = log_dir / f"server-{port}.log"
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("A2A_")}
    full_env.update({"A2A_PUBLIC_URL": f"http://127.0.0.1:{port}", **env})
    args = [
        python,
        "-m",
        "magisterium_a2a.server",
        "serve",
        "--port",
        str(port),
        "--workers",
        str(workers),
    ]
    with log_path.open("wb") as log:
        # In the log directory, so that no stray .env file of the caller applies.
        process = subprocess.Popen(
            args, env=full_env, stdout=log, stderr=subprocess.STDOUT, cwd=log_dir
        )
    server = ServerProcess(port, process, log_path)
    try:
        _wait_ready(server, timeout)
        yield server
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _wait_ready(server: ServerProcess, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while True:
        if server.process.poll() is not None:
            raise RuntimeError(f"the server exited while starting:\n{server.log()}")
        try:
            if httpx.get(f"{server.base_url}/readyz", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"the server was not ready after {timeout:g} s:\n{server.log()}")
        time.sleep(0.05)


@dataclass
class MagisteriumServer:
    """A running server in test mode, and the controls of its scenarios, for a
    client of one A2A version (``"0.3"``, the hosted dialect, or ``"1.0"``)."""

    base_url: str
    admin: AdminClient
    tokens: dict[str, str] = field(default_factory=dict)
    version: str = "0.3"

    def speaking(self, version: str) -> MagisteriumServer:
        """The same server, for a client of this A2A version."""
        if version not in VERSIONS:
            raise ValueError(f"A2A version must be one of {VERSIONS}, not {version!r}")
        return dataclasses.replace(self, version=version)

    def headers(self, plan: str = "pro", *, token: str | None = None) -> dict[str, str]:
        """What a client of this version sends: the bearer token of ``plan`` (or
        ``token``), and ``A2A-Version`` unless it speaks the hosted dialect."""
        sent = {"Authorization": f"Bearer {token or self.tokens[plan]}"}
        if self.version != "0.3":
            sent["A2A-Version"] = self.version
        return sent

    @property
    def endpoint_url(self) -> str:
        return f"{self.base_url}/api/v1/a2a"

    @property
    def card_url(self) -> str:
        return f"{self.base_url}/.well-known/agent.json"

    def oauth_login(self, plan: str = "pro", *, api_token: str | None = None) -> OAuthLogin:
        """Run the whole OAuth flow (discovery, registration, code with PKCE, token)
        as the user of ``api_token``, by default the session's token of ``plan``."""
        return oauth_login(self.base_url, api_token or self.tokens[plan])

    def issue_token(self, plan: str = "pro", user: str | None = None, **limits: Any) -> str:
        """A new token; ``limits``: ``expiresIn``, ``perMinute``, ``qaPerMinute``."""
        return self.admin.issue_token(plan, user, **limits)

    def force_error(
        self,
        token: str,
        code: int,
        *,
        count: int = 1,
        method: str | None = None,
        skill: str | None = None,
        retry_after: int | None = None,
        message: str | None = None,
    ) -> str:
        """The token's next ``count`` matching calls answer this JSON-RPC error
        (``code`` as this version names it; ``method`` by either version's name)."""
        return self.admin.add_scenario(
            kind="error",
            token=token,
            code=code,
            version=self.version,
            count=count,
            method=method,
            skill=skill,
            retryAfter=retry_after,
            message=message,
        )

    def fail_skill(
        self,
        token: str,
        *,
        skill: str | None = None,
        count: int = 1,
        message: str | None = None,
    ) -> str:
        """The token's next ``count`` message/send calls give ``failed`` tasks."""
        return self.admin.add_scenario(
            kind="fail", token=token, skill=skill, count=count, message=message
        )

    def add_latency(
        self,
        token: str,
        milliseconds: int,
        *,
        count: int = 1,
        method: str | None = None,
        skill: str | None = None,
    ) -> str:
        """The token's next ``count`` matching calls are answered that much later."""
        return self.admin.add_scenario(
            kind="latency",
            token=token,
            latencyMs=milliseconds,
            count=count,
            method=method,
            skill=skill,
        )

    def expire_task(self, token: str, task_id: str) -> None:
        self.admin.expire_task(token, task_id)

    def now(self) -> float:
        epoch: float = self.admin.clock()["epoch"]
        return epoch

    def set_clock(self, now: float | str) -> None:
        self.admin.set_clock(now)

    def advance_clock(self, seconds: float) -> None:
        self.admin.advance_clock(seconds)

    def reset(self) -> None:
        """Forget tasks, rate-limit windows, scenarios and the clock; tokens stay."""
        self.admin.reset()


@pytest.fixture(scope="session")
def magisterium_server_env() -> dict[str, str]:
    """Extra A2A_* settings for the server; override in your conftest.py."""
    return {}


@contextlib.contextmanager
def serve_in_test_mode(workdir: Path, env: dict[str, str]) -> Iterator[MagisteriumServer]:
    """A server in test mode on the embedded store, with a token for every plan."""
    admin_token = secrets.token_urlsafe(24)
    settings = {
        "A2A_TEST_MODE": "1",
        "A2A_ADMIN_TOKEN": admin_token,
        "A2A_DATA_DIR": str(workdir / "data"),
        "A2A_LOG_LEVEL": "warning",
        **env,
    }
    with running_server(settings, workdir) as process:
        server = MagisteriumServer(process.base_url, AdminClient(process.base_url, admin_token))
        try:
            server.tokens = {plan: server.issue_token(plan, f"test-{plan}") for plan in PLANS}
            yield server
        finally:
            server.admin.close()


@pytest.fixture(scope="session")
def magisterium_server(
    tmp_path_factory: pytest.TempPathFactory, magisterium_server_env: dict[str, str]
) -> Iterator[MagisteriumServer]:
    with serve_in_test_mode(
        tmp_path_factory.mktemp("magisterium"), magisterium_server_env
    ) as server:
        yield server


@pytest.fixture
def magisterium_version() -> str:
    """The A2A version of the client under test; override or parametrize it."""
    return "0.3"


@pytest.fixture
def magisterium(
    magisterium_server: MagisteriumServer, magisterium_version: str
) -> MagisteriumServer:
    """The session's server, reset before this test, for a client of ``magisterium_version``."""
    magisterium_server.reset()
    return magisterium_server.speaking(magisterium_version)
