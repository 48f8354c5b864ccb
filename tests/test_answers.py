"""The golden set (bench/answers/): every skill answers realistic queries right,
judged against facts from outside sources, above the floors of the issues on
trustworthy and multilingual answers. ``python -m bench.answers`` lists misses.

The held-out sets (``bench/answers/heldout``, ``heldout2``: queries written without
looking at the golden cases, the second batch after the first's fixes) are held to
the same floors: ``python -m bench.answers --dir bench/answers/heldout``."""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path

import pytest

from bench.answers.golden import (
    CASES_DIR,
    Case,
    CaseError,
    Outcome,
    figures,
    judge,
    load,
    run,
    twins,
)

SKILL_FLOOR = 0.95
OVERALL_FLOOR = 0.97
LANGUAGE_FLOOR = 0.90
# The size of the golden set (issue 20's acceptance): at least these many cases overall,
# per skill, and for the skills whose answers vary most; and, in each of the languages
# other than English, a twin of at least this share of the English cases of each skill
# whose queries are dates, names or searches (each such skill's file headers say which of
# its English cases have no twin, and why).
MIN_CASES = 400
MIN_PER_SKILL = 30
MIN_LARGE_SKILLS = {"saint_lookup": 60, "liturgical_readings": 60, "catholic_qa": 60}
TWINNED_SKILLS = {
    "liturgical_readings": "date",
    "saints_of_the_day": "date",
    "pope_lookup": "name",
    "diocese_lookup": "name",
    "person_lookup": "name",
    "saint_lookup": "name",
    "document_search": "search",
    "catholic_qa": "search",
}
OTHER_LANGUAGES = ("es", "pt", "it", "fr", "de", "pl", "ja", "ko", "zh-Hans", "zh-Hant", "vi", "tl")
MIN_TWIN_SHARE = 0.80
HELDOUT_DIRS = [CASES_DIR.parent / "heldout", CASES_DIR.parent / "heldout2"]


@pytest.fixture(scope="module")
def outcomes() -> list[Outcome]:
    return asyncio.run(run(load()))


@pytest.fixture(scope="module", params=HELDOUT_DIRS, ids=lambda d: d.name)
def heldout(request: pytest.FixtureRequest) -> list[Outcome]:
    directory: Path = request.param
    return asyncio.run(run(load(directory)))


def _report(misses: list[Outcome]) -> str:
    return "\n".join(f"{o.case.label}: {'; '.join(o.misses)}" for o in misses)


def test_every_case_names_its_source_and_valid_checks() -> None:
    cases = load()
    assert cases
    assert all(len(c.source) >= 8 for c in cases)


def test_a_case_without_a_source_is_refused(tmp_path: Path) -> None:
    (tmp_path / "x.yaml").write_text("skill: x\ncases:\n  - q: hi\n    expect: [{text: a}]\n")
    with pytest.raises(CaseError, match="source"):
        load(tmp_path)


def test_the_golden_set_is_large_enough() -> None:
    cases = load()
    per_skill = Counter(c.skill for c in cases)
    assert len(cases) >= MIN_CASES, len(cases)
    small = {skill: n for skill, n in per_skill.items() if n < MIN_PER_SKILL}
    assert small == {}
    for skill, floor in MIN_LARGE_SKILLS.items():
        assert per_skill[skill] >= floor, (skill, per_skill[skill])


def test_each_language_has_twins_of_most_english_date_name_and_search_cases() -> None:
    cases = load()
    found = twins(cases)
    short = {}
    for skill in TWINNED_SKILLS:
        english = [c for c in cases if c.skill == skill and c.lang == "en"]
        assert english and all(c.id for c in english), skill  # every one can be twinned
        for lang in OTHER_LANGUAGES:
            share = len(found.get((skill, lang), set())) / len(english)
            if share < MIN_TWIN_SHARE:
                short[(skill, lang)] = f"{share:.0%}"
    assert short == {}


def _write(directory: Path, name: str, text: str) -> None:
    (directory / name).write_text(text, encoding="utf-8")


ENGLISH_CASE = """skill: s
cases:
  - q: Ash Wednesday 2027
    id: ash-2027
    tags: [date]
    expect: [{text: "February 10, 2027"}]
    source: Roman Missal, Ash Wednesday
"""


def test_a_twin_takes_its_english_case_s_checks_and_source(tmp_path: Path) -> None:
    _write(tmp_path, "s.yaml", ENGLISH_CASE)
    _write(
        tmp_path,
        "s.es.yaml",
        "skill: s\ncases:\n  - q: Miércoles de Ceniza 2027\n    lang: es\n    twin: ash-2027\n"
        "    form_source: Misal Romano\n",
    )
    twin, english = sorted(load(tmp_path), key=lambda c: c.lang != "es")
    assert twin.expect == english.expect == ({"text": "February 10, 2027"},)
    assert twin.source == "Roman Missal, Ash Wednesday; language form: Misal Romano"
    assert twin.tags == ("date",) and twin.twin == "ash-2027" and not twin.id
    assert twins([english, twin]) == {("s", "es"): {"ash-2027"}}


@pytest.mark.parametrize(
    ("twin", "error"),
    [
        ("  - q: x\n    lang: es\n    twin: nothing\n", "no English case"),
        ("  - q: x\n    lang: es\n    twin: ash-2027\n    expect: [{text: March}]\n", "checks"),
        ("  - q: x\n    twin: ash-2027\n", "another language"),
    ],
)
def test_a_twin_of_no_english_case_or_with_other_checks_is_refused(
    tmp_path: Path, twin: str, error: str
) -> None:
    _write(tmp_path, "s.yaml", ENGLISH_CASE)
    _write(tmp_path, "s.es.yaml", "skill: s\ncases:\n" + twin)
    with pytest.raises(CaseError, match=error):
        load(tmp_path)


def test_an_id_given_twice_is_refused(tmp_path: Path) -> None:
    _write(tmp_path, "s.yaml", ENGLISH_CASE)
    _write(tmp_path, "s.en.yaml", ENGLISH_CASE)
    with pytest.raises(CaseError, match="twice"):
        load(tmp_path)


def test_the_judge_reports_what_is_wrong() -> None:
    case = Case(
        skill="s",
        index=1,
        lang="en",
        source="a reference work",
        q="q",
        expect=(
            {"text": "Second reading"},
            {"in_order": ["First reading", "Second reading"]},
            {"path": "popes.0.id", "is": "leo-xiv"},
            {"path": "popes.*.id", "has": "pius-xii"},
            {"no_text": "memorial"},
        ),
    )
    task = {
        "status": {"state": "completed"},
        "artifacts": [
            {
                "name": "x",
                "parts": [
                    {"kind": "text", "text": "Second  reading: Acts\nFirst reading: Is; Memorial"},
                    {"kind": "data", "data": {"popes": [{"id": "leo-xiii"}, {"id": "pius-xii"}]}},
                ],
            }
        ],
    }
    misses, _ = judge(case, task)
    assert len(misses) == 3
    assert "in_order" in misses[0]
    assert "leo-xiii" in misses[1]
    assert "memorial" in misses[2]


def test_the_judge_reads_the_first_n_items_and_any_of_several_values() -> None:
    case = Case(
        skill="s",
        index=1,
        lang="en",
        source="a reference work",
        q="q",
        expect=(
            {"path": "results.:2.id", "any": ["b", "z"]},
            {"path": "results.:2.id", "any": ["c"]},
            {"path": "results.0.title", "any": ["Novarum", "Vitae"]},
        ),
    )
    data = {"results": [{"id": "a", "title": "Rerum Novarum"}, {"id": "b"}, {"id": "c"}]}
    task = {
        "status": {"state": "completed"},
        "artifacts": [{"parts": [{"kind": "data", "data": data}]}],
    }
    misses, _ = judge(case, task)
    assert len(misses) == 1
    assert "holds none of ['c']" in misses[0]


@pytest.mark.parametrize("skill", sorted({c.skill for c in load()}))
def test_each_skill_is_above_the_floor(outcomes: list[Outcome], skill: str) -> None:
    skills, _, _ = figures(outcomes)
    misses = [o for o in outcomes if o.case.skill == skill and not o.right]
    assert skills.share(skill) >= SKILL_FLOOR, _report(misses)


def test_overall_and_every_language_above_the_floor(outcomes: list[Outcome]) -> None:
    _, langs, overall = figures(outcomes)
    misses = [o for o in outcomes if not o.right]
    assert overall.share("all") >= OVERALL_FLOOR, _report(misses)
    for lang in langs.total:
        assert langs.share(lang) >= LANGUAGE_FLOOR, (lang, _report(misses))


def test_every_held_out_case_names_its_source() -> None:
    for directory in HELDOUT_DIRS:
        cases = load(directory)
        assert cases, directory
        assert all(len(c.source) >= 8 for c in cases)


def test_the_held_out_sets_are_above_the_same_floors(heldout: list[Outcome]) -> None:
    skills, langs, overall = figures(heldout)
    misses = [o for o in heldout if not o.right]
    for skill in skills.total:
        assert skills.share(skill) >= SKILL_FLOOR, (skill, _report(misses))
    assert overall.share("all") >= OVERALL_FLOOR, _report(misses)
    for lang in langs.total:
        assert langs.share(lang) >= LANGUAGE_FLOOR, (lang, _report(misses))
