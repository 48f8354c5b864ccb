"""The container files: the Dockerfile passes hadolint, the compose file is a
valid Compose document with the promised shape (the content volume initialised
once, before the replicas), .env.example holds only real settings and says what
compose publishes, deploy/nginx.conf keeps a client's X-Request-ID (checked with
a real nginx in front of a real server), and the image's install steps work in
a fresh virtual environment."""

from __future__ import annotations

import contextlib
import ipaddress
import re
import shutil
import subprocess
import sys
import textwrap
import time
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
import yaml
from compose_spec import PyCompose
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version
from typer.testing import CliRunner

from magisterium_a2a.server.cli import cli
from magisterium_a2a.server.config import Settings
from magisterium_a2a.skills.knowledge.library import knowledge_dir, wanted_catalogue_hash
from magisterium_a2a.skills.knowledge.model import Origin
from magisterium_a2a.skills.knowledge.semantic import choose_embedder
from magisterium_a2a.skills.knowledge.settings import KnowledgeSettings
from magisterium_a2a.skills.knowledge.store import Store
from magisterium_a2a.testing.pytest_plugin import ServerProcess, free_port, running_server
from tests.conformance.toolchains import require
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
    # --no-compile: pip would byte-compile every module of every package (a third of the
    # install's CPU); the processes below compile what they import, as they import it.
    pip = [str(venv / "bin" / "pip"), "install", "--quiet", "--no-compile"]
    subprocess.run(
        [*pip, "-c", "constraints.txt", ".[semantic]"],
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
    # The playground's files are package data: a regular install carries every one.
    static = site / "magisterium_a2a" / "server" / "playground" / "static"
    shipped = ROOT / "app" / "magisterium_a2a" / "server" / "playground" / "static"
    assert sorted(p.name for p in static.iterdir()) == sorted(p.name for p in shipped.iterdir())


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
        [pip, "install", "--quiet", "--no-compile", "-c", str(ROOT / "constraints.txt"), "pytest"],
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


def _compose() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    return loaded


def test_the_content_volume_is_initialised_once_before_the_replicas() -> None:
    services = _compose()["services"]
    init, a2a = services["init"], services["a2a"]
    assert init["command"] == ["magisterium-a2a", "init"]
    assert init["image"] == a2a["image"] and init["build"] == a2a["build"]
    assert "content:/data" in init["volumes"] and init["environment"]["A2A_DATA_DIR"] == "/data"
    assert "deploy" not in init and init["restart"] == "no"  # one container, once
    assert a2a["depends_on"]["init"]["condition"] == "service_completed_successfully"


def test_init_leaves_nothing_for_a_server_to_write(tmp_path: Path) -> None:
    """What the init container runs: afterwards a starting server finds the
    catalogue, the index and the catalogue's vectors current."""
    settings = KnowledgeSettings(_env_file=None, data_dir=tmp_path / "data")  # type: ignore[call-arg]
    result = CliRunner().invoke(cli, ["init"], env={"A2A_DATA_DIR": str(settings.data_dir)})
    assert result.exit_code == 0, result.output
    assert "Data directory ready" in result.output and "search mode HYBRID" in result.output
    embedder = choose_embedder(settings).embedder
    assert embedder is not None
    store = Store(knowledge_dir(settings), readonly=True)
    try:
        assert store.meta("catalogue_hash") == wanted_catalogue_hash(settings)
        assert store.index_in_sync()
        assert store.passages_without_vector(embedder.model, Origin.CATALOGUE) == []
        assert store.stats().documents == 314
    finally:
        store.close()
    again = CliRunner().invoke(cli, ["init"], env={"A2A_DATA_DIR": str(settings.data_dir)})
    assert again.exit_code == 0, again.output


def test_the_env_example_matches_what_compose_publishes() -> None:
    """.env.example's public URL is the proxy's published port, in plain http."""
    published = [port.split(":") for port in _compose()["services"]["proxy"]["ports"]]
    assert published == [["8000", "80"]]
    env = dict(re.findall(r"^(A2A_[A-Z_]+)=(.*)$", (ROOT / ".env.example").read_text(), flags=re.M))
    public = urlsplit(env["A2A_PUBLIC_URL"])
    assert (public.scheme, public.port) == ("http", int(published[0][0]))


NGINX = shutil.which("nginx") or "/usr/sbin/nginx"


def _nginx_conf(folder: Path, http: str) -> None:
    """An nginx.conf that keeps everything of nginx's own in ``folder``."""
    temps = "".join(
        f"  {kind}_temp_path {folder}/{kind};\n"
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    (folder / "nginx.conf").write_text(
        f"daemon off;\npid {folder}/nginx.pid;\nerror_log {folder}/error.log;\nevents {{}}\n"
        f"http {{\n  access_log off;\n{temps}{http}\n}}\n"
    )


@pytest.fixture
def behind_nginx(tmp_path: Path) -> Iterator[tuple[str, ServerProcess]]:
    """deploy/nginx.conf in front of a real server, with only the upstream's
    address and the listening port changed."""
    require(Path(NGINX).exists(), "nginx is not installed (apt-get install nginx-light)")
    with running_server({"A2A_DATA_DIR": str(tmp_path / "data")}, tmp_path) as server:
        port = free_port()
        site = (ROOT / "deploy" / "nginx.conf").read_text()
        assert "server a2a:8000;" in site and "listen 80;" in site
        site = site.replace("server a2a:8000;", f"server 127.0.0.1:{server.port};")
        site = site.replace("listen 80;", f"listen 127.0.0.1:{port};")
        temp = tmp_path / "nginx"
        temp.mkdir()
        (temp / "site.conf").write_text(site)
        _nginx_conf(temp, f"include {temp}/site.conf;")
        checked = subprocess.run(
            [NGINX, "-t", "-p", str(temp), "-c", str(temp / "nginx.conf"), "-e", str(temp / "e")],
            capture_output=True,
            text=True,
            check=False,
        )
        assert checked.returncode == 0, checked.stderr
        proxy = subprocess.Popen(
            [NGINX, "-p", str(temp), "-c", str(temp / "nginx.conf"), "-e", str(temp / "e")],
            stderr=subprocess.DEVNULL,
        )
        try:
            base = f"http://127.0.0.1:{port}"
            for _ in range(200):
                with contextlib.suppress(httpx.HTTPError):
                    if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                        break
                proxy.poll()
                assert proxy.returncode is None, (temp / "error.log").read_text()
                time.sleep(0.05)
            yield base, server
        finally:
            proxy.terminate()
            proxy.wait(timeout=15)


@pytest.mark.subprocess
def test_the_proxy_keeps_the_clients_request_id(behind_nginx: tuple[str, ServerProcess]) -> None:
    base, server = behind_nginx
    body = {"jsonrpc": "2.0", "id": 1, "method": "tasks/get", "params": {"id": "x"}}
    mine = httpx.post(f"{base}/api/v1/a2a", json=body, headers={"X-Request-ID": "client-42"})
    assert mine.status_code == 401  # through the proxy to the server, which answered
    assert mine.headers["x-request-id"] == "client-42"
    assert '"request_id": "client-42"' in server.log()  # and logged it under that id
    # Without one, nginx's own id (32 hex digits) is the request's id, end to end.
    theirs = httpx.post(f"{base}/api/v1/a2a", json=body)
    assert re.fullmatch(r"[0-9a-f]{32}", theirs.headers["x-request-id"])
    assert theirs.headers["x-request-id"] != mine.headers["x-request-id"]
    assert httpx.get(f"{base}/metrics").status_code == 404  # never on the public port
    assert httpx.get(f"http://127.0.0.1:{server.port}/metrics").status_code == 200


def _self_signed(folder: Path) -> None:
    import datetime

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "a2a.example.org")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now)
        .not_valid_after(now + datetime.timedelta(days=1))
        .sign(key, hashes.SHA256())
    )
    (folder / "fullchain.pem").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    (folder / "privkey.pem").write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )


def test_the_tls_server_block_of_the_docs_is_valid_nginx(tmp_path: Path) -> None:
    """docs/operations.md's TLS block, added to deploy/nginx.conf as it says."""
    require(Path(NGINX).exists(), "nginx is not installed (apt-get install nginx-light)")
    docs = (ROOT / "docs" / "operations.md").read_text()
    blocks = re.findall(r"```nginx\n(.*?)```", docs, flags=re.S)
    assert len(blocks) == 1
    certs = tmp_path / "certs"
    certs.mkdir()
    _self_signed(certs)
    tls = textwrap.dedent(blocks[0]).replace("/etc/nginx/certs", str(certs))
    tls = tls.replace("listen 443 ssl;", f"listen 127.0.0.1:{free_port()} ssl;")
    site = (ROOT / "deploy" / "nginx.conf").read_text().replace("listen 80;", "listen 127.0.0.1:1;")
    site = site.replace("server a2a:8000;", "server 127.0.0.1:9;")
    _nginx_conf(tmp_path, f"{site}\n{tls}")
    checked = subprocess.run(
        [NGINX, "-t", "-p", str(tmp_path), "-c", str(tmp_path / "nginx.conf")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert checked.returncode == 0, checked.stderr
    assert "test is successful" in checked.stderr
