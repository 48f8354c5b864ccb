"""magisterium-a2a doctor: every section, and a failing check exits 1."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from magisterium_a2a.server.cli import cli
from magisterium_a2a.server.config import Settings
from magisterium_a2a.testing.pytest_plugin import running_server

runner = CliRunner()


def doctor(settings: Settings, **env: str) -> tuple[int, str]:
    result = runner.invoke(
        cli, ["doctor"], env={"A2A_DATA_DIR": str(settings.data_dir), "COLUMNS": "200", **env}
    )
    return result.exit_code, " ".join(result.output.split())


def test_a_healthy_embedded_setup(settings: Settings) -> None:
    code, text = doctor(settings, A2A_DEV_MODE="1")
    assert code == 0, text
    assert "task store: embedded" in text
    assert "catholic_qa (expensive), liturgical_readings (default)" in text
    # The default: the in-process model, with the catalogue's shipped vectors.
    assert "search mode: HYBRID: BM25 fused with the in-process model all-MiniLM-L6-v2-int8" in text
    assert "314 of 314 passages have a vector" in text
    assert "embedding model: all-MiniLM-L6-v2-int8 (in-process) answered 384-dimensional" in text
    assert "identity: opaque tokens" in text
    assert "the built-in OAuth server is on" in text
    assert "development mode: the demo tokens are accepted" in text
    assert "All checks passed." in text


def test_an_unreachable_redis_is_reported_without_its_password(settings: Settings) -> None:
    code, text = doctor(
        settings, A2A_REDIS_URL="redis://:s3cret@127.0.0.1:1/0", A2A_REDIS_TIMEOUT_SECONDS="0.3"
    )
    assert code == 1
    assert "redis://:***@127.0.0.1:1/0 does not answer" in text
    assert "s3cret" not in text


def test_a_broken_skill_and_a_missing_default_are_problems(settings: Settings) -> None:
    code, text = doctor(settings, A2A_EXTRA_SKILLS="no_such_module:create")
    assert code == 1
    assert "cannot import 'no_such_module:create'" in text
    code, text = doctor(settings, A2A_DISABLED_SKILLS="catholic_qa")
    assert code == 1
    assert "the default skill 'catholic_qa' is not registered" in text


def test_the_identity_provider_keys_are_read(settings: Settings, tmp_path: Path) -> None:
    from cryptography.hazmat.primitives.asymmetric import ed25519
    from jwt.algorithms import OKPAlgorithm

    jwk = json.loads(OKPAlgorithm.to_jwk(ed25519.Ed25519PrivateKey.generate().public_key()))
    jwks = tmp_path / "jwks.json"
    jwks.write_text(json.dumps({"keys": [{**jwk, "kid": "k1"}]}))
    oidc = {"A2A_JWT_ISSUER": "https://idp.example/", "A2A_JWT_AUDIENCE": "a2a"}
    code, text = doctor(settings, **oidc, A2A_JWT_JWKS_FILE=str(jwks))
    assert code == 0, text
    assert "JWTs of https://idp.example/" in text
    assert "the JWKS holds 1 key(s)" in text
    code, text = doctor(settings, **oidc, A2A_JWT_JWKS_FILE=str(tmp_path / "missing.json"))
    assert code == 1
    assert "cannot be read" in text


def _rows(text: str, labels: tuple[str, ...]) -> dict[str, str]:
    """The summary rows doctor printed (one per line), by label."""
    rows = {}
    for line in text.splitlines():
        label, sep, value = line.partition(": ")
        if sep and label in labels:
            rows[label] = value.strip()
    return rows


SUMMARY = (
    "mode",
    "public URL",
    "playground",
    "demo tokens",
    "OAuth",
    "test API (/_test/)",
    "CORS origins",
    "/metrics",
)


def test_the_mode_and_features_come_from_the_settings(settings: Settings) -> None:
    env = {"A2A_DATA_DIR": str(settings.data_dir), "COLUMNS": "300"}
    production = runner.invoke(cli, ["doctor"], env=env).output
    assert _rows(production, SUMMARY) == {
        "mode": "production",
        "public URL": "http://127.0.0.1:8000",
        "playground": "off",
        "demo tokens": "off",
        "OAuth": "off",
        "test API (/_test/)": "off",
        "CORS origins": "*",
        "/metrics": "open",
    }
    assert "'make doctor' or 'doctor --dev' checks that" in " ".join(production.split())
    # make run's development mode, by the flag serve has too.
    development = runner.invoke(cli, ["doctor", "--dev"], env=env).output
    assert _rows(development, ("mode", "playground", "demo tokens", "OAuth")) == {
        "mode": "development",
        "playground": "on at http://127.0.0.1:8000/",
        "demo tokens": "on",
        "OAuth": "built-in server",
    }
    assert "rate limits: 15/min default, 2/min expensive" in development


@pytest.mark.subprocess
def test_given_a_url_it_asks_the_running_server(settings: Settings, tmp_path: Path) -> None:
    """The same settings, read by doctor and by a server: the two reports agree."""
    env = {
        "A2A_DEV_MODE": "1",
        "A2A_TEST_MODE": "1",
        "A2A_ADMIN_TOKEN": "a" * 24,
        "A2A_METRICS_TOKEN": "m" * 24,
        "A2A_CORS_ORIGINS": "https://app.example",
        "A2A_DATA_DIR": str(settings.data_dir),
    }
    with running_server(env, tmp_path) as server:
        remote = runner.invoke(cli, ["doctor", server.base_url], env={"COLUMNS": "300"})
        assert remote.exit_code == 0, remote.output
        local = runner.invoke(
            cli,
            ["doctor"],
            env={**env, "A2A_PUBLIC_URL": server.base_url, "COLUMNS": "300"},
        )
    asked = _rows(remote.output, SUMMARY)
    assert asked == {
        "mode": "development and test",
        "public URL": server.base_url,
        "playground": f"on at {server.base_url}/",
        "demo tokens": "on",
        "OAuth": "built-in server",
        "test API (/_test/)": "on",
        "CORS origins": "a list (another origin than ours was not allowed)",
        "/metrics": "behind a bearer token",
    }
    read = _rows(local.output, SUMMARY)
    assert {k: v for k, v in read.items() if k != "CORS origins"} == {
        k: v for k, v in asked.items() if k != "CORS origins"
    }
    assert read["CORS origins"] == "https://app.example"


def test_a_url_where_nothing_answers_is_a_problem() -> None:
    result = runner.invoke(cli, ["doctor", "http://127.0.0.1:1"], env={"COLUMNS": "300"})
    assert result.exit_code == 1
    assert "http://127.0.0.1:1 does not answer" in " ".join(result.output.split())
