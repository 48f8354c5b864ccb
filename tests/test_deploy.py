"""The container files: the Dockerfile passes hadolint, the compose file is a
valid Compose document with the promised shape, .env.example holds only real
settings, and the image's install steps work in a fresh virtual environment."""

from __future__ import annotations

import ipaddress
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import httpx
import pytest
import yaml
from compose_spec import PyCompose
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from magisterium_a2a.server.config import Settings
from magisterium_a2a.testing.pytest_plugin import running_server
from tests.support import FAMILIES, ROOT

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
    # The replicas believe X-Forwarded-For from nginx's own address only.
    proxy_address = services["proxy"]["networks"]["default"]["ipv4_address"]
    assert services["a2a"]["environment"]["A2A_FORWARDED_ALLOW_IPS"] == proxy_address
    subnet = compose["networks"]["default"]["ipam"]["config"][0]["subnet"]
    assert ipaddress.ip_address(proxy_address) in ipaddress.ip_network(subnet)
    assert "X-Forwarded-For $proxy_add_x_forwarded_for" in conf


def test_env_example_names_only_real_settings() -> None:
    names = re.findall(r"^(A2A_[A-Z_]+)=", (ROOT / ".env.example").read_text(), flags=re.M)
    fields = {*Settings.model_fields}.union(*(kind.model_fields for kind in FAMILIES))
    known = {f"A2A_{field.upper()}" for field in fields}
    assert names and set(names) <= known


def _pins() -> dict[str, Version]:
    pins: dict[str, Version] = {}
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        name, sep, version = line.partition("==")
        if sep and not line.startswith((" ", "#")):
            pins[canonicalize_name(name)] = Version(version.strip())
    return pins


def test_the_lock_pins_every_dependency_within_its_range() -> None:
    """constraints.txt is what make run/make test install; `make lock` renews it."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    wanted = [*project["dependencies"], *extras["dev"], *extras["semantic"]]
    pins = _pins()
    for spec in map(Requirement, wanted):
        pin = pins.get(canonicalize_name(spec.name))
        assert pin is not None, f"{spec.name} is not in constraints.txt: run make lock"
        assert spec.specifier.contains(pin, prereleases=True), f"{spec.name}=={pin} vs {spec}"


@pytest.fixture(scope="module")
def image_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """What the image's build stage does, from a copy of exactly what it copies:
    a regular (not editable) install into a fresh virtual environment."""
    assert 'pip install --no-cache-dir -c constraints.txt ".[semantic]"' in DOCKERFILE
    tmp_path = tmp_path_factory.mktemp("image")
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
        [str(venv / "bin" / "pip"), "install", "--quiet", "-c", "constraints.txt", ".[semantic]"],
        cwd=context,
        check=True,
        timeout=900,
    )
    return venv


@pytest.mark.subprocess
def test_image_install_steps_in_a_fresh_venv(image_venv: Path, tmp_path: Path) -> None:
    env = {"A2A_DATA_DIR": str(tmp_path / "data"), "PATH": f"{image_venv / 'bin'}:/usr/bin:/bin"}
    python = str(image_venv / "bin" / "python")
    with running_server(env, tmp_path, python=python) as server:
        card = httpx.get(f"{server.base_url}/.well-known/agent.json").json()
        assert httpx.get(f"{server.base_url}/healthz").json() == {"status": "ok"}
    skills = {skill["id"] for skill in card["skills"]}
    assert {"liturgical_readings", "saints_of_the_day"} <= skills
    # The image searches by meaning: the extra brings the model, nothing is downloaded later.
    doctor = subprocess.run(
        [str(image_venv / "bin" / "magisterium-a2a"), "doctor"],
        env={**env, "COLUMNS": "200"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert "search mode: HYBRID: BM25 fused with the in-process model" in " ".join(
        doctor.stdout.split()
    ), doctor.stdout
    site = next((image_venv / "lib").glob("python3*/site-packages"))
    assert not (site / "app").exists() and not (site / "skills").exists()
    assert (site / "magisterium_a2a" / "server").is_dir()
    # The licence and the notices travel with the installed package.
    [dist] = site.glob("magisterium_a2a-*.dist-info")
    assert {"LICENSE", "NOTICE"} <= {p.name for p in (dist / "licenses").iterdir()}


CLIENT_FILES = {
    "app/__init__.py": 'NAME = "the client\'s own app"\n',
    "skills/__init__.py": 'NAME = "the client\'s own skills"\n',
    "conftest.py": 'import app\nimport skills\n\nassert app.NAME.startswith("the client")\n',
    "test_client.py": """
import httpx

import app
import skills


def test_own_packages_are_importable():
    assert app.NAME == "the client's own app"
    assert skills.NAME == "the client's own skills"


def test_against_the_server(magisterium):
    body = {"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {"message": {
        "kind": "message", "role": "user", "messageId": "m-1",
        "parts": [{"kind": "text", "text": "2026-12-25"}],
        "metadata": {"skillId": "liturgical_readings"}}}}
    headers = {"Authorization": f"Bearer {magisterium.tokens['pro']}"}
    answer = httpx.post(magisterium.endpoint_url, json=body, headers=headers, timeout=30).json()
    assert answer["result"]["status"]["state"] == "completed"
    magisterium.force_error(magisterium.tokens["pro"], code=-32003, retry_after=7)
    limited = httpx.post(magisterium.endpoint_url, json=body, headers=headers, timeout=30)
    assert limited.status_code == 429
""",
}


@pytest.mark.subprocess
def test_a_client_project_with_its_own_app_package_uses_our_fixtures(
    image_venv: Path, tmp_path: Path
) -> None:
    """A FastAPI-style project (its own top-level app and skills) that pip-installed
    this server, not editable, and tests against it with the pytest plugin."""
    project = tmp_path / "client"
    for name, text in CLIENT_FILES.items():
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text(text)
    pip = str(image_venv / "bin" / "pip")
    subprocess.run(
        [pip, "install", "--quiet", "-c", str(ROOT / "constraints.txt"), "pytest"],
        check=True,
        timeout=600,
    )
    env = {"PATH": f"{image_venv / 'bin'}:/usr/bin:/bin", "HOME": str(tmp_path)}
    run = subprocess.run(
        [str(image_venv / "bin" / "python"), "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert "2 passed" in run.stdout
