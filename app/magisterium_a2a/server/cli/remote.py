"""``magisterium-a2a doctor URL``: ask a running server what it runs with.

Only what any client may ask, and nothing that spends a request or changes
state: the agent card, the health and readiness checks, the page at ``/``, the
OAuth discovery documents, a CORS preflight, whether ``/_test/`` and
``/metrics`` answer, and one ``tasks/get`` of a task that does not exist with
a demo token (``tasks/get`` never counts against a limit; a demo token is
either refused with 401 or gets ``-32001``, which says whether the server is
in development mode). The answers are shown in the rows local ``doctor``
prints from the settings, so the two can be compared line by line.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import urlsplit

import httpx

from magisterium_a2a.server.features import mode_name, on

ENDPOINT = "/api/v1/a2a"
PROBE_ORIGIN = "https://doctor.invalid"


@dataclass
class Remote:
    """What a running server answered; ``problems`` are reasons to exit 1."""

    rows: list[tuple[str, str]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _get(http: httpx.Client, path: str) -> httpx.Response | None:
    try:
        return http.get(path)
    except httpx.HTTPError:
        return None


def ask(base_url: str, timeout: float = 10.0) -> Remote:
    found = Remote()
    base = base_url.rstrip("/")
    try:
        http = httpx.Client(base_url=base, timeout=timeout, follow_redirects=False)
    except (ValueError, httpx.InvalidURL) as exc:
        found.problems.append(f"{base_url!r} is not a URL: {exc}")
        return found
    with http:
        try:
            card_answer = http.get("/.well-known/agent-card.json")
        except httpx.HTTPError as exc:
            found.problems.append(f"{base} does not answer: {exc}")
            return found
        if card_answer.status_code != 200:
            found.problems.append(
                f"{base}/.well-known/agent-card.json answered HTTP {card_answer.status_code}"
            )
            return found
        try:
            card = card_answer.json()
            endpoint = str(card["url"])
        except (ValueError, KeyError, TypeError):
            found.problems.append("the agent card is not an A2A agent card (no url)")
            return found
        _describe(http, base, card, endpoint, found)
    return found


def _describe(
    http: httpx.Client, base: str, card: dict[str, object], endpoint: str, found: Remote
) -> None:
    public = endpoint.removesuffix(ENDPOINT)
    if urlsplit(public)[:2] != urlsplit(base)[:2]:
        found.notes.append(
            f"the card names {endpoint}: clients that read it call there, not {base} "
            "(A2A_PUBLIC_URL)"
        )
    try:
        demo = http.post(
            ENDPOINT,
            json={"jsonrpc": "2.0", "id": 1, "method": "tasks/get", "params": {"id": "doctor"}},
            headers={"Authorization": "Bearer demo-pro"},
        )
        demo_tokens = demo.status_code == 200
    except httpx.HTTPError:
        demo_tokens = False
        found.problems.append(f"POST {base}{ENDPOINT} failed")
    test_api = _status(http, "/_test/clock") in (401, 403)
    ready = _status(http, "/readyz")
    page = _get(http, "/")
    playground = (
        page is not None
        and page.status_code == 200
        and page.headers.get("content-type", "").startswith("text/html")
    )
    skills = card.get("skills")
    names = (
        [str(s.get("id")) for s in skills if isinstance(s, dict)]
        if isinstance(skills, list)
        else []
    )
    found.rows += [
        ("server", f"{card.get('name')} {card.get('version')} at {base}"),
        ("mode", mode_name(demo_tokens, test_api)),
        ("public URL", public),
        ("playground", f"on at {base}/" if playground else "off"),
        ("demo tokens", on(demo_tokens)),
        ("OAuth", _oauth(http, card)),
        ("test API (/_test/)", on(test_api)),
        ("rate limits", "not shown without spending a request: see X-RateLimit-Limit"),
        ("CORS origins", _cors(http)),
        ("/metrics", _metrics(_status(http, "/metrics"))),
        ("skills", f"{len(names)}: {', '.join(names)}"),
        ("health", f"/healthz {_status(http, '/healthz')}, /readyz {ready}"),
    ]
    if ready != 200:
        found.problems.append("/readyz does not answer 200: the task store is unavailable")


def _status(http: httpx.Client, path: str) -> int | None:
    answer = _get(http, path)
    return None if answer is None else answer.status_code


def _oauth(http: httpx.Client, card: dict[str, object]) -> str:
    schemes = card.get("securitySchemes")
    if not isinstance(schemes, dict) or "oauth2" not in schemes:
        return "off"
    metadata = _get(http, "/.well-known/oauth-authorization-server")
    if metadata is not None and metadata.status_code == 200:
        return "built-in server"
    scheme = schemes["oauth2"]
    url = scheme.get("oauth2MetadataUrl") if isinstance(scheme, dict) else None
    return f"delegated to {url}" if url else "delegated"


def _cors(http: httpx.Client) -> str:
    try:
        answer = http.options(
            ENDPOINT,
            headers={"Origin": PROBE_ORIGIN, "Access-Control-Request-Method": "POST"},
        )
    except httpx.HTTPError:
        return "unknown (the preflight failed)"
    allowed = answer.headers.get("access-control-allow-origin")
    if allowed == "*":
        return "*"
    return "a list (another origin than ours was not allowed)" if allowed is None else allowed


def _metrics(status: int | None) -> str:
    if status == 200:
        return "open"
    if status == 401:
        return "behind a bearer token"
    return f"not served here (HTTP {status})"
