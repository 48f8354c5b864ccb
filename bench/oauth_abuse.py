"""What two of review round 2's attacks cost a real server (development mode,
embedded store): the resident memory after a signed-in user mints
authorization codes as fast as it can, and the log bytes of an aborted POST.

    python -m bench.oauth_abuse [--attempts 2000] [--aborts 50]

Run it on two trees to compare (``PYTHONPATH=<other tree>/app:<other tree>/skills``
puts another tree's server first). It prints what it measured; nothing is asserted.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import re
import secrets
import socket
import tempfile
import time
from pathlib import Path

import httpx

from magisterium_a2a.testing.pytest_plugin import running_server

REDIRECT = "http://127.0.0.1:8765/cb"


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def mint(base: str, attempts: int) -> tuple[int, float]:
    """Codes obtained in ``attempts`` page-and-approve round trips, and the seconds taken."""
    with httpx.Client(base_url=base, timeout=30) as client:
        registered = client.post(
            "/oauth/register",
            json={"redirect_uris": [REDIRECT], "token_endpoint_auth_method": "none"},
        ).json()
        verifier = secrets.token_urlsafe(48)
        digest = hashlib.sha256(verifier.encode()).digest()
        query = {
            "response_type": "code",
            "client_id": registered["client_id"],
            "redirect_uri": REDIRECT,
            "code_challenge": base64.urlsafe_b64encode(digest).rstrip(b"=").decode(),
            "code_challenge_method": "S256",
        }
        codes = 0
        started = time.perf_counter()
        for _ in range(attempts):
            page = client.get("/oauth/authorize", params=query)
            csrf = re.search(r'name="csrf" value="([^"]*)"', page.text)
            if csrf is None:
                continue
            client.cookies.set("a2a_oauth_csrf", csrf.group(1))
            fields = {**query, "csrf": csrf.group(1), "demo_plan": "free", "decision": "approve"}
            answer = client.post("/oauth/authorize", data=fields)
            codes += answer.status_code == 302 and "code=" in answer.headers.get("location", "")
        return codes, time.perf_counter() - started


def abort_posts(port: int, count: int) -> None:
    head = (
        b"POST /oauth/token HTTP/1.1\r\nHost: t\r\nContent-Length: 1000\r\n"
        b"Content-Type: application/x-www-form-urlencoded\r\n\r\ngrant_type="
    )
    for _ in range(count):
        with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
            sock.sendall(head)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--attempts", type=int, default=2000)
    parser.add_argument("--aborts", type=int, default=50)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        env = {"A2A_DEV_MODE": "1", "A2A_DATA_DIR": str(Path(work) / "data")}
        with running_server(env, Path(work)) as server:
            pid = server.process.pid
            before = rss_kib(pid)
            codes, seconds = mint(server.base_url, args.attempts)
            after = rss_kib(pid)
            print(
                f"code minting: {codes} codes from {args.attempts} attempts in {seconds:.1f} s; "
                f"RSS {before / 1024:.1f} MiB -> {after / 1024:.1f} MiB "
                f"(+{(after - before) / 1024:.1f} MiB)"
            )
            size = len(server.log().encode())
            abort_posts(server.port, args.aborts)
            httpx.get(f"{server.base_url}/healthz", timeout=10)
            time.sleep(1.0)  # let the server write what it logs about the aborted requests
            grown = len(server.log().encode()) - size
            print(f"aborted POSTs: {grown / args.aborts:.0f} log bytes each ({args.aborts} sent)")


if __name__ == "__main__":
    main()
