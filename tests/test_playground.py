"""The playground's files as the server serves them: at ``/`` in development and
test mode (off in production unless ``A2A_PLAYGROUND`` says so), with a strict
Content Security Policy, from the package only; and its words, in every
language, with the same keys and placeholders. The page in a browser:
``tests/conformance/test_playground.py``."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from magisterium_a2a.server.config import Settings
from magisterium_a2a.server.playground.routes import content_security_policy
from tests.support import harness

STATIC = Path(str(resources.files("magisterium_a2a.server.playground").joinpath("static")))
FILES = {path.name: path.read_bytes() for path in sorted(STATIC.iterdir())}
PUBLIC = "http://127.0.0.1:8000"


async def _get(settings: Settings, path: str, **headers: str) -> Any:
    async with harness(settings) as h:
        return await h.client.get(path, headers=headers)


@pytest.mark.parametrize(
    ("mode", "shown"),
    [
        ({"dev_mode": True}, True),
        ({"test_mode": True, "admin_token": "x" * 16}, True),
        ({}, False),
        ({"playground": True}, True),
        ({"dev_mode": True, "playground": False}, False),
    ],
)
async def test_served_at_the_root_where_the_mode_says(
    settings: Settings, mode: dict[str, Any], shown: bool
) -> None:
    response = await _get(settings.model_copy(update=mode), "/")
    if not shown:
        assert response.status_code == 404
        return
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/html; charset=utf-8"
    assert response.content == FILES["index.html"]


async def test_the_page_headers(settings: Settings) -> None:
    dev = settings.model_copy(update={"dev_mode": True, "public_url": "https://a2a.example.org/"})
    response = await _get(dev, "/")
    csp = response.headers["content-security-policy"]
    assert csp == (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
        "connect-src 'self' https://a2a.example.org; form-action 'none'; "
        "frame-ancestors 'none'; base-uri 'none'"
    )
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["x-frame-options"] == "DENY"
    assert response.headers["referrer-policy"] == "no-referrer"
    assert response.headers["cache-control"] == "no-cache"
    again = await _get(dev, "/", **{"If-None-Match": response.headers["etag"]})
    assert again.status_code == 304 and again.content == b""


def test_no_inline_script_or_style_and_nothing_from_elsewhere() -> None:
    """What the CSP forbids is not in the files: no inline code, no other origin."""
    page = (STATIC / "index.html").read_text()
    assert re.findall(r"<script(?![^>]*\bsrc=)", page) == []
    assert "<style" not in page and " style=" not in page and " on" + "click=" not in page
    for name in sorted(p.name for p in STATIC.iterdir()):
        text = (STATIC / name).read_text()
        assert not re.search(r"""(src|href)=["']?(https?:)?//""", text), name
        assert not re.search(r"""import .* from ['"]https?:""", text), name


async def test_every_file_is_served_with_its_type(settings: Settings) -> None:
    dev = settings.model_copy(update={"dev_mode": True})
    kinds = {".js": "text/javascript", ".css": "text/css", ".svg": "image/svg+xml"}
    async with harness(dev) as h:
        for name, body in FILES.items():
            if name == "index.html":
                continue
            response = await h.client.get(f"/playground/{name}")
            assert response.status_code == 200, name
            assert response.headers["content-type"].startswith(kinds[Path(name).suffix])
            assert response.headers["x-content-type-options"] == "nosniff"
            assert response.content == body
        # Only the folder's own files, by name; the page itself only at /.
        for wrong in ("index.html", "..%2Froutes.py", "nothing.js", "%2e%2e%2f__init__.py"):
            assert (await h.client.get(f"/playground/{wrong}")).status_code == 404, wrong


def test_the_csp_names_only_an_http_origin() -> None:
    assert "connect-src 'self';" in content_security_policy("not a url")
    assert "connect-src 'self' http://h:9;" in content_security_policy("http://h:9/some/path")


@pytest.fixture(scope="module")
def messages() -> dict[str, Any]:
    """The page's words, as the browser's module loader reads them."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("Node.js (node) is not installed")
    script = (
        f"import({json.dumps((STATIC / 'i18n.js').as_uri())}).then((m) => console.log("
        "JSON.stringify({languages: m.LANGUAGES, messages: m.MESSAGES, matched: "
        "['en-US', 'es-MX', 'pt-BR', 'zh-TW', 'zh-HK', 'zh-Hant-TW', 'zh-CN', 'zh', 'fil-PH', "
        "'tl', 'ko-KR', 'nl-NL'].map(m.match), picked: [m.pick(null, ['nl', 'fr-CA', 'en']), "
        "m.pick('ja', ['fr']), m.pick('xx', []), m.pick(null, undefined)]})))"
    )
    done = subprocess.run(
        [node, "--input-type=module", "-e", script],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    loaded: dict[str, Any] = json.loads(done.stdout)
    return loaded


def test_every_language_has_every_message(messages: dict[str, Any]) -> None:
    table = messages["messages"]
    assert list(messages["languages"]) == list(table)
    assert set(table) == {
        "en", "es", "pt", "it", "fr", "de", "pl", "ja", "ko", "zh-Hans", "zh-Hant", "vi", "tl"
    }  # fmt: skip
    english = table["en"]
    for language, words in table.items():
        assert set(words) == set(english), language
        for key, text in words.items():
            assert text.strip(), (language, key)
            placeholders = sorted(re.findall(r"\{(\w+)\}", text))
            assert placeholders == sorted(re.findall(r"\{(\w+)\}", english[key])), (language, key)


def test_every_key_the_page_uses_exists(messages: dict[str, Any]) -> None:
    english = messages["messages"]["en"]
    used = set(re.findall(r'data-i18n="(\w+)"', (STATIC / "index.html").read_text()))
    used |= set(re.findall(r"\bt\('(\w+)'", (STATIC / "app.js").read_text()))
    assert used and used <= set(english), used - set(english)


def test_the_browser_language_picks_the_page_language(messages: dict[str, Any]) -> None:
    assert messages["matched"] == [
        "en", "es", "pt", "zh-Hant", "zh-Hant", "zh-Hant", "zh-Hans", "zh-Hans", "tl", "tl",
        "ko", None,
    ]  # fmt: skip
    # A saved choice wins; else the first of the browser's languages we have; else English.
    assert messages["picked"] == ["fr", "ja", "en", "en"]
