"""The container files: the Dockerfile passes hadolint, the compose file is a
valid Compose document with the promised shape, .env.example holds only real
settings, and the image's install steps work in a fresh virtual environment."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
import yaml
from compose_spec import PyCompose

from magisterium_a2a.server.config import Settings
from magisterium_a2a.testing.pytest_plugin import running_server
from tests.support import ROOT

DOCKERFILE = (ROOT / "Dockerfile").read_text()


def test_dockerfile_passes_hadolint() -> None:
    hadolint = shutil.which("hadolint") or str(Path(sys.executable).parent / "hadolint")
    result = subprocess.run([hadolint, "Dockerfile"], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_dockerfile_shape() -> None:
    stages = re.findall(r"^FROM (\S+)", DOCKERFILE, flags=re.M)
    assert len(stages) == 2 and all("slim" in image for image in stages)
    final = DOCKERFILE.split("\nFROM ")[-1]
    assert re.search(r"^USER 10001", final, flags=re.M)
    assert "HEALTHCHECK" in final and "/healthz" in final
    assert re.search(r'^CMD \["magisterium-a2a", "serve"', final, flags=re.M)
    assert "gcc" not in DOCKERFILE and "build-essential" not in DOCKERFILE


def test_compose_file_is_valid_and_shaped() -> None:
    text = (ROOT / "docker-compose.yml").read_text()
    PyCompose.from_yaml(text)
    compose = yaml.safe_load(text)
    services = compose["services"]
    assert services["a2a"]["deploy"]["replicas"] == 2
    assert services["a2a"]["environment"]["A2A_REDIS_URL"].startswith("redis://redis:")
    assert "content:/data" in services["a2a"]["volumes"]
    assert "--appendonly" in services["redis"]["command"]
    assert "redis-data:/data" in services["redis"]["volumes"]
    assert services["a2a"]["depends_on"]["redis"]["condition"] == "service_healthy"
    conf = (ROOT / "deploy" / "nginx.conf").read_text()
    assert "server a2a:8000" in conf
    assert re.search(r"location = /metrics \{\s*return 404;", conf)
    assert "client_header_timeout" in conf and "client_body_timeout" in conf
    assert any("nginx.conf" in volume for volume in services["proxy"]["volumes"])


def test_env_example_names_only_real_settings() -> None:
    names = re.findall(r"^(A2A_[A-Z_]+)=", (ROOT / ".env.example").read_text(), flags=re.M)
    known = {f"A2A_{field.upper()}" for field in Settings.model_fields}
    assert names and set(names) <= known


@pytest.mark.subprocess
def test_image_install_steps_in_a_fresh_venv(tmp_path: Path) -> None:
    """What the build stage does, from a copy of exactly what it copies."""
    assert "pip install --no-cache-dir ." in DOCKERFILE
    context = tmp_path / "context"
    context.mkdir()
    for source in re.findall(r"^COPY (?!--from)(.+) \S+$", DOCKERFILE, flags=re.M):
        for name in source.split():
            path = ROOT / name
            if path.is_dir():
                shutil.copytree(path, context / name, ignore=shutil.ignore_patterns("__pycache__"))
            else:
                shutil.copy(path, context / name)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run(
        [str(venv / "bin" / "pip"), "install", "--quiet", "--no-cache-dir", "."],
        cwd=context,
        check=True,
        timeout=900,
    )
    env = {"A2A_DATA_DIR": str(tmp_path / "data"), "PATH": f"{venv / 'bin'}:/usr/bin:/bin"}
    python = str(venv / "bin" / "python")
    with running_server(env, tmp_path, python=python) as server:
        card = httpx.get(f"{server.base_url}/.well-known/agent.json").json()
        assert httpx.get(f"{server.base_url}/healthz").json() == {"status": "ok"}
    skills = {skill["id"] for skill in card["skills"]}
    assert {"liturgical_readings", "saints_of_the_day"} <= skills
