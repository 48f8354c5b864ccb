"""A real browser: headless Chromium (Debian's ``chromium``, driven by
``playwright-core``) opens a page served from another origin, whose own script
calls the endpoint with a bearer token through ``fetch``. The CORS preflight
must pass, and a 200 result, a 429 (``retryAfter`` in the body, the
``Retry-After`` header readable) and a 401 must all reach the page's script;
a header the server does not allow must make the browser refuse the call."""

from __future__ import annotations

import functools
import shutil
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from magisterium_a2a.testing.pytest_plugin import MagisteriumServer
from tests.conformance.plan import PROBES, run_probe
from tests.conformance.toolchains import CHROMIUM, PLAYWRIGHT, node_script, npm_prefix, require

pytestmark = pytest.mark.subprocess

PAGES = Path(__file__).resolve().parent / "pages"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


class _QuietPages(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        """The page server's access log is of no interest to the test."""


@pytest.fixture(scope="module")
def page_origin() -> Iterator[str]:
    """A static file server on its own port: another origin than the endpoint's."""
    handler = functools.partial(_QuietPages, directory=str(PAGES))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def test_cross_origin_page_reads_results_and_errors(
    conformance_server: MagisteriumServer, page_origin: str, tmp_path: Path
) -> None:
    require(
        CHROMIUM.exists() or shutil.which("chromium") is not None,
        "Chromium is not installed (apt-get install chromium; .ci/run does it)",
    )
    prefix = npm_prefix([PLAYWRIGHT])
    endpoint = conformance_server.endpoint_url
    plan = {
        "executablePath": str(CHROMIUM if CHROMIUM.exists() else shutil.which("chromium")),
        "args": CHROMIUM_ARGS,
        "userDataDir": str(tmp_path / "profile"),
        "pageUrl": f"{page_origin}/cross_origin.html",
        "config": {
            "endpoint": endpoint,
            "tokens": {
                "pro": conformance_server.issue_token("pro", "browser-pro"),
                "limited": conformance_server.issue_token(
                    "enterprise", "browser-limited", perMinute=1
                ),
            },
        },
    }
    report = run_probe(["node", str(node_script(prefix, PROBES / "browser.mjs"))], plan, cwd=prefix)
    seen = report["results"]
    assert seen["origin"] == page_origin != conformance_server.base_url

    # The browser asked first, and the server's answer let the call through.
    asked = [p for p in report["preflights"] if p["url"] == endpoint]
    assert asked, report["preflights"]
    first = asked[0]
    assert first["method"] == "OPTIONS"
    assert first["requestHeaders"]["Access-Control-Request-Method"] == "POST"
    assert first["requestHeaders"]["Access-Control-Request-Headers"] == "authorization,content-type"
    assert first["status"] == 204
    allowed = first["responseHeaders"]
    assert allowed["access-control-allow-origin"] == "*"
    assert "authorization" in allowed["access-control-allow-headers"].lower()

    ok = seen["ok"]
    assert ok["status"] == 200
    assert ok["contentType"] == "application/json"
    task = ok["body"]["result"]
    assert task["status"]["state"] == "completed"
    assert task["artifacts"][0]["parts"] == [{"kind": "text", "text": "from a browser"}]

    assert seen["spend"]["status"] == 200
    limited = seen["limited"]
    assert limited["status"] == 429
    error = limited["body"]["error"]
    assert error["code"] == -32003
    assert 1 <= error["data"]["retryAfter"] <= 60
    assert limited["retryAfter"] == str(error["data"]["retryAfter"])

    unauthorized = seen["unauthorized"]
    assert unauthorized["status"] == 401
    assert unauthorized["body"]["error"]["code"] == -32004

    # The control: a header the server does not allow fails the preflight, so
    # the calls above passed because of the server's CORS answer.
    assert seen["disallowedHeader"]["failed"].startswith("TypeError")
    assert any("x-not-allowed is not allowed" in line for line in report["console"])
