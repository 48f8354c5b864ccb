"""The language layer's diocese and clergy readers (``language/dioceses.py``,
``language/clergy.py``) on the forms the golden twins of ``diocese_lookup`` and
``person_lookup`` brought up: the Eastern Churches, the US territories, the names
that are no see's, the Curia's offices and cardinals named in CJK."""

from __future__ import annotations

import pytest

from magisterium_a2a.skills.dioceses.directory import Directory, builtin_dioceses
from magisterium_a2a.skills.language import dioceses
from magisterium_a2a.skills.language.tables import authored


@pytest.mark.parametrize(
    ("typed", "english"),
    [
        # The Eastern Churches: a jurisdiction named with its rite is an eparchy.
        ("费城乌克兰天主教总教区", "Ukrainian Archeparchy of Philadelphia"),
        ("ukraińska archieparchia filadelfijska", "Ukrainian Archeparchy of Philadelphia"),
        ("Eparquía caldea de Detroit", "Chaldean Eparchy of detroit"),
        ("디트로이트 칼데아 교구", "Chaldean Eparchy of Detroit"),
        ("Arcieparchia cattolica bizantina di Pittsburgh", "Byzantine Archeparchy of pittsburgh"),
        # Names that are no see's: the territories, the military archdiocese, the Ordinariate.
        ("Nördliche Marianen", "Northern Mariana Islands"),
        ("アメリカ領ヴァージン諸島", "US Virgin Islands"),
        ("Samoa thuộc Mỹ", "American Samoa"),
        ("괌", "Guam"),
        ("Arquidiócesis para los Servicios Militares", "Archdiocese of Military Services"),
        ("미국 군종교구", "Diocese of Military Services"),
        ("Ordinariato de la Cátedra de San Pedro", "Ordinariate of Chair of St. Peter"),
        # French elision, a see with its country, a double see in Japanese.
        ("Archidiocèse d'Anchorage", "Archdiocese of anchorage"),
        ("プエルトリコのサンフアン", "San Juan"),
        ("ファハルド＝ウマカオ司教区", "Diocese of Fajardo-Humacao"),
        ("라스베이거스 대교구", "Archdiocese of Las Vegas"),
    ],
)
def test_dioceses_named_in_other_languages(typed: str, english: str) -> None:
    assert dioceses.english_name(typed) == english


@pytest.mark.parametrize(
    "typed", ["Ukrainian Catholic Archeparchy of Philadelphia", "Guam", "Las Vegas archdiocese"]
)
def test_english_jurisdictions_are_left_to_the_engine(typed: str) -> None:
    assert dioceses.english_name(typed) is None


def test_the_diocese_table_s_other_names_and_rites_are_the_directory_s() -> None:
    directory = Directory(builtin_dioceses())
    for english in authored("dioceses")["also"]:
        assert directory.search(str(english)).outcome == "found", english
    names = " ".join(d.name for d in builtin_dioceses())
    for rite in authored("dioceses")["rites"]:
        assert f"{rite} " in names, rite
