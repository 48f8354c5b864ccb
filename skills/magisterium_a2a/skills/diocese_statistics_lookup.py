"""``diocese_statistics_lookup``: one jurisdiction's yearly series of our 19
metrics (plus total priests and Catholics per priest, derived), as imported.

Input: a name as text, or a data part ``{"query", "diocese_id", "source_code",
"year", "year_from", "year_to", "metrics"}``. Output: the artifact
``diocese_statistics`` with a text part (one line per year) and a data part
``{"diocese", "metrics", "years", "statistics_loaded"}``. No figures are built
in: until an operator imports some, the answer says so. Ambiguous and unknown
names are answered as ``diocese_lookup`` answers them.
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
    StatisticsRequest,
    parse_request,
)
from magisterium_a2a.skills.dioceses.model import DERIVED, METRICS
from magisterium_a2a.skills.engines import diocese_engine
from magisterium_a2a.skills.language.dioceses import english_name

ARTIFACT = "diocese_statistics"
SKILL_ID = "diocese_statistics_lookup"


def answer(engine: DioceseEngine, request: StatisticsRequest) -> tuple[str, dict[str, Any] | None]:
    result = engine.resolve(request)
    if result.outcome == "none":
        return NOT_FOUND, None
    if result.outcome == "ambiguous":
        return present.ambiguous(request.query, result.matches)
    diocese = result.matches[0].diocese
    metrics = list(request.metrics or (*METRICS, *DERIVED))
    year_from, year_to = request.years()
    rows = engine.years(diocese.id, year_from, year_to)
    years = [{"year": r["year"], **{m: r[m] for m in metrics}, "source": r["source"]} for r in rows]
    data: dict[str, Any] = {
        "diocese": {"id": diocese.id, "name": diocese.name},
        "metrics": metrics,
        "years": years,
        "statistics_loaded": bool(years),
    }
    if not years:
        if (year_from is None and year_to is None) or not engine.years(diocese.id):
            text = f"No statistics are loaded for the {diocese.name}."
        else:
            text = (
                f"No statistics of the {diocese.name} are loaded for {_span(year_from, year_to)}."
            )
        return text, data
    first, last = years[0]["year"], years[-1]["year"]
    span = str(first) if first == last else f"{first}-{last}"
    lines = [f"Statistics of the {diocese.name}, {span} ({len(years)} years):"]
    lines.extend(present.year_line(row, metrics) for row in years)
    return "\n".join(lines), data


def _span(year_from: int | None, year_to: int | None) -> str:
    if year_from == year_to:
        return str(year_from)
    if year_from is None:
        return f"the years up to {year_to}"
    if year_to is None:
        return f"the years from {year_from}"
    return f"{year_from}-{year_to}"


def create(env: SkillEnvironment) -> FunctionSkill:
    engine = diocese_engine(env)

    async def handle(message: Message, context: SkillContext) -> Sequence[Artifact]:
        request = parse_request(message, StatisticsRequest, SKILL_ID)
        if request.query and (english := english_name(request.query)) is not None:
            request = request.model_copy(update={"query": english})
        return [context.artifact(ARTIFACT, present.parts(*answer(engine, request)))]

    return FunctionSkill(
        id=SKILL_ID,
        name="Diocese statistics lookup",
        description=(
            "The yearly series of one diocese's statistics (Catholics, population, priests, "
            "deacons, religious, parishes, sacraments, institutions: 19 metrics), optionally "
            "for a range of years or chosen metrics; served once an operator has imported them."
        ),
        handler=handle,
        tags=("dioceses", "statistics", "hierarchy"),
        examples=(
            "Archdiocese of Boston",
            "Arquidiócesis de Nueva York",
            '{"diocese_id": "chicago", "year_from": 2010, "metrics": ["catholics", "parishes"]}',
        ),
        cheap=True,
    )
