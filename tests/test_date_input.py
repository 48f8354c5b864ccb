"""Hostile and out-of-range date queries (issue 12): the length cap in front of the
parser, dates outside the calendar, day numbers that are not years, the parse off
the event loop, and no skill work for a caller over its rate limit. The cost of
the worst inputs is measured in bench/liturgy_bad_input.py, never timed here."""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Iterator
from datetime import UTC, date, datetime
from typing import Any

import pytest

from magisterium_a2a.server.clock import ManualClock
from magisterium_a2a.server.config import Settings
from magisterium_a2a.skills import saint_lookup
from magisterium_a2a.skills.liturgy.calendar import LiturgicalCalendar
from magisterium_a2a.skills.liturgy.dates import MAX_QUERY_CHARS, DateQueryParser
from magisterium_a2a.skills.saints.index import Person
from tests.support import Harness, harness, send_params

SKILLS = {
    "liturgical_readings": "No mass readings found.",
    "saints_of_the_day": "No martyrology data found.",
}
BUILTINS = tuple(f"magisterium_a2a.skills.{skill}:create" for skill in SKILLS)
TODAY = date(2026, 11, 26)
NOW = datetime(2026, 11, 26, 10, tzinfo=UTC).timestamp()


@pytest.fixture(scope="module")
def parser() -> DateQueryParser:
    return DateQueryParser(LiturgicalCalendar())


@pytest.mark.parametrize(
    "query",
    [
        "march 32",
        "february 30",
        "january 1 0000",
        "january 1 1582",
        "0001-01-01",
        "1582-10-14",
        "may " + "1 " * 10_000,
        "may 1" + "- " * 10_000,
        "march " + "1" * 10_000,
        "march 3 4",
        "march 3 2026 2027",
    ],
)
def test_not_a_date_of_the_calendar(parser: DateQueryParser, query: str) -> None:
    assert parser.parse(query, TODAY) is None


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("march 3", date(2026, 3, 3)),
        ("3rd of March", date(2026, 3, 3)),
        ("Dec 25th", date(2026, 12, 25)),
        ("Wednesday, March 4 2026", date(2026, 3, 4)),
        ("march 31", date(2026, 3, 31)),
        ("january 1 1583", date(1583, 1, 1)),
        ("1583-01-01", date(1583, 1, 1)),
        ("9999-12-31", date(9999, 12, 31)),
        ("Christmas 2030", date(2030, 12, 25)),
    ],
)
def test_still_a_date(parser: DateQueryParser, query: str, expected: date) -> None:
    assert parser.parse(query, TODAY) == expected


class Spy:
    """Records what the date parser receives; may hold one query until released."""

    def __init__(self, hold: str | None = None) -> None:
        self.received: list[int] = []
        self.hold = hold
        self.entered = threading.Event()
        self.release = threading.Event()
        self.original = DateQueryParser.parse

    def __call__(self, parser: DateQueryParser, query: str, today: date) -> date | None:
        self.received.append(len(query))
        if query == self.hold:
            self.entered.set()
            # Bounded, so a parse on the event loop fails the test instead of hanging it.
            self.release.wait(10)
        return self.original(parser, query, today)


@pytest.fixture
def spy(monkeypatch: pytest.MonkeyPatch) -> Iterator[Spy]:
    recorder = Spy()

    def parse(parser: DateQueryParser, query: str, today: date) -> date | None:
        return recorder(parser, query, today)

    monkeypatch.setattr(DateQueryParser, "parse", parse)
    yield recorder


def _text(response: Any) -> str:
    assert response.status_code == 200, response.text
    parts = response.json()["result"]["artifacts"][0]["parts"]
    assert len(parts) == 1
    text: str = parts[0]["text"]
    return text


async def _send(h: Harness, token: str, skill: str, query: str, *, data: bool = False) -> Any:
    parts = [{"kind": "data", "data": {"date": query}}] if data else None
    return await h.send(token, query, skill, parts=parts)


@pytest.mark.parametrize("data", [False, True], ids=["text", "data"])
@pytest.mark.parametrize("skill", list(SKILLS))
async def test_a_megabyte_date_never_reaches_the_parser(
    settings: Settings, spy: Spy, skill: str, data: bool
) -> None:
    big = settings.model_copy(update={"max_message_bytes": 2_000_000, "max_body_bytes": 2_100_000})
    async with harness(big, builtins=BUILTINS, clock=ManualClock(NOW)) as h:
        token = await h.token()
        text = _text(await _send(h, token, skill, "march " + "1" * 1_000_000, data=data))
        assert text == SKILLS[skill]
        assert _text(await _send(h, token, skill, "x" * (MAX_QUERY_CHARS + 1))) == SKILLS[skill]
        assert _text(await _send(h, token, skill, "2026-03-19")) != SKILLS[skill]
    assert spy.received == [10]


async def test_with_the_default_limits_a_megabyte_message_is_refused(
    settings: Settings, spy: Spy
) -> None:
    async with harness(settings, builtins=BUILTINS, clock=ManualClock(NOW)) as h:
        token = await h.token()
        response = await h.send(token, "march " + "1" * 1_000_000, "saints_of_the_day")
        assert response.json()["error"]["code"] == -32602
    assert spy.received == []


@pytest.mark.parametrize("data", [False, True], ids=["text", "data"])
@pytest.mark.parametrize("skill", list(SKILLS))
async def test_a_date_before_the_calendar_is_not_found_without_a_traceback(
    settings: Settings, caplog: pytest.LogCaptureFixture, skill: str, data: bool
) -> None:
    caplog.set_level(logging.DEBUG)
    async with harness(settings, builtins=BUILTINS, clock=ManualClock(NOW)) as h:
        token = await h.token()
        for query in ("0001-01-01", "1582-12-31", "january 1 0000", "march 32"):
            response = await _send(h, token, skill, query, data=data)
            assert response.json()["result"]["status"]["state"] == "completed"
            assert _text(response) == SKILLS[skill]
    assert [r.getMessage() for r in caplog.records if r.exc_info or r.levelno >= 40] == []


async def test_another_users_call_completes_while_a_date_is_being_parsed(
    settings: Settings, spy: Spy
) -> None:
    """The parse runs off the event loop: held in the parser, it holds up no one else."""
    longest = ("may " + "1 " * ((MAX_QUERY_CHARS - 4) // 2)).strip()
    assert len(longest) <= MAX_QUERY_CHARS
    spy.hold = longest
    async with harness(settings, builtins=BUILTINS, clock=ManualClock(NOW)) as h:
        ann, bob = await h.token(user="ann"), await h.token(user="bob")
        earlier = await h.send(bob, "2026-03-19", "saints_of_the_day")
        task_id = earlier.json()["result"]["id"]
        finished: list[str] = []

        async def call(name: str, method: str, params: dict[str, Any], token: str) -> Any:
            response = await h.call(method, params, token)
            finished.append(name)
            return response

        huge = asyncio.create_task(
            call("huge", "message/send", send_params(longest, "saints_of_the_day"), ann)
        )
        assert await asyncio.to_thread(spy.entered.wait, 10)
        got = await call("get", "tasks/get", {"id": task_id}, bob)
        spy.release.set()
        answer = await huge
    assert finished == ["get", "huge"]
    assert got.json()["result"]["id"] == task_id
    assert _text(answer) == SKILLS["saints_of_the_day"]


@pytest.mark.parametrize("skill", [*SKILLS, "saint_lookup"])
async def test_a_caller_over_its_limit_gets_no_skill_work_done(
    settings: Settings, spy: Spy, monkeypatch: pytest.MonkeyPatch, skill: str
) -> None:
    searched: list[str] = []
    original = saint_lookup.SaintIndex.search

    def search(
        index: saint_lookup.SaintIndex, query: str, popes: set[str]
    ) -> list[tuple[Person, float]]:
        searched.append(query)
        return original(index, query, popes)

    monkeypatch.setattr(saint_lookup.SaintIndex, "search", search)
    one = settings.model_copy(update={"limit_default_per_minute": 1})
    builtins = (*BUILTINS, "magisterium_a2a.skills.saint_lookup:create")
    async with harness(one, builtins=builtins, clock=ManualClock(NOW)) as h:
        token = await h.token()
        assert (await h.send(token, "2026-03-19", skill)).status_code == 200
        refused = await h.send(token, "2026-03-20", skill)
        assert refused.status_code == 429
    assert len(spy.received) + len(searched) == 1


def test_the_calendar_keeps_a_bounded_number_of_years() -> None:
    calendar = LiturgicalCalendar(years_kept=2)
    first = calendar.year(3000)
    calendar.year(3001)
    calendar.year(3002)
    assert calendar.year(3002) is calendar.year(3002)
    assert calendar.year(3000) is not first
    assert calendar.year(3000).days == first.days
