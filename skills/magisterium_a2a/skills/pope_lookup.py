"""``pope_lookup``: a pope by name or id — pontificate dates, regnal name and
ordinal, Latin and birth names, birth date and place, beatification and
canonization — from the built-in list of all 267 pontificates; also the
questions people ask without a name ("the current pope", "the pope before
Francis", "the pope who opened the Second Vatican Council", "the pope who wrote
Rerum Novarum"), answered from the facts (``people.questions``).

The artifact ``pope`` carries a text part (one pope described, or the ranked
candidates with their ids when a name fits several) and a data part
``{"popes": [...]}``; asked about an antipope it says he was not a pope.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from magisterium_a2a.plugin import (
    Artifact,
    FunctionSkill,
    Message,
    SkillContext,
    SkillEnvironment,
    data_part,
    text_part,
)
from magisterium_a2a.skills.engines import people_directory
from magisterium_a2a.skills.language.popes import english_name
from magisterium_a2a.skills.people.directory import PeopleDirectory
from magisterium_a2a.skills.people.popes import Antipope, Pope, PopeAnswer
from magisterium_a2a.skills.people.requests import ordinal_suffix, read_lookup

ARTIFACT = "pope"
NOT_FOUND = "No pope found."
INSTALLED = "installed"


def describe(pope: Pope, person_id: str | None) -> str:
    places = [ordinal_suffix(p.number) for p in pope.pontificates]
    numbers = " and ".join([", ".join(places[:-1]), places[-1]] if len(places) > 1 else places)
    lines = [f"{pope.name} (Latin: {pope.latin_name}), the {numbers} pope — pope_id {pope.id}"]
    born = ", ".join(x for x in (pope.born, pope.birthplace) if x)
    birth = ", ".join(x for x in (pope.birth_name, born) if x)
    if birth:
        lines.append(f"Born {birth}.")
    for term in pope.pontificates:
        steps = [f"elected {term.elected}" if term.elected else "beginning not dated"]
        if term.installed:
            steps.append(f"{INSTALLED} {term.installed}")
        if term.ended is None and term.end is None:
            steps.append("reigning")
        else:
            ending = f"ended {term.ended or 'date unknown'}"
            steps.append(f"{ending} ({term.end})" if term.end else ending)
        label = f"Pontificate {term.number}" if len(pope.pontificates) > 1 else "Pontificate"
        lines.append(f"{label}: {'; '.join(steps)}.")
    if pope.died:
        lines.append(f"Died {pope.died}.")
    if pope.status:
        steps = [pope.status.capitalize()]
        if pope.beatified:
            steps.append(f"beatified {pope.beatified}")
        if pope.canonized:
            steps.append(f"canonized {pope.canonized}")
        text = ", ".join(steps)
        if pope.saint_id:
            text += f" (saint_lookup id {pope.saint_id})"
        lines.append(f"{text}.")
    if pope.note:
        lines.append(pope.note)
    if person_id:
        lines.append(f"person_lookup id: {person_id}.")
    return "\n".join(lines)


def antipope_sentence(antipope: Antipope) -> str:
    known = f", born {antipope.birth_name}," if antipope.birth_name else ""
    text = (
        f"{antipope.name}{known} ({antipope.years}) was an antipope, not a pope: "
        "the list of the Roman pontiffs does not count him."
    )
    return f"{text} {antipope.note}" if antipope.note else text


def record(pope: Pope, score: float, directory: PeopleDirectory) -> dict[str, Any]:
    data = pope.record()
    person = directory.person_of_pope(pope.id)
    data["person_id"] = person.id if person is not None else None
    data["score"] = score
    return data


def answer(query: str | None, ident: str | None, directory: PeopleDirectory) -> PopeAnswer:
    """By id; else a descriptive question ("the pope before Francis") answered from
    the facts; else the name search."""
    if ident is not None:
        pope = directory.popes.get(ident)
        return PopeAnswer(popes=[(pope, 100.0)], exact=True) if pope else PopeAnswer()
    if not query:
        return PopeAnswer()
    resolved = directory.questions.resolve(query)
    if resolved is not None:
        popes = [(pope, 100.0) for pope in resolved.popes]
        return PopeAnswer(popes=popes, exact=len(popes) == 1, because=resolved.because)
    return directory.popes.search(query)


def create(env: SkillEnvironment) -> FunctionSkill:
    directory = people_directory(env)

    async def handle(message: Message, context: SkillContext) -> Sequence[Artifact]:
        lookup = read_lookup(message, "pope_id", "leo-xiv")
        english = english_name(lookup.query) if lookup.query else None
        found = answer(english or lookup.query, lookup.ident, directory)
        if found.antipopes:
            text = "\n".join(antipope_sentence(a) for a in found.antipopes)
            named = {"popes": [], "antipopes": [a.model_dump() for a in found.antipopes]}
            return [context.artifact(ARTIFACT, [text_part(text), data_part(named)])]
        if not found.popes:
            return [context.artifact(ARTIFACT, [text_part(NOT_FOUND)])]
        if found.single:
            pope, score = found.popes[0]
            person = directory.person_of_pope(pope.id)
            text = describe(pope, person.id if person else None)
            records = [record(pope, score, directory)]
        else:
            lines = [f"Several popes match {lookup.query!r}; ask again with one of these ids:"]
            lines += [f"- {p.id}: {p.name} ({p.span()})" for p, _ in found.popes]
            text = "\n".join(lines)
            records = [record(p, s, directory) for p, s in found.popes]
        if found.because:
            text = f"{found.because}\n{text}"
        return [context.artifact(ARTIFACT, [text_part(text), data_part({"popes": records})])]

    return FunctionSkill(
        id="pope_lookup",
        name="Pope lookup",
        description=(
            "A pope by name or id: pontificate dates, papal name and ordinal, Latin and birth "
            "names, birth date and place, beatification and canonization. A name that fits "
            "several popes returns them ranked with their ids. Also answers 'the current "
            "pope', 'the pope before Francis', 'the pope who opened Vatican II'."
        ),
        handler=handle,
        tags=("popes", "papacy", "history"),
        examples=(
            "Leo XIV",
            "John Paul the Second",
            "Gregory the Great",
            "the pope who opened the Second Vatican Council",
            "pius-x",
            "Juan Pablo II",
            "ヨハネ・パウロ2世",
            "若望保祿二世",
            "Gioan Phaolô II",
        ),
        cheap=True,
    )
