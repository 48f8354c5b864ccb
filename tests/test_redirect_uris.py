"""Redirect URIs are read as a browser reads them (review round 2, N1).

A browser parses the ``Location`` it is sent with the WHATWG URL standard, in
which ``\\`` is ``/`` and tabs and newlines vanish; Python's ``urlsplit`` reads
the same strings otherwise. The server must never accept a ``redirect_uri``
that a browser would follow to another host than the registered one. The
WHATWG reading here is ada's (``ada-url``, the parser of Node.js), not ours.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, urlsplit

import ada_url
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from magisterium_a2a.server.config import Settings
from magisterium_a2a.server.oauth.server import Client
from magisterium_a2a.server.oauth.store import ClientRecord
from tests.support import Harness, harness
from tests.test_oauth import challenge, discover, oauth_settings, register

LOOPBACK = "http://127.0.0.1:8765/cb"
HTTPS = "https://app.example/cb"

# The finding's URIs: each is a path under 127.0.0.1 for urlsplit, and a
# redirect to evil.example (or to 127.0.0.1 with forged userinfo) for a browser.
BACKSLASH_URIS = [
    "http://evil.example\\@127.0.0.1:8765/cb",
    "http://evil.example%5C@127.0.0.1:8765/cb",
    "http://evil.example\\\\@127.0.0.1:8765/cb",
    "http://evil.example%5c@127.0.0.1:8765/cb",
]


def whatwg(uri: str) -> dict[str, str] | None:
    """The parts a browser reads in ``uri``, or None when it is no URL at all."""
    try:
        url = ada_url.URL(uri)
    except ValueError:
        return None
    return {"protocol": url.protocol, "hostname": url.hostname, "username": url.username}


def client_of(*uris: str) -> Client:
    return Client(
        ClientRecord(
            client_id="mcl_test",
            issued_at=0,
            redirect_uris=list(uris),
            token_endpoint_auth_method="none",
            grant_types=["authorization_code"],
            response_types=["code"],
            scope="a2a",
        )
    )


# --- over HTTP: the finding itself ------------------------------------------------


async def _loopback_client(h: Harness) -> str:
    registered = await register(h, await discover(h), redirect_uris=[LOOPBACK])
    assert registered.status_code == 201, registered.text
    client_id: str = registered.json()["client_id"]
    return client_id


@pytest.mark.parametrize("uri", BACKSLASH_URIS)
async def test_a_backslash_redirect_uri_gets_no_code(settings: Settings, uri: str) -> None:
    async with harness(oauth_settings(settings)) as h:
        client_id = await _loopback_client(h)
        query = {
            "response_type": "code",
            "client_id": client_id,
            "redirect_uri": uri,
            "state": "s",
            "code_challenge": challenge("v" * 48),
            "code_challenge_method": "S256",
            "login_hint": await h.token("pro"),
        }
        answer = await h.client.get("/oauth/authorize", params=query)
        assert answer.status_code == 400, answer.headers.get("location")
        assert "location" not in answer.headers
        assert "invalid_request" in answer.text


@pytest.mark.parametrize("uri", BACKSLASH_URIS)
async def test_a_backslash_redirect_uri_is_no_open_redirect(settings: Settings, uri: str) -> None:
    """Without PKCE or a sign-in: still an error page, never a 302 elsewhere."""
    async with harness(oauth_settings(settings)) as h:
        client_id = await _loopback_client(h)
        query = {"response_type": "code", "client_id": client_id, "redirect_uri": uri}
        answer = await h.client.get("/oauth/authorize", params=query)
        assert answer.status_code == 400
        assert "location" not in answer.headers


@pytest.mark.parametrize(
    "uri",
    [
        "http://evil.example\\@127.0.0.1:8765/cb",
        "http://evil.example%5C@127.0.0.1:8765/cb",
        "http://user@127.0.0.1:8765/cb",
        "https://user:pw@app.example/cb",
        "https://app.example/c b",
        "https://app.example/cb\t",
        "https://app.exa\nmple/cb",
        "https://app.example\\cb",
        "https://app.example/cb\x00",
        "https://app.éxample/cb",
        "https://app.example:99999/cb",
        "https://[::1%25eth0]/cb",
    ],
)
async def test_registration_refuses_uris_outside_rfc3986(settings: Settings, uri: str) -> None:
    async with harness(oauth_settings(settings)) as h:
        answer = await register(h, await discover(h), redirect_uris=[uri])
        assert answer.status_code == 400, answer.text
        assert answer.json()["error"] == "invalid_redirect_uri"


async def test_the_location_is_the_registered_uri(settings: Settings) -> None:
    async with harness(oauth_settings(settings)) as h:
        client_id = await _loopback_client(h)
        for given, expected in ((LOOPBACK, LOOPBACK), ("http://127.0.0.1:4000/cb", None)):
            query = {
                "response_type": "code",
                "client_id": client_id,
                "redirect_uri": given,
                "code_challenge": challenge("v" * 48),
                "code_challenge_method": "S256",
                "login_hint": await h.token("pro"),
            }
            answer = await h.client.get("/oauth/authorize", params=query)
            assert answer.status_code == 302
            location = answer.headers["location"]
            target = location.split("?", 1)[0]
            assert target == (expected or given)
            assert whatwg(location) == {
                "protocol": "http:",
                "hostname": "127.0.0.1",
                "username": "",
            }
            assert "code" in parse_qs(urlsplit(location).query)


# --- the property: no accepted URI leads a browser elsewhere ---------------------------

PIECES = [
    "http",
    "https",
    "HTTP",
    "://",
    ":",
    "/",
    "//",
    "\\",
    "\\\\",
    "%5C",
    "%5c",
    "%2F",
    "%40",
    "@",
    "?",
    "#",
    "\t",
    "\n",
    "\r",
    " ",
    "\x00",
    "\u3002",
    "\uff0e",
    ".",
    "evil.example",
    "127.0.0.1",
    "127.0.0.2",
    "0x7f.1",
    "2130706433",
    "localhost",
    "[::1]",
    "[::ffff:7f00:1]",
    "app.example",
    "APP.example",
    "8765",
    "4000",
    "443",
    "cb",
    "a=b",
    "%",
    "%zz",
]


def _mutations() -> st.SearchStrategy[str]:
    """A registered URI with pieces inserted at chosen places, or pieces alone."""
    inserted = st.tuples(
        st.sampled_from([LOOPBACK, HTTPS]),
        st.lists(
            st.tuples(st.integers(0, 40), st.lists(st.sampled_from(PIECES), max_size=3)),
            min_size=1,
            max_size=3,
        ),
    ).map(_insert)
    joined = st.lists(st.sampled_from(PIECES), min_size=1, max_size=12).map("".join)
    return st.one_of(inserted, joined)


def _insert(spec: tuple[str, list[tuple[int, list[str]]]]) -> str:
    uri, edits = spec
    for position, pieces in edits:
        at = min(position, len(uri))
        uri = uri[:at] + "".join(pieces) + uri[at:]
    return uri


@settings(
    max_examples=3000,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    derandomize=True,
)
@given(candidate=_mutations())
@example(candidate="http://evil.example\\@127.0.0.1:8765/cb")
@example(candidate="http://evil.example%5C@127.0.0.1:8765/cb")
@example(candidate="http://evil.example\\\\@127.0.0.1:8765/cb")
@example(candidate="https://app.example\\@evil.example/cb")
@example(candidate="http://127.0.0.1:8765\\@evil.example/cb")
@example(candidate="http://127.0.0.1:4000/cb")
def test_no_accepted_redirect_uri_leads_a_browser_elsewhere(candidate: str) -> None:
    client = client_of(LOOPBACK, HTTPS)
    if not client.check_redirect_uri(candidate):
        return
    seen = whatwg(candidate)
    assert seen is not None, f"accepted {candidate!r}, which a browser cannot parse"
    expected = [whatwg(uri) for uri in (LOOPBACK, HTTPS)]
    assert seen in expected, f"accepted {candidate!r}, which a browser reads as {seen}"


def test_the_property_sees_the_finding() -> None:
    """The WHATWG reading does tell the finding's URIs apart from the registered one."""
    for uri in BACKSLASH_URIS[:1] + BACKSLASH_URIS[2:3]:
        assert whatwg(uri) == {"protocol": "http:", "hostname": "evil.example", "username": ""}
    forged: Any = whatwg(BACKSLASH_URIS[1])
    assert forged["hostname"] == "127.0.0.1" and forged["username"] == "evil.example%5C"
