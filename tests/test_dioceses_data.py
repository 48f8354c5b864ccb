"""The built-in directory of US jurisdictions holds together: ids, names and
codes are unique, every suffragan's metropolitan exists and heads the same
province, and the counts by type are those of the Church in the United States
(176 Latin sees in 32 provinces, 18 Eastern, the military archdiocese and the
ordinariate)."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from magisterium_a2a.skills.dioceses.directory import builtin_dioceses
from magisterium_a2a.skills.dioceses.model import METROPOLITAN_TYPES, Diocese

STATES = frozenset(
    re.findall(
        r"[A-Z]{2}",
        "AL AK AZ AR CA CO CT DE FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ "
        "NM NY NC ND OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY DC VI",
    )
)
EXPECTED_TYPES = {
    "archdiocese": 32,
    "diocese": 144,
    "archeparchy": 2,
    "eparchy": 16,
    "military_ordinariate": 1,
    "personal_ordinariate": 1,
}


@pytest.fixture(scope="module")
def dioceses() -> list[Diocese]:
    return list(builtin_dioceses())


def test_counts_by_type(dioceses: list[Diocese]) -> None:
    assert len(dioceses) == 196
    assert Counter(d.type for d in dioceses) == EXPECTED_TYPES
    latin = [
        d for d in dioceses if d.church == "Latin Church" and d.type in ("archdiocese", "diocese")
    ]
    assert len(latin) == 176
    eastern = [d for d in dioceses if d.church != "Latin Church"]
    assert len(eastern) == 18


def test_ids_names_and_codes_are_unique(dioceses: list[Diocese]) -> None:
    for field in ("id", "name"):
        values = Counter(getattr(d, field) for d in dioceses)
        assert [v for v, n in values.items() if n > 1] == [], field
    codes = Counter(
        code for d in dioceses for code in (d.catholic_hierarchy, d.gcatholic, d.wikidata) if code
    )
    assert [c for c, n in codes.items() if n > 1] == []


def test_every_suffragan_has_a_metropolitan_of_its_province(dioceses: list[Diocese]) -> None:
    by_id = {d.id: d for d in dioceses}
    for diocese in dioceses:
        if diocese.metropolitan is None:
            assert diocese.province is None, diocese.id
            continue
        head = by_id.get(diocese.metropolitan)
        assert head is not None, diocese.id
        assert head.type in METROPOLITAN_TYPES, diocese.id
        assert head.metropolitan == head.id, diocese.id
        assert head.province == diocese.province is not None, diocese.id
        assert head.church == diocese.church, diocese.id


def test_provinces(dioceses: list[Diocese]) -> None:
    heads = [d for d in dioceses if d.metropolitan == d.id]
    assert len(heads) == 34  # 32 Latin, the Ukrainian and the Ruthenian
    assert len({d.province for d in heads}) == 34
    # In the United States every Latin archdiocese but the military one is a metropolitan see.
    assert {d.id for d in heads if d.type == "archdiocese"} == {
        d.id for d in dioceses if d.type == "archdiocese"
    }
    sizes = Counter(d.province for d in dioceses if d.province)
    assert min(sizes.values()) == 2  # Washington and St. Thomas
    assert sizes["St. Paul and Minneapolis"] == 10
    outside = {d.id for d in dioceses if d.province is None}
    assert {"military-services", "ordinariate-chair-of-st-peter", "melkite-newton"} <= outside
    for diocese in dioceses:
        if diocese.province is None:
            assert diocese.church != "Latin Church" or diocese.type.endswith("ordinariate")


def test_places_and_years(dioceses: list[Diocese]) -> None:
    for diocese in dioceses:
        assert diocese.country == "US", diocese.id
        assert diocese.state is None or diocese.state in STATES, diocese.id
        assert diocese.erected is None or 1789 <= diocese.erected <= 2026, diocese.id
    by_id = {d.id: d for d in dioceses}
    assert by_id["baltimore"].erected == 1789  # the first see of the United States
    assert min(d.erected for d in dioceses if d.erected) == 1789
    assert by_id["chicago"].see == "Chicago" and by_id["chicago"].cathedral == "Holy Name Cathedral"
