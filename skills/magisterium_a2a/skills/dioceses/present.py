"""How the diocese skills put a jurisdiction, an ambiguity and a yearly series
into words and data parts."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from magisterium_a2a.plugin import Part, data_part, text_part
from magisterium_a2a.skills.dioceses.directory import Directory, Match
from magisterium_a2a.skills.dioceses.engine import Financials, suffragans
from magisterium_a2a.skills.dioceses.model import FINANCIAL_FIELDS, Diocese

LABELS = {
    "catholics": "Catholics",
    "total_population": "population",
    "percent_catholic": "% Catholic",
    "diocesan_priests": "diocesan priests",
    "religious_priests": "religious priests",
    "total_priests": "priests",
    "catholics_per_priest": "Catholics per priest",
    "permanent_deacons": "permanent deacons",
    "male_religious": "male religious",
    "female_religious": "female religious",
    "parishes": "parishes",
    "seminarians": "seminarians",
    "baptisms": "baptisms",
    "confirmations": "confirmations",
    "first_communions": "first communions",
    "marriages": "marriages",
    "ordinations": "ordinations",
    "schools": "schools",
    "hospitals": "hospitals",
    "welfare_institutions": "welfare institutions",
    "marriage_nullity_processes": "marriage-nullity processes",
    "total_revenue": "total revenue",
    "total_expenses": "total expenses",
    "net_assets": "net assets",
}
TYPE_WORDS = {
    "military_ordinariate": "military ordinariate",
    "personal_ordinariate": "personal ordinariate",
}


def figure(value: float | int) -> str:
    return f"{value:,}" if isinstance(value, int) else f"{value:,.1f}"


def record(directory: Directory, diocese: Diocese) -> dict[str, Any]:
    """The directory record as data, with the suffragans of a metropolitan."""
    data: dict[str, Any] = diocese.model_dump()
    data["suffragans"] = [d.id for d in suffragans(directory, diocese)]
    return data


def describe(directory: Directory, diocese: Diocese) -> list[str]:
    kind = TYPE_WORDS.get(diocese.type, diocese.type.replace("_", " "))
    church = ", ".join(
        x for x in (diocese.church, f"{diocese.rite} rite" if diocese.rite else None) if x
    )
    lines = [f"{diocese.name} (id: {diocese.id})", f"{kind.capitalize()}; {church}"]
    place = ", ".join(x for x in (diocese.see, diocese.state, diocese.country) if x)
    if place:
        lines.append(f"See: {place}")
    if diocese.cathedral:
        co = f"; co-cathedral: {diocese.co_cathedral}" if diocese.co_cathedral else ""
        lines.append(f"Cathedral: {diocese.cathedral}{co}")
    metropolitan = directory.get(diocese.metropolitan) if diocese.metropolitan else None
    if diocese.metropolitan == diocese.id:
        names = ", ".join(d.name for d in suffragans(directory, diocese))
        lines.append(
            f"Metropolitan see of the Province of {diocese.province}"
            + (f"; suffragans: {names}" if names else "")
        )
    elif metropolitan is not None:
        lines.append(f"Suffragan of the {metropolitan.name} (Province of {diocese.province})")
    elif diocese.province is not None:
        lines.append(
            f"Suffragan see of the Province of {diocese.province} "
            "(its metropolitan is not in this directory)"
        )
    elif diocese.country == "US":
        lines.append("Immediately subject to the Holy See")
    if diocese.erected:
        lines.append(f"Erected: {diocese.erected}")
    codes = [
        f"{label} {code}"
        for label, code in (
            ("Catholic-Hierarchy", diocese.catholic_hierarchy),
            ("GCatholic", diocese.gcatholic),
            ("Wikidata", diocese.wikidata),
        )
        if code
    ]
    if codes:
        lines.append("Codes: " + "; ".join(codes))
    return lines


def year_line(row: dict[str, Any], metrics: Sequence[str]) -> str:
    shown = []
    for metric in metrics:
        value = row.get(metric)
        if value is None:
            continue
        if metric == "percent_catholic":
            shown.append(f"{figure(value)}% Catholic")
        else:
            shown.append(f"{LABELS[metric]} {figure(value)}")
    body = "; ".join(shown) if shown else "no figures"
    source = f" [source: {row['source']}]" if row.get("source") else ""
    return f"  {row['year']}: {body}{source}"


def financial_line(financials: Financials) -> str:
    values = [
        f"{LABELS[name]} {figure(v)}"
        for name in FINANCIAL_FIELDS
        if (v := financials.as_data()[name]) is not None
    ]
    currency = f", {financials.currency}" if financials.currency else ""
    source = f" [source: {'; '.join(financials.sources)}]" if financials.sources else ""
    return f"Financial totals ({financials.year}{currency}): {'; '.join(values)}{source}"


def ambiguous(query: str | None, matches: Sequence[Match]) -> tuple[str, dict[str, Any]]:
    lines = [f"Several jurisdictions match {query!r}; ask again with one of these ids:"]
    entries = []
    for n, match in enumerate(matches, start=1):
        d = match.diocese
        place = ", ".join(x for x in (d.see, d.state, d.country) if x)
        lines.append(f"{n}. {d.name} ({place}) — id: {d.id}")
        entries.append(
            {
                "id": d.id,
                "name": d.name,
                "type": d.type,
                "see": d.see,
                "state": d.state,
                "country": d.country,
                "score": match.score,
            }
        )
    return "\n".join(lines), {"matches": entries}


def parts(text: str, data: dict[str, Any] | None) -> list[Part]:
    """An answer's parts: the text, then its records when there are any."""
    return [text_part(text)] if data is None else [text_part(text), data_part(data)]
