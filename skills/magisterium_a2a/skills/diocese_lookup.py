"""``diocese_lookup``: one jurisdiction's directory record, the last five years
of headline statistics and the latest financial totals, once imported.

Input: a name as text ("Archdiocese of Chicago", "diocese of st. paul"), or a
data part ``{"query", "diocese_id", "source_code"}``. Output: the artifact
``diocese`` with a text part and a data part ``{"diocese", "statistics",
"statistics_loaded", "financials"}``; several equally good matches give
``{"matches": [...]}`` with their ids; nothing gives ``No diocese found.``
A bad data part fails the task with a sentence naming the field.
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
)
from magisterium_a2a.skills.dioceses import present
from magisterium_a2a.skills.dioceses.engine import (
    NOT_FOUND,
    DioceseEngine,
    DioceseRequest,
    parse_request,
)
from magisterium_a2a.skills.dioceses.model import HEADLINE
from magisterium_a2a.skills.engines import diocese_engine
from magisterium_a2a.skills.language.dioceses import english_name

ARTIFACT = "diocese"
SKILL_ID = "diocese_lookup"
RECENT_YEARS = 5


def answer(engine: DioceseEngine, request: DioceseRequest) -> tuple[str, dict[str, Any] | None]:
    """The text and data of the answer (no data: not found)."""
    result = engine.resolve(request)
    if result.outcome == "none":
        return NOT_FOUND, None
    if result.outcome == "ambiguous":
        return present.ambiguous(request.query, result.matches)
    diocese = result.matches[0].diocese
    directory = engine.directory()
    lines = present.describe(directory, diocese)
    years = engine.years(diocese.id)[-RECENT_YEARS:]
    if years:
        lines.append(f"Statistics (the last {len(years)} years on record):")
        lines.extend(present.year_line(row, HEADLINE) for row in reversed(years))
    else:
        lines.append("No statistics are loaded for this jurisdiction.")
    financials = engine.financials(diocese.id)
    if financials is not None:
        lines.append(present.financial_line(financials))
    data = {
        "diocese": present.record(directory, diocese),
        "statistics": years,
        "statistics_loaded": bool(years),
        "financials": financials.as_data() if financials else None,
    }
    return "\n".join(lines), data


def create(env: SkillEnvironment) -> FunctionSkill:
    engine = diocese_engine(env)

    async def handle(message: Message, context: SkillContext) -> Sequence[Artifact]:
        request = parse_request(message, DioceseRequest, SKILL_ID)
        if request.query and (english := english_name(request.query)) is not None:
            request = request.model_copy(update={"query": english})
        return [context.artifact(ARTIFACT, present.parts(*answer(engine, request)))]

    return FunctionSkill(
        id=SKILL_ID,
        name="Diocese lookup",
        description=(
            "A Catholic jurisdiction (archdiocese, diocese, eparchy, ordinariate) by name, id "
            "or directory code: rite, province and metropolitan, see, cathedral, year erected; "
            "the last five years of statistics and the latest financial totals once imported."
        ),
        handler=handle,
        tags=("dioceses", "directory", "hierarchy"),
        examples=(
            "Archdiocese of Chicago",
            "diocese of st. paul",
            '{"diocese_id": "boston"}',
            "Arquidiócesis de Los Ángeles",
            "ロサンゼルス大司教区",
        ),
        cheap=True,
    )
