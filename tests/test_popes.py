"""pope_lookup end to end through /api/v1/a2a, the consistency of the built-in
list of all 267 pontificates, the modern popes against dates written here, and
the links between saint_lookup, pope_lookup and person_lookup."""

from __future__ import annotations

from typing import Any

import pytest

from magisterium_a2a.server.config import Settings
from magisterium_a2a.skills.liturgy.calendar import LiturgicalCalendar
from magisterium_a2a.skills.people.dates import HistoricalDate
from magisterium_a2a.skills.people.matching import normalise
from magisterium_a2a.skills.people.popes import Pope, PopeIndex, builtin_popes
from magisterium_a2a.skills.people.questions import PopeQuestions, builtin_councils
from tests.support import harness, validate_definition

BUILTINS = (
    "magisterium_a2a.skills.saint_lookup:create",
    "magisterium_a2a.skills.pope_lookup:create",
    "magisterium_a2a.skills.person_lookup:create",
)
# Where the list itself counts a pope elected while his predecessor lived: Eugene I
# (654, Martin I exiled until his death in 655), Leo VIII (963, John XII deposed by a
# synod but alive until 964) and Benedict V (964, while Leo VIII lived until 965).
OVERLAPS = {"eugene-i", "leo-viii", "benedict-v"}
# Election and end of every pontificate from Pius VII on, written here independently.
MODERN: dict[str, tuple[int, str, str | None, str]] = {
    "pius-vii": (251, "1800-03-14", "1823-08-20", "death"),
    "leo-xii": (252, "1823-09-28", "1829-02-10", "death"),
    "pius-viii": (253, "1829-03-31", "1830-11-30", "death"),
    "gregory-xvi": (254, "1831-02-02", "1846-06-01", "death"),
    "pius-ix": (255, "1846-06-16", "1878-02-07", "death"),
    "leo-xiii": (256, "1878-02-20", "1903-07-20", "death"),
    "pius-x": (257, "1903-08-04", "1914-08-20", "death"),
    "benedict-xv": (258, "1914-09-03", "1922-01-22", "death"),
    "pius-xi": (259, "1922-02-06", "1939-02-10", "death"),
    "pius-xii": (260, "1939-03-02", "1958-10-09", "death"),
    "john-xxiii": (261, "1958-10-28", "1963-06-03", "death"),
    "paul-vi": (262, "1963-06-21", "1978-08-06", "death"),
    "john-paul-i": (263, "1978-08-26", "1978-09-28", "death"),
    "john-paul-ii": (264, "1978-10-16", "2005-04-02", "death"),
    "benedict-xvi": (265, "2005-04-19", "2013-02-28", "resignation"),
    "francis": (266, "2013-03-13", "2025-04-21", "death"),
    "leo-xiv": (267, "2025-05-08", None, ""),
}


def terms() -> list[tuple[Pope, int]]:
    """(pope, index of the pontificate) in the list's order."""
    found = [(pope, i) for pope in builtin_popes() for i in range(len(pope.pontificates))]
    return sorted(found, key=lambda item: item[0].pontificates[item[1]].number)


def parse(text: str | None) -> HistoricalDate | None:
    return HistoricalDate.parse(text) if text is not None else None


# -- the data ------------------------------------------------------------------


def test_numbers_1_to_267_once_each() -> None:
    numbers = sorted(p.number for pope in builtin_popes() for p in pope.pontificates)
    assert numbers == list(range(1, 268))
    ids = [pope.id for pope in builtin_popes()]
    assert len(ids) == len(set(ids)) == 265  # Benedict IX's three terms are one entry
    benedict = next(pope for pope in builtin_popes() if pope.id == "benedict-ix")
    assert [p.number for p in benedict.pontificates] == [145, 147, 150]


def test_ids_are_the_names() -> None:
    for pope in builtin_popes():
        assert pope.id == normalise(pope.name).replace(" ", "-"), pope.id


def test_each_pontificate_is_ordered_within_itself() -> None:
    for pope, index in terms():
        term = pope.pontificates[index]
        elected, installed, ended = parse(term.elected), parse(term.installed), parse(term.ended)
        if elected and ended:
            assert ended.not_before(elected), pope.id
        if installed:
            assert elected is not None and installed.not_before(elected), pope.id
            assert ended is None or ended.not_before(installed), pope.id
        born = parse(pope.born)
        if born and elected:
            assert elected.strictly_after(born), pope.id
        if ended is None:
            assert pope.id == "leo-xiv" and term.end is None
        died = parse(pope.died)
        if died:
            assert term is pope.pontificates[-1] and ended and died.strictly_after(ended)


def test_each_pontificate_starts_when_the_previous_ended() -> None:
    overlapping: set[str] = set()
    previous: tuple[Pope, HistoricalDate] | None = None
    for pope, index in terms():
        term = pope.pontificates[index]
        start = parse(term.elected)
        if previous is not None and start is not None:
            _, ended = previous
            if term.number >= 251:  # the modern era: never on the same day
                assert start.strictly_after(ended), pope.id
            elif not start.not_before(ended):
                overlapping.add(pope.id)
        end = parse(term.ended)
        previous = (pope, end) if end is not None else None
    assert overlapping == OVERLAPS


def test_only_the_first_pope_lacks_a_start() -> None:
    missing = [pope.id for pope, i in terms() if pope.pontificates[i].elected is None]
    assert missing == ["peter"]


def test_canonization_fields_agree() -> None:
    for pope in builtin_popes():
        beatified, canonized = parse(pope.beatified), parse(pope.canonized)
        if canonized:
            assert pope.status == "saint", pope.id
        if beatified:
            assert pope.status in {"saint", "blessed"}, pope.id
            assert canonized is None or canonized.strictly_after(beatified), pope.id
    wikidata = [pope.wikidata for pope in builtin_popes() if pope.wikidata]
    assert len(wikidata) == len(set(wikidata))


def test_modern_popes_against_the_dates_written_here() -> None:
    by_number = {p.number: (pope, p) for pope in builtin_popes() for p in pope.pontificates}
    assert [by_number[n][0].id for n in range(251, 268)] == list(MODERN)
    for ident, (number, elected, ended, end) in MODERN.items():
        pope, term = by_number[number]
        assert (pope.id, term.elected, term.ended, term.end or "") == (ident, elected, ended, end)


def test_the_last_two_popes() -> None:
    popes = {pope.id: pope for pope in builtin_popes()}
    leo = popes["leo-xiv"]
    assert (leo.birth_name, leo.born, leo.wikidata) == (
        "Robert Francis Prevost",
        "1955-09-14",
        "Q6109517",
    )
    assert (leo.regnal_name, leo.ordinal) == ("Leo", 14)
    assert popes["francis"].pontificates[0].ended == "2025-04-21"
    assert (popes["francis"].regnal_name, popes["francis"].ordinal) == ("Francis", None)


# -- end to end --------------------------------------------------------------------


async def _send(
    settings: Settings, skill: str, text: str = "", parts: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    async with harness(settings, builtins=BUILTINS) as h:
        token = await h.token()
        response = await h.send(token, text, skill, parts=parts)
        assert response.status_code == 200
        task: dict[str, Any] = response.json()["result"]
        return task


def _data(**fields: str) -> dict[str, Any]:
    return {"kind": "data", "data": fields}


def _parts(task: dict[str, Any]) -> list[dict[str, Any]]:
    assert task["status"]["state"] == "completed"
    assert [a["name"] for a in task["artifacts"]] == ["pope"]
    parts: list[dict[str, Any]] = task["artifacts"][0]["parts"]
    return parts


async def test_by_name(settings: Settings) -> None:
    text, data = _parts(await _send(settings, "pope_lookup", "Pope Leo XIV"))
    assert text["text"].startswith("Leo XIV (Latin: Leo XIV), the 267th pope — pope_id leo-xiv")
    assert "Born Robert Francis Prevost, 1955-09-14, Chicago" in text["text"]
    assert "elected 2025-05-08; installed 2025-05-18; reigning" in text["text"]
    [pope] = data["data"]["popes"]
    assert (pope["id"], pope["ordinal"], pope["numbers"]) == ("leo-xiv", 14, [267])
    assert pope["person_id"] == "robert-francis-prevost"


async def test_answers_are_a2a_tasks(settings: Settings, schema: dict[str, Any]) -> None:
    for skill, text in (("pope_lookup", "Leo"), ("person_lookup", "Tagle"), ("pope_lookup", "")):
        validate_definition(schema, "Task", await _send(settings, skill, text))
    failed = await _send(settings, "pope_lookup", parts=[{"kind": "data", "data": {}}])
    validate_definition(schema, "Task", failed)


@pytest.mark.parametrize(
    ("query", "ident"),
    [
        ("John Paul the Second", "john-paul-ii"),
        ("saint john paul 2", "john-paul-ii"),
        ("Ioannes Paulus II", "john-paul-ii"),
        ("Karol Wojtyla", "john-paul-ii"),
        ("St. Gregory the Great", "gregory-i"),
        ("Who was Pope Pius the Tenth?", "pius-x"),
        ("Hadrian IV", "adrian-iv"),
        ("Jorge Mario Bergoglio", "francis"),
        ("Cletus", "anacletus"),
    ],
)
async def test_forgiving_names(settings: Settings, query: str, ident: str) -> None:
    _, data = _parts(await _send(settings, "pope_lookup", query))
    assert [p["id"] for p in data["data"]["popes"]] == [ident]


async def test_by_id_and_by_data_part(settings: Settings) -> None:
    by_text = _parts(await _send(settings, "pope_lookup", "john-paul-ii"))
    by_id = _parts(await _send(settings, "pope_lookup", parts=[_data(pope_id="john-paul-ii")]))
    by_query = _parts(await _send(settings, "pope_lookup", parts=[_data(query="Wojtyła")]))
    assert by_text == by_id == by_query
    text = by_id[0]["text"]
    assert "Saint, beatified 2011-05-01, canonized 2014-04-27" in text
    assert "(saint_lookup id john_paul_ii_pope)" in text


async def test_a_pope_with_three_terms(settings: Settings) -> None:
    text, data = _parts(await _send(settings, "pope_lookup", parts=[_data(pope_id="benedict-ix")]))
    assert "the 145th, 147th and 150th pope" in text["text"]
    assert "Pontificate 147: elected 1045-03; ended 1045-05 (resignation)." in text["text"]
    assert data["data"]["popes"][0]["numbers"] == [145, 147, 150]


async def test_ambiguous_name_ranks_candidates_with_ids(settings: Settings) -> None:
    text, data = _parts(await _send(settings, "pope_lookup", "Leo"))
    popes = data["data"]["popes"]
    assert len(popes) == 10 and popes[0]["id"] == "leo-xiv"
    assert all(p["regnal_name"] == "Leo" for p in popes)
    assert text["text"].startswith("Several popes match 'Leo'; ask again with one of these ids:")
    assert "- leo-xiii: Leo XIII (1878\N{EN DASH}1903)" in text["text"]


# Issue 19: what people ask. The answers: the Annuario Pontificio's list (order and
# numbers), Tanner's "Decrees of the Ecumenical Councils" and the acts on vatican.va
# (councils), the encyclicals as signed on vatican.va (documents).
@pytest.mark.parametrize(
    ("query", "ident", "because"),
    [
        ("the current pope", "leo-xiv", "The reigning pope is Leo XIV."),
        ("Who is the pope now?", "leo-xiv", "The reigning pope is Leo XIV."),
        ("the first pope", "peter", "The 1st pope is Peter."),
        ("the 264th pope", "john-paul-ii", "The 264th pope is John Paul II."),
        ("the pope before Francis", "benedict-xvi", "The predecessor of Francis was Benedict XVI."),
        ("Who was John Paul II's predecessor?", "john-paul-i", "The predecessor of John Paul II"),
        ("the pope after Pius XII", "john-xxiii", "The successor of Pius XII was John XXIII."),
        ("who succeeded Leo XIII", "pius-x", "The successor of Leo XIII was Pius X."),
        (
            "the pope who opened the Second Vatican Council",
            "john-xxiii",
            "The Second Vatican Council (1962-1965) was opened by John XXIII.",
        ),
        ("which pope convened Vatican II?", "john-xxiii", "was convoked by John XXIII"),
        ("the pope who closed Vatican II", "paul-vi", "was closed by Paul VI"),
        ("the pope who closed Trent", "pius-iv", "Council of Trent (1545-1563) was closed by"),
        ("Who convoked the Council of Trent?", "paul-iii", "was convoked by Paul III"),
        (
            "the pope who convened Nicaea",
            "sylvester-i",
            "convoked by the Emperor Constantine I, not by a pope",
        ),
        ("the pope who wrote Rerum Novarum", "leo-xiii", "Rerum Novarum (Encyclical letter, 1891)"),
        ("Who wrote Humanae Vitae?", "paul-vi", "is by Paul VI"),
    ],
)
async def test_descriptive_questions(
    settings: Settings, query: str, ident: str, because: str
) -> None:
    """Issue 19: "the current pope" used to find nothing and "the pope who opened the
    Second Vatican Council" a list of popes numbered II."""
    text, data = _parts(await _send(settings, "pope_lookup", query))
    assert [p["id"] for p in data["data"]["popes"]] == [ident]
    first, second = text["text"].split("\n")[:2]
    assert because in first
    assert f"pope_id {ident}" in second


async def test_a_council_under_several_popes_lists_them(settings: Settings) -> None:
    text, data = _parts(
        await _send(settings, "pope_lookup", "the pope during the Council of Trent")
    )
    assert [p["id"] for p in data["data"]["popes"]] == ["paul-iii", "julius-iii", "pius-iv"]
    assert text["text"].startswith(
        "The Council of Trent (1545-1563) sat under Paul III, Julius III and Pius IV."
    )


async def test_a_council_never_closed_says_so(settings: Settings) -> None:
    text, data = _parts(await _send(settings, "pope_lookup", "the pope who closed Vatican I"))
    assert [p["id"] for p in data["data"]["popes"]] == ["pius-ix"]
    assert "suspended it on 20 October 1870" in text["text"]


def test_the_current_pope_is_read_from_the_list() -> None:
    """No clock decides it: the pope whose pontificate has no end, and a list that
    ends with a finished pontificate says so rather than naming anyone reigning."""
    popes = builtin_popes()
    assert PopeQuestions(PopeIndex()).current().id == "leo-xiv"
    without_leo = PopeIndex(popes=tuple(p for p in popes if p.id != "leo-xiv"), antipopes=())
    resolved = PopeQuestions(without_leo).resolve("the current pope")
    assert resolved is not None and [p.id for p in resolved.popes] == ["francis"]
    assert resolved.because.startswith("The list ends with Francis, whose pontificate ended")
    first = PopeQuestions(PopeIndex()).resolve("the pope before Peter")
    assert (
        first is not None
        and first.because == "Peter is the first pope: none came before him in the list."
    )


def test_a_succession_question_on_an_ambiguous_name_lists_the_candidates() -> None:
    resolved = PopeQuestions(PopeIndex()).resolve("the pope before Benedict")
    assert resolved is not None and resolved.because.startswith("'Benedict' fits several popes")
    assert {p.id for p in resolved.popes} >= {"benedict-xvi", "benedict-xv"}


def test_every_council_names_popes_of_the_list() -> None:
    popes = {p.id for p in builtin_popes()}
    councils = builtin_councils()
    assert len(councils) == 21
    for council in councils:
        named = [council.convoked_by, council.opened_by, council.closed_by, *council.popes]
        assert {n for n in named if n} <= popes, council.id
        assert council.popes and (council.convoked_by or council.convoked_by_other or council.note)


@pytest.mark.parametrize(
    ("query", "ident"),
    [
        ("John Paul the Great", "john-paul-ii"),
        ("Good Pope John", "john-xxiii"),
        ("Pope Jon Paul I", "john-paul-i"),  # not Paul I
        ("the only English pope", "adrian-iv"),
    ],
)
async def test_nicknames_and_typos(settings: Settings, query: str, ident: str) -> None:
    _, data = _parts(await _send(settings, "pope_lookup", query))
    assert data["data"]["popes"][0]["id"] == ident


def test_aliases_are_names_not_sentences() -> None:
    """Issue 19: Gregory V's alias "The first German pope." made "the first pope" find him."""
    for pope in builtin_popes():
        assert not any(alias.endswith(".") for alias in pope.aliases), pope.id
    by_id = {p.id: p for p in builtin_popes()}
    assert by_id["gregory-v"].note == "The first German pope."


@pytest.mark.parametrize(
    "parts",
    [
        [{"kind": "text", "text": "Xyzzy the Unknowable"}],
        [{"kind": "data", "data": {"pope_id": "no-such-pope"}}],
        [{"kind": "text", "text": "Leo XXV"}],
        [{"kind": "text", "text": "Pope Joan"}],  # a legend: not John
        [{"kind": "text", "text": "Cardinal Parolin"}],  # a cardinal, never pope
    ],
)
async def test_not_found(settings: Settings, parts: list[dict[str, Any]]) -> None:
    assert _parts(await _send(settings, "pope_lookup", parts=parts)) == [
        {"kind": "text", "text": "No pope found."}
    ]


@pytest.mark.parametrize(
    ("query", "says"),
    [
        ("Felix V", "Felix V, born Amadeus VIII of Savoy, (1439\N{EN DASH}1449) was an antipope"),
        (
            "antipope Clement VII",
            "Clement VII, born Robert of Geneva, (1378\N{EN DASH}1394) was an antipope",
        ),
    ],
)
async def test_antipopes_are_not_popes(settings: Settings, query: str, says: str) -> None:
    text, data = _parts(await _send(settings, "pope_lookup", query))
    assert text["text"].startswith(says) and "not a pope" in text["text"]
    assert data["data"]["popes"] == [] and len(data["data"]["antipopes"]) == 1


async def test_the_pope_of_an_antipopes_name_is_still_found(settings: Settings) -> None:
    _, data = _parts(await _send(settings, "pope_lookup", "Clement VII"))
    assert [p["id"] for p in data["data"]["popes"]] == ["clement-vii"]


@pytest.mark.parametrize(
    ("data", "says"),
    [
        ({}, "Nothing to look up: expected a data part with 'query' (a name) or 'pope_id'"),
        ({"popeId": "leo-xiv"}, "Unknown field(s) 'popeId'"),
        ({"query": 267}, "'query' must be a non-empty string"),
        ({"pope_id": "  "}, "'pope_id' must be a non-empty string"),
        ({"query": "Leo " * 100}, "at most 300 characters"),
    ],
)
async def test_bad_data_part_fails_the_task(
    settings: Settings, data: dict[str, Any], says: str
) -> None:
    task = await _send(settings, "pope_lookup", parts=[{"kind": "data", "data": data}])
    assert task["status"]["state"] == "failed" and task["artifacts"] == []
    message = task["status"]["message"]["parts"][0]["text"]
    assert says in message


# -- links -----------------------------------------------------------------------


async def test_saint_and_pope_links_resolve_both_ways(settings: Settings) -> None:
    linked = [pope for pope in builtin_popes() if pope.saint_id]
    roomy = settings.model_copy(update={"limit_default_per_minute": 100})
    async with harness(roomy, builtins=BUILTINS) as h:
        token = await h.token()
        for pope in linked:
            saint = await h.send(token, pope.saint_id or "", "saint_lookup")
            [record] = saint.json()["result"]["artifacts"][0]["parts"][1]["data"]["saints"][:1]
            assert (record["id"], record["pope_id"]) == (pope.saint_id, pope.id)
            back = await h.send(token, "", "pope_lookup", parts=[_data(pope_id=pope.id)])
            [found] = back.json()["result"]["artifacts"][0]["parts"][1]["data"]["popes"]
            assert found["saint_id"] == pope.saint_id
    assert {"peter", "john-paul-ii", "pius-x", "gregory-i"} <= {p.id for p in linked}


def test_every_pope_saint_lookup_knows_is_linked() -> None:
    entities = LiturgicalCalendar().entities()
    popes_there = {
        ident
        for ident, entity in entities.items()
        if entity.get("canonization_level") and "pope" in (entity.get("titles") or [])
    }
    linked = {pope.saint_id for pope in builtin_popes() if pope.saint_id}
    assert popes_there <= linked
    assert linked <= set(entities)


async def test_pope_and_person_links_resolve_both_ways(settings: Settings) -> None:
    async with harness(settings, builtins=BUILTINS) as h:
        token = await h.token()
        for pope_id, person_id in (("leo-xiv", "robert-francis-prevost"), ("pius-x", "pius-x")):
            pope = await h.send(token, "", "pope_lookup", parts=[_data(pope_id=pope_id)])
            [found] = pope.json()["result"]["artifacts"][0]["parts"][1]["data"]["popes"]
            assert found["person_id"] == person_id
            person = await h.send(token, "", "person_lookup", parts=[_data(person_id=person_id)])
            [back] = person.json()["result"]["artifacts"][0]["parts"][1]["data"]["people"]
            assert back["pope_id"] == pope_id
