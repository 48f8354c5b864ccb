"""OIDC/JWT bearer tokens: keys made here, the JWKS served by a local HTTP
server, every way a token can be wrong."""

from __future__ import annotations

import json
import threading
from collections.abc import AsyncIterator, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa
from jwt.algorithms import ECAlgorithm, OKPAlgorithm, RSAAlgorithm

from magisterium_a2a.server.clock import ManualClock
from magisterium_a2a.server.config import Settings
from tests.support import Harness, harness

ISSUER = "https://idp.example.org/"
AUDIENCE = "magisterium-a2a"
NOW = 1_800_000_000.0


class Keys:
    def __init__(self) -> None:
        self.private: dict[str, tuple[str, Any]] = {
            "rsa-1": ("RS256", rsa.generate_private_key(public_exponent=65537, key_size=2048)),
            "ec-1": ("ES256", ec.generate_private_key(ec.SECP256R1())),
            "ed-1": ("EdDSA", ed25519.Ed25519PrivateKey.generate()),
        }
        self.published = set(self.private)

    def jwks(self) -> dict[str, Any]:
        keys = []
        for kid in sorted(self.published):
            alg, key = self.private[kid]
            algorithm = {"RS256": RSAAlgorithm, "ES256": ECAlgorithm, "EdDSA": OKPAlgorithm}[alg]
            jwk = json.loads(algorithm.to_jwk(key.public_key()))
            keys.append({**jwk, "kid": kid, "use": "sig", "alg": alg})
        return {"keys": keys}

    def token(self, kid: str = "rsa-1", *, alg: str | None = None, **claims: Any) -> str:
        body = {"iss": ISSUER, "aud": AUDIENCE, "sub": "oidc-user", "exp": NOW + 300, **claims}
        body = {k: v for k, v in body.items() if v is not None}
        algorithm, key = self.private[kid]
        return jwt.encode(body, key, algorithm=alg or algorithm, headers={"kid": kid})


class JWKSServer:
    def __init__(self, keys: Keys) -> None:
        self.hits = 0
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                owner.hits += 1
                body = json.dumps(keys.jwks()).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/jwks.json"
        threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True).start()


@pytest.fixture(scope="module")
def keys() -> Keys:
    return Keys()


@pytest.fixture
def jwks(keys: Keys) -> Iterator[JWKSServer]:
    server = JWKSServer(keys)
    yield server
    server.httpd.shutdown()


def oidc(settings: Settings, url: str, **extra: Any) -> Settings:
    return settings.model_copy(
        update={
            "jwt_issuer": ISSUER,
            "jwt_audience": AUDIENCE,
            "jwt_jwks_url": url,
            "jwt_plan_values": ["premium=pro", "team=organization"],
            **extra,
        }
    )


@pytest.fixture
async def o(settings: Settings, jwks: JWKSServer) -> AsyncIterator[Harness]:
    async with harness(oidc(settings, jwks.url), clock=ManualClock(NOW)) as running:
        yield running


@pytest.mark.parametrize("kid", ["rsa-1", "ec-1", "ed-1"])
async def test_valid_tokens_of_each_algorithm(o: Harness, keys: Keys, kid: str) -> None:
    token = keys.token(kid, plan="pro")
    task = (await o.send(token)).json()["result"]
    assert task["status"]["state"] == "completed"
    again = await o.call("tasks/get", {"id": task["id"]}, keys.token(kid, plan="pro", jti="other"))
    assert again.json()["result"]["id"] == task["id"]


@pytest.mark.parametrize(
    ("claims", "reason"),
    [
        ({"exp": NOW - 31}, "token expired"),
        ({"nbf": NOW + 31}, "token not yet valid"),
        ({"iss": "https://evil.example/"}, "wrong issuer"),
        ({"aud": "someone-else"}, "wrong audience"),
        ({"exp": None}, "missing claim 'exp'"),
        ({"sub": None}, "missing claim 'sub'"),
    ],
)
async def test_invalid_claims_are_401(
    o: Harness, keys: Keys, claims: dict[str, Any], reason: str
) -> None:
    response = await o.send(keys.token(plan="pro", **claims))
    assert response.status_code == 401
    assert response.headers["www-authenticate"].startswith("Bearer resource_metadata=")
    error = response.json()["error"]
    assert error["code"] == -32004
    assert error["data"]["reason"] == reason


async def test_leeway_accepts_small_skew(o: Harness, keys: Keys) -> None:
    assert (await o.send(keys.token(plan="pro", exp=NOW - 20, nbf=NOW + 20))).status_code == 200


@pytest.fixture
async def clocked(
    settings: Settings, jwks: JWKSServer
) -> AsyncIterator[tuple[Harness, ManualClock]]:
    clock = ManualClock(NOW)
    async with harness(oidc(settings, jwks.url), clock=clock) as running:
        yield running, clock


async def test_unknown_kid_refetches_then_rejects(
    clocked: tuple[Harness, ManualClock], keys: Keys, jwks: JWKSServer
) -> None:
    o, clock = clocked
    keys.private["never-published"] = (
        "RS256",
        rsa.generate_private_key(public_exponent=65537, key_size=2048),
    )
    try:
        assert (await o.send(keys.token(plan="pro"))).status_code == 200
        assert jwks.hits == 1
        unknown = keys.token("never-published", plan="pro", exp=NOW + 3000)
        assert (await o.send(unknown)).status_code == 401
        assert jwks.hits == 1  # refetches are spaced: the keys were fetched just now
        clock.advance(11)
        response = await o.send(unknown)
        assert response.status_code == 401
        assert response.json()["error"]["data"]["reason"] == "unknown signing key"
        assert jwks.hits == 2
    finally:
        keys.private.pop("never-published")


async def test_a_rotated_key_is_fetched(
    clocked: tuple[Harness, ManualClock], keys: Keys, jwks: JWKSServer
) -> None:
    o, clock = clocked
    keys.private["rot-1"] = ("ES256", ec.generate_private_key(ec.SECP256R1()))
    keys.published.discard("rot-1")
    try:
        assert (await o.send(keys.token(plan="pro"))).status_code == 200
        keys.published.add("rot-1")
        clock.advance(11)
        assert (await o.send(keys.token("rot-1", plan="pro", exp=NOW + 3000))).status_code == 200
        assert jwks.hits == 2
    finally:
        keys.published.discard("rot-1")
        keys.private.pop("rot-1")


async def test_bad_signature_is_401(o: Harness, keys: Keys) -> None:
    header, payload, _ = keys.token(plan="pro").split(".")
    _, _, other_signature = keys.token(plan="pro", sub="someone").split(".")
    response = await o.send(f"{header}.{payload}.{other_signature}")
    assert response.status_code == 401
    assert response.json()["error"]["data"]["reason"] == "bad signature"


async def test_alg_none_and_hmac_are_refused(o: Harness, keys: Keys) -> None:
    unsigned = jwt.encode(
        {"iss": ISSUER, "aud": AUDIENCE, "sub": "x", "exp": NOW + 60, "plan": "pro"},
        None,
        algorithm="none",
        headers={"kid": "rsa-1"},
    )
    response = await o.send(unsigned)
    assert response.status_code == 401
    assert "'none' is not accepted" in response.json()["error"]["data"]["reason"]
    public_pem = next(k for k in keys.jwks()["keys"] if k["kid"] == "rsa-1")["n"]
    forged = jwt.encode(
        {"iss": ISSUER, "aud": AUDIENCE, "sub": "x", "exp": NOW + 60, "plan": "pro"},
        public_pem,
        algorithm="HS256",
        headers={"kid": "rsa-1"},
    )
    assert (await o.send(forged)).status_code == 401


@pytest.mark.parametrize(
    ("plan_claim", "status"),
    [
        ("pro", 200),
        ("enterprise", 200),
        ("premium", 200),
        ("team", 200),
        (["viewer", "team"], 200),
        ("free", 403),
        ("gold", 403),
        (None, 403),
    ],
)
async def test_plan_claim_mapping(o: Harness, keys: Keys, plan_claim: Any, status: int) -> None:
    response = await o.send(keys.token(plan=plan_claim))
    assert response.status_code == status
    if status == 403:
        assert response.json()["error"]["code"] == -32005


async def test_nested_plan_claim(settings: Settings, keys: Keys, jwks: JWKSServer) -> None:
    configured = oidc(settings, jwks.url, jwt_plan_claim="app_metadata.tier")
    async with harness(configured, clock=ManualClock(NOW)) as o:
        nested = keys.token(app_metadata={"tier": "organization"})
        assert (await o.send(nested)).status_code == 200
        assert (await o.send(keys.token(plan="pro"))).status_code == 403


async def test_limits_are_per_subject(o: Harness, keys: Keys) -> None:
    for i in range(15):
        assert (await o.send(keys.token(plan="pro", jti=str(i)))).status_code == 200
    assert (await o.send(keys.token(plan="pro", jti="x"))).status_code == 429
    assert (await o.send(keys.token(plan="pro", sub="another"))).status_code == 200


async def test_opaque_tokens_still_work(o: Harness) -> None:
    assert (await o.send(await o.token())).status_code == 200
    assert (await o.send("not-a-known-token")).status_code == 401


async def test_jwks_from_a_file(settings: Settings, keys: Keys, tmp_path: Path) -> None:
    path = tmp_path / "jwks.json"
    path.write_text(json.dumps(keys.jwks()))
    configured = oidc(settings, "", jwt_jwks_file=path)
    async with harness(configured, clock=ManualClock(NOW)) as o:
        assert (await o.send(keys.token("ed-1", plan="pro"))).status_code == 200


async def test_unreachable_provider_is_internal_error(settings: Settings, keys: Keys) -> None:
    configured = oidc(settings, "http://127.0.0.1:9/jwks.json")
    async with harness(configured, clock=ManualClock(NOW)) as o:
        response = await o.send(keys.token(plan="pro"))
    assert response.status_code == 200
    assert response.json()["error"]["code"] == -32603


def test_incomplete_configuration_is_refused() -> None:
    with pytest.raises(ValueError, match="A2A_JWT_AUDIENCE"):
        Settings(_env_file=None, jwt_issuer=ISSUER)  # type: ignore[call-arg]
    with pytest.raises(ValueError, match="A2A_JWT_PLAN_VALUES"):
        Settings(  # type: ignore[call-arg]
            _env_file=None, jwt_plan_values=["premium=platinum"]
        )
