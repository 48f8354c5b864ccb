"""Load the golden cases, run them through the real app over HTTP, judge them.

A case file is ``cases/<skill>.yaml``, or ``cases/<skill>.<lang>.yaml`` for one
language's cases (``pope_lookup.ja.yaml``)::

    skill: pope_lookup
    cases:
      - q: Leo XIV                       # a text part; or ``data: {...}`` for a data part
        lang: en                         # the language the query is written in (default en)
        tags: [name]                     # free labels (name, date, search, nickname, trick, ...)
        expect:                          # every check must hold
          - path: popes.0.id             # into the artifact's data parts, merged
            is: leo-xiv
          - text: Robert Francis Prevost # the text parts contain it (case and spacing folded)
        source: Holy See Press Office, bulletin of 8 May 2025

Checks: ``text`` (contains), ``no_text`` (does not contain), ``text_is`` (the whole
text), ``in_order`` (a list of texts appearing in that order), ``regex``,
``state`` (``completed``/``failed``), ``artifact`` (its name), and ``path`` with one
of ``is``, ``in`` (one of a list), ``has`` (a list holding the value, or a string
containing it), ``any`` (a list holding at least one of the values, or a string
containing one), ``lacks``, ``len``, ``null`` (true/false). A path is dot-separated
keys and list indexes; ``*`` maps over a list, ``:N`` over its first N items
(``results.:3.id`` are the ids of the first three results).

The expected answers are facts from the ``source`` named with each case, never
copied from this server's output; a case without a source is refused at load.

Twins: the same question in another language. An English case gives itself an ``id``
(unique within its skill); a case in another language that asks the same thing names it
with ``twin``, and takes the English case's checks: it gives no ``expect`` of its own (or
exactly the English one), and its ``source``, ``tags`` and ``why`` are the English case's
unless it gives its own. ``form_source`` says where the language's form of a name comes
from (a bishops' conference's calendar), added to the source::

    - q: Miércoles de Ceniza 2027            # in liturgical_readings.es.yaml
      lang: es
      twin: ash-wednesday-2027               # the English case with that id
      form_source: Conferencia Episcopal Española, Calendario litúrgico-pastoral

A twin that names no English case of its skill, an id given twice, or a twin whose checks
differ from its English case's is refused at load. ``twins`` counts, per skill and
language, the English cases that have a twin.
"""

from __future__ import annotations

import os
import re
import tempfile
import time
import unicodedata
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import yaml

# libyaml when PyYAML has it (its wheels do): ten times faster than the pure-Python reader
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

CASES_DIR = Path(__file__).resolve().parent / "cases"
# "today" for every case: relative dates ("next Sunday") are read against it.
NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
ENDPOINT = "/api/v1/a2a"
CHECKS = frozenset({"text", "no_text", "text_is", "in_order", "regex", "state", "artifact", "path"})
PATH_OPS = frozenset({"is", "in", "has", "any", "lacks", "len", "null"})


class CaseError(ValueError):
    """A case file that does not follow the format (a bug in the set, not a miss)."""


@dataclass(frozen=True)
class Case:
    skill: str
    index: int
    lang: str
    expect: tuple[dict[str, Any], ...]
    source: str
    q: str | None = None
    data: dict[str, Any] | None = None
    tags: tuple[str, ...] = ()
    why: str = ""
    id: str = ""
    twin: str = ""

    @property
    def label(self) -> str:
        shown = self.q if self.q is not None else yaml.safe_dump(self.data, default_flow_style=True)
        return f"{self.skill}#{self.index} [{self.lang}] {shown.strip()!r}"

    def parts(self) -> list[dict[str, Any]]:
        if self.data is not None:
            return [{"kind": "data", "data": self.data}]
        return [{"kind": "text", "text": self.q}]


@dataclass
class Outcome:
    case: Case
    misses: list[str]
    text: str = ""
    seconds: float = 0.0

    @property
    def right(self) -> bool:
        return not self.misses


def _check_shape(skill: str, index: int, check: Any) -> dict[str, Any]:
    where = f"{skill} case {index}"
    if not isinstance(check, dict) or not check:
        raise CaseError(f"{where}: a check is a mapping, got {check!r}")
    kinds = CHECKS & set(check)
    if len(kinds) != 1:
        raise CaseError(f"{where}: a check names exactly one of {sorted(CHECKS)}: {check!r}")
    if "path" in check:
        ops = PATH_OPS & set(check)
        if len(ops) != 1 or set(check) - PATH_OPS - {"path"}:
            raise CaseError(f"{where}: a path check takes one of {sorted(PATH_OPS)}: {check!r}")
    elif len(check) != 1:
        raise CaseError(f"{where}: unexpected keys in {check!r}")
    return check


KNOWN_KEYS = frozenset(
    {"q", "data", "lang", "tags", "expect", "source", "why", "id", "twin", "form_source"}
)


def load(directory: Path = CASES_DIR) -> list[Case]:
    """Every case of every file, validated; twins take their English case's checks."""
    slots: list[Case | None] = []
    pending: list[tuple[int, str, str, int, dict[str, Any]]] = []  # the twins, read last
    for path in sorted(directory.glob("*.yaml")):
        doc = yaml.load(path.read_text(encoding="utf-8"), Loader=_LOADER) or {}
        skill = doc.get("skill")
        if not isinstance(skill, str) or not isinstance(doc.get("cases"), list):
            raise CaseError(f"{path.name}: needs 'skill' and a list of 'cases'")
        for index, raw in enumerate(doc["cases"], 1):
            if not isinstance(raw, dict) or set(raw) - KNOWN_KEYS:
                unknown = set(raw) - KNOWN_KEYS if isinstance(raw, dict) else raw
                raise CaseError(f"{path.name} case {index}: unknown keys {unknown}")
            if ("q" in raw) == ("data" in raw):
                raise CaseError(f"{path.name} case {index}: give exactly one of 'q' and 'data'")
            if "twin" in raw:
                pending.append((len(slots), path.name, skill, index, raw))
                slots.append(None)
            else:
                slots.append(_case(skill, index, raw, path.name))
    english: dict[tuple[str, str], Case] = {}
    for case in slots:
        if case is not None and case.id:
            if (case.skill, case.id) in english:
                raise CaseError(f"{case.skill}: the id {case.id!r} is given twice")
            english[(case.skill, case.id)] = case
    for position, name, skill, index, raw in pending:
        original = english.get((skill, str(raw["twin"])))
        if original is None or original.lang != "en":
            raise CaseError(f"{name} case {index}: {skill} has no English case {raw['twin']!r}")
        if str(raw.get("lang", "en")) == "en" or "id" in raw:
            raise CaseError(f"{name} case {index}: a twin is in another language, without an id")
        slots[position] = _case(skill, index, raw, name, original)
    return [case for case in slots if case is not None]


def _case(
    skill: str, index: int, raw: dict[str, Any], name: str, english: Case | None = None
) -> Case:
    """One case; a twin (``english``, its English case) takes what it does not give."""
    source = raw.get("source", english.source if english else None)
    if not isinstance(source, str) or len(source.strip()) < 8:
        raise CaseError(f"{name} case {index}: every case names its outside source")
    if raw.get("form_source"):
        source = f"{source}; language form: {raw['form_source']}"
    expect = raw.get("expect")
    if isinstance(expect, dict):
        expect = [{k: v} for k, v in expect.items()] if "path" not in expect else [expect]
    if english is not None:
        if expect is not None and tuple(expect) != english.expect:
            raise CaseError(f"{name} case {index}: a twin's checks are its English case's")
        expect = list(english.expect)
    if not isinstance(expect, list) or not expect:
        raise CaseError(f"{name} case {index}: 'expect' holds at least one check")
    tags = raw.get("tags", english.tags if english else ())
    why = raw.get("why", english.why if english else "")
    return Case(
        skill=skill,
        index=index,
        lang=str(raw.get("lang", "en")),
        expect=tuple(_check_shape(skill, index, c) for c in expect),
        source=source,
        q=raw.get("q"),
        data=raw.get("data"),
        tags=tuple(tags or ()),
        why=str(why or ""),
        id=str(raw.get("id") or ""),
        twin=str(raw.get("twin") or ""),
    )


def twins(cases: list[Case]) -> dict[tuple[str, str], set[str]]:
    """(skill, language) -> the ids of the English cases that have a twin in it."""
    found: dict[tuple[str, str], set[str]] = {}
    for case in cases:
        if case.twin:
            found.setdefault((case.skill, case.lang), set()).add(case.twin)
    return found


def fold(text: str) -> str:
    """Case, compatibility forms and runs of spaces do not matter to ``text`` checks."""
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def _walk(value: Any, path: str) -> Any:
    current: list[Any] = [value]
    mapped = False
    for key in path.split("."):
        following: list[Any] = []
        for item in current:
            if key == "*" or re.fullmatch(r":\d+", key):
                mapped = True
                items = item if isinstance(item, list) else []
                following.extend(items if key == "*" else items[: int(key[1:])])
            elif isinstance(item, list) and re.fullmatch(r"-?\d+", key):
                position = int(key)
                if -len(item) <= position < len(item):
                    following.append(item[position])
            elif isinstance(item, dict) and key in item:
                following.append(item[key])
        current = following
    if mapped:
        return current
    return current[0] if current else _MISSING


class _Missing:
    def __repr__(self) -> str:
        return "<missing>"


_MISSING = _Missing()


def judge(case: Case, task: dict[str, Any]) -> tuple[list[str], str]:
    """The checks of ``case`` that ``task`` fails, each said in words, and its text."""
    artifacts = task.get("artifacts") or []
    texts: list[str] = []
    data: dict[str, Any] = {}
    names = []
    for artifact in artifacts:
        names.append(artifact.get("name"))
        for part in artifact.get("parts") or []:
            if part.get("kind") == "text":
                texts.append(part.get("text") or "")
            elif part.get("kind") == "data" and isinstance(part.get("data"), dict):
                data.update(part["data"])
    state = (task.get("status") or {}).get("state")
    if state == "failed":
        message = (task.get("status") or {}).get("message") or {}
        texts.extend(p.get("text", "") for p in message.get("parts") or [] if "text" in p)
    text = "\n".join(texts)
    folded = fold(text)
    misses: list[str] = []
    for check in case.expect:
        if "text" in check:
            if fold(str(check["text"])) not in folded:
                misses.append(f"text lacks {check['text']!r}")
        elif "no_text" in check:
            if fold(str(check["no_text"])) in folded:
                misses.append(f"text has {check['no_text']!r}")
        elif "text_is" in check:
            if text.strip() != str(check["text_is"]).strip():
                misses.append(f"text is not exactly {check['text_is']!r}")
        elif "in_order" in check:
            at = 0
            for wanted in check["in_order"]:
                found = folded.find(fold(str(wanted)), at)
                if found < 0:
                    misses.append(f"{wanted!r} not found after position {at} (in_order)")
                    break
                at = found + 1
        elif "regex" in check:
            if not re.search(str(check["regex"]), text, re.MULTILINE):
                misses.append(f"text does not match /{check['regex']}/")
        elif "state" in check:
            if state != check["state"]:
                misses.append(f"state {state!r}, expected {check['state']!r}")
        elif "artifact" in check:
            if check["artifact"] not in names:
                misses.append(f"artifacts {names}, expected {check['artifact']!r}")
        else:
            misses.extend(_judge_path(check, data))
    return misses, text


def _judge_path(check: dict[str, Any], data: dict[str, Any]) -> list[str]:
    path = str(check["path"])
    got = _walk(data, path)
    if "null" in check:
        is_null = got is None or got is _MISSING
        return [] if is_null == bool(check["null"]) else [f"{path} = {got!r}"]
    if got is _MISSING:
        return [f"{path} is missing"]
    if "is" in check:
        return [] if got == check["is"] else [f"{path} = {got!r}, expected {check['is']!r}"]
    if "in" in check:
        return [] if got in check["in"] else [f"{path} = {got!r}, expected one of {check['in']!r}"]
    if "any" in check:
        wanted_any = [str(w) for w in check["any"]]
        if isinstance(got, str):
            hit = any(fold(w) in fold(got) for w in wanted_any)
        else:
            hit = isinstance(got, list) and any(w in got for w in wanted_any)
        return [] if hit else [f"{path} = {got!r} holds none of {wanted_any!r}"]
    if "len" in check:
        size = len(got) if isinstance(got, list | dict | str) else None
        return [] if size == check["len"] else [f"len({path}) = {size}, expected {check['len']}"]
    wanted = check.get("has", check.get("lacks"))
    if isinstance(got, str):
        present = fold(str(wanted)) in fold(got)
    elif isinstance(got, list):
        present = wanted in got
    else:
        present = got == wanted
    if "has" in check:
        return [] if present else [f"{path} = {got!r} lacks {wanted!r}"]
    return [f"{path} = {got!r} has {wanted!r}"] if present else []


@asynccontextmanager
async def running_app(data_dir: Path) -> AsyncIterator[tuple[httpx.AsyncClient, str]]:
    """The server as ``make run`` builds it, on built-in data in ``data_dir``, its
    clock at ``NOW``, with one enterprise token whose limits never bite."""
    from asgi_lifespan import LifespanManager

    from magisterium_a2a.server.clock import ManualClock
    from magisterium_a2a.server.config import Settings
    from magisterium_a2a.server.identity import hash_token
    from magisterium_a2a.server.main import create_app
    from magisterium_a2a.server.runtime import Runtime
    from magisterium_a2a.server.tokens import TokenRecord, new_token
    from magisterium_a2a.skills.knowledge.settings import KnowledgeSettings
    from magisterium_a2a.skills.liturgy.settings import LiturgySettings
    from magisterium_a2a.skills.qa.settings import QASettings

    kinds = (LiturgySettings, KnowledgeSettings, QASettings)
    families = [kind(_env_file=None, data_dir=data_dir) for kind in kinds]  # type: ignore[call-arg]
    settings = Settings(_env_file=None, data_dir=data_dir)  # type: ignore[call-arg]
    clock = ManualClock(NOW.timestamp())
    app = create_app(settings, clock=clock, plugin_settings=families)
    async with LifespanManager(app) as manager:
        runtime: Runtime = app.state.runtime
        token = new_token()
        record = TokenRecord(
            user_id="golden",
            plan="enterprise",
            created_at=clock.now(),
            per_minute=10**9,
            qa_per_minute=10**9,
        )
        await runtime.tokens.put(hash_token(token), record)
        transport = httpx.ASGITransport(app=manager.app)
        async with httpx.AsyncClient(
            transport=transport, base_url="http://golden", timeout=120
        ) as client:
            yield client, token


@contextmanager
def _without_a2a_environment() -> Iterator[None]:
    """The operator's A2A_* variables (an LLM, an embeddings server) would change the
    answers: the golden set judges the built-in defaults."""
    saved = {k: v for k, v in os.environ.items() if k.startswith("A2A_")}
    for name in saved:
        del os.environ[name]
    try:
        yield
    finally:
        os.environ.update(saved)


async def run(cases: list[Case], data_dir: Path | None = None) -> list[Outcome]:
    """Ask every case through ``POST /api/v1/a2a`` and judge the answers."""
    with _without_a2a_environment(), tempfile.TemporaryDirectory(prefix="golden-") as scratch:
        async with running_app(data_dir or Path(scratch)) as (client, token):
            return [await _ask(client, token, case, n) for n, case in enumerate(cases)]


async def _ask(client: httpx.AsyncClient, token: str, case: Case, number: int) -> Outcome:
    body = {
        "jsonrpc": "2.0",
        "id": number,
        "method": "message/send",
        "params": {
            "message": {
                "role": "user",
                "kind": "message",
                "messageId": f"golden-{number}",
                "parts": case.parts(),
                "metadata": {"skillId": case.skill},
            }
        },
    }
    started = time.perf_counter()
    response = await client.post(ENDPOINT, json=body, headers={"Authorization": f"Bearer {token}"})
    seconds = time.perf_counter() - started
    reply = response.json()
    if "error" in reply:
        return Outcome(case, [f"JSON-RPC error {reply['error']}"], seconds=seconds)
    misses, text = judge(case, reply["result"])
    return Outcome(case, misses, text, seconds)


@dataclass
class Figures:
    right: Counter[str] = field(default_factory=Counter)
    total: Counter[str] = field(default_factory=Counter)

    def add(self, key: str, right: bool) -> None:
        self.total[key] += 1
        self.right[key] += int(right)

    def share(self, key: str) -> float:
        return self.right[key] / self.total[key] if self.total[key] else 1.0


def figures(outcomes: list[Outcome]) -> tuple[Figures, Figures, Figures]:
    """Right and total per skill, per language, and overall (key ``all``)."""
    skills, langs, overall = Figures(), Figures(), Figures()
    for outcome in outcomes:
        skills.add(outcome.case.skill, outcome.right)
        langs.add(outcome.case.lang, outcome.right)
        overall.add("all", outcome.right)
    return skills, langs, overall
