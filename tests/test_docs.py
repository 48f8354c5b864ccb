"""The README and docs/ stay true to the code: every setting is documented, the
test command they give is the one CI runs, no link (a bare address GitHub links
included) leaves the repository except for a public site, and the skills
reference's examples are what the server answers."""

from __future__ import annotations

import ipaddress
import json
import re
import subprocess
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from magisterium_a2a.server.config import Settings
from magisterium_a2a.server.registry import BUILTIN_FACTORIES
from tests.support import ROOT, harness, send_params

README = (ROOT / "README.md").read_text()
DOCS = sorted((ROOT / "docs").glob("*.md"))
PAGES = [ROOT / "README.md", *DOCS]
# Names that are never a public site: loopback, private networks, and the
# domains reserved for examples and tests (RFC 2606, RFC 6761).
NOT_PUBLIC = re.compile(
    r"(^|\.)(localhost|example|invalid|test|local|internal|lan|home\.arpa)$"
    r"|(^|\.)example\.(com|org|net)$"
)


def test_every_setting_is_in_the_configuration_table() -> None:
    missing = [
        f"A2A_{name.upper()}"
        for name in Settings.model_fields
        if f"| `A2A_{name.upper()}` |" not in README
    ]
    assert missing == []


def test_quick_start_commands_are_the_ci_commands() -> None:
    assert "make run" in README
    assert "make test" in README
    ci = (ROOT / ".ci" / "run").read_text()
    assert re.search(r"^make test$", ci, flags=re.M)


def test_make_run_says_what_it_does_before_anything_slow(tmp_path: Path) -> None:
    """From a fresh clone, `make run` first says that it sets up .venv and that this
    takes about a minute, before it creates anything (here, creating fails at once)."""
    done = subprocess.run(
        ["make", "--no-print-directory", "-C", str(ROOT), "run", "PYTHON=false",
         f"VENV={tmp_path / 'venv'}"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )  # fmt: skip
    assert done.returncode != 0
    lines = done.stdout.splitlines()
    assert lines[0].startswith("==> First run: setting up")
    assert "about a minute" in lines[1]
    assert lines[2].startswith("==> Creating the virtual environment")
    assert not (tmp_path / "venv").exists()


def test_make_run_serves_the_port_it_is_given() -> None:
    done = subprocess.run(
        ["make", "--no-print-directory", "-n", "-C", str(ROOT), "run", "PORT=8100"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert "the playground will be at http://127.0.0.1:8100/" in done.stdout
    assert re.search(
        r"A2A_DEV_MODE=1 .*magisterium-a2a serve --host 127.0.0.1 --port 8100", done.stdout
    )


def _prose(markdown: str) -> str:
    """The text outside code blocks and code spans: where links are links."""
    text = re.sub(r"^(```|~~~).*?^\1", "", markdown, flags=re.M | re.S)
    return re.sub(r"(`+).*?\1", "", text, flags=re.S)


INLINE = re.compile(r"\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE = re.compile(r"^\s*\[[^\]]+\]:\s*<?(\S+?)>?\s*$", flags=re.M)
AUTOLINK = re.compile(r"<(https?://[^>\s]+)>")
HREF = re.compile(r"""href=["']([^"']+)["']""")
# GitHub's extended autolinks: a bare http(s):// or www. address at the start of a line or
# after a space, *, _, ~ or (, up to a space or <.
BARE = re.compile(r"(?<![^\s*_~(])((?:https?://|www\.)[^\s<]+)", flags=re.IGNORECASE)


def _bare_target(url: str) -> str:
    """The address GitHub links: without trailing punctuation, or a ) it does not open."""
    while url:
        if url[-1] in "?!.,:*_~'\"" or (url.endswith(")") and url.count(")") > url.count("(")):
            url = url[:-1]
        else:
            break
    return url if url.lower().startswith("http") else f"http://{url}"


def links(markdown: str) -> list[str]:
    """Every link target of the prose, bare addresses GitHub links included."""
    prose = _prose(markdown)
    found = INLINE.findall(prose)
    found += REFERENCE.findall(prose)
    found += AUTOLINK.findall(prose)
    found += HREF.findall(prose)
    rest = REFERENCE.sub("", HREF.sub("", AUTOLINK.sub("", INLINE.sub("]", prose))))
    found += [_bare_target(m[1]) for m in BARE.finditer(rest)]
    return found


def slug(heading: str) -> str:
    """GitHub's anchor of a heading."""
    text = heading.strip().lower().replace("`", "")
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(markdown: str) -> set[str]:
    seen: dict[str, int] = {}
    found = set()
    for heading in re.findall(r"^#{1,6}\s+(.+?)\s*#*$", _fenced_out(markdown), flags=re.M):
        base = slug(heading)
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def _fenced_out(markdown: str) -> str:
    return re.sub(r"^(```|~~~).*?^\1", "", markdown, flags=re.M | re.S)


def problem(page: Path, target: str) -> str | None:
    """Why a link of ``page`` is not allowed, or None."""
    parts = urlsplit(target)
    if parts.scheme in ("http", "https"):
        host = (parts.hostname or "").lower()
        if not host:
            return "no host"
        try:
            address = ipaddress.ip_address(host)
        except ValueError:
            return "not a public site" if NOT_PUBLIC.search(host) else None
        return None if address.is_global else "not a public address"
    if parts.scheme == "mailto":
        return None
    if parts.scheme or parts.netloc:
        return f"scheme {parts.scheme!r}"
    path = (page.parent / unquote(parts.path)).resolve() if parts.path else page
    if not path.is_relative_to(ROOT):
        return "outside the repository"
    if not path.exists():
        return "no such file"
    if parts.fragment and path.suffix == ".md" and parts.fragment not in anchors(path.read_text()):
        return f"no heading #{parts.fragment}"
    return None


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_link_leaves_the_repository_except_for_a_public_site(page: Path) -> None:
    found = links(page.read_text())
    wrong = [(target, why) for target in found if (why := problem(page, target)) is not None]
    assert wrong == []


def test_the_link_check_can_fail() -> None:
    page = ROOT / "README.md"
    assert links("[c](../shared/CONTRACT.md) `[x](nope)` <https://a2a.example.org/x>") == [
        "../shared/CONTRACT.md",
        "https://a2a.example.org/x",
    ]
    # Bare addresses GitHub links too, without the punctuation after them; inside code they
    # are text, and a link's own target is counted once.
    assert links(
        "Open **http://127.0.0.1:8000/**: (see www.vatican.va.) `http://localhost:8000/` "
        "[v](https://www.vatican.va/x) x-https://not.a.link\n```\nhttp://127.0.0.1/\n```\n"
    ) == ["https://www.vatican.va/x", "http://127.0.0.1:8000/", "http://www.vatican.va"]
    assert problem(page, "../shared/CONTRACT.md") == "outside the repository"
    assert problem(page, "https://a2a.example.org/x") == "not a public site"
    assert problem(page, "http://127.0.0.1:8000/") == "not a public address"
    assert problem(page, "http://localhost:8000/") == "not a public site"
    assert problem(page, "docs/nothing-here.md") == "no such file"
    assert problem(page, "docs/skills.md#no-such-heading") == "no heading #no-such-heading"
    assert problem(page, "file:///etc/passwd") == "scheme 'file'"
    assert problem(page, "https://www.vatican.va/content/vatican/en.html") is None
    assert problem(page, "docs/skills.md#pope_lookup") is None
    assert problem(page, "#quick-start") is None


def test_the_docs_are_linked_from_the_readme() -> None:
    linked = {target.split("#")[0] for target in links(README)}
    assert {f"docs/{page.name}" for page in DOCS} <= linked


SKILLS_DOC = (ROOT / "docs" / "skills.md").read_text()
EXAMPLE = re.compile(
    r"^## (?P<skill>\w+)\n.*?^Send:\n```json\n(?P<part>.*?)\n```\n^Answer.*?:\n```text\n"
    r"(?P<answer>.*?)\n```",
    flags=re.M | re.S,
)


def test_every_skill_has_an_example() -> None:
    documented = [m["skill"] for m in EXAMPLE.finditer(SKILLS_DOC)]
    builtin = [ref.rpartition(".")[2].partition(":")[0] for ref in BUILTIN_FACTORIES]
    assert sorted(documented) == sorted(builtin)


async def test_the_skills_reference_examples_are_what_the_server_answers(
    settings: Settings,
) -> None:
    async with harness(settings, builtins=BUILTIN_FACTORIES) as h:
        token = await h.token("pro")
        for example in EXAMPLE.finditer(SKILLS_DOC):
            part = json.loads(example["part"])
            response = await h.call(
                "message/send", send_params(skill=example["skill"], parts=[part]), token
            )
            assert "result" in response.json(), (example["skill"], response.text)
            task = response.json()["result"]
            assert task["status"]["state"] == "completed", (example["skill"], task["status"])
            shown = "\n".join(
                p["text"] if p["kind"] == "text" else json.dumps(p["data"], ensure_ascii=False)
                for artifact in task["artifacts"]
                for p in artifact["parts"]
            )
            for line in example["answer"].splitlines():
                assert line in shown, (example["skill"], line, shown[:2000])
