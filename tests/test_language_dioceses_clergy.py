"""The language layer's diocese and clergy readers (``language/dioceses.py``,
``language/clergy.py``) on the forms the golden twins of ``diocese_lookup`` and
``person_lookup`` brought up: the Eastern Churches, the US territories, the names
that are no see's, the Curia's offices and cardinals named in CJK."""

from __future__ import annotations

import pytest

from magisterium_a2a.skills.dioceses.directory import Directory, builtin_dioceses
from magisterium_a2a.skills.language import clergy, dioceses
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
        ("关岛总教区", "Archdiocese of Guam"),
        ("Arquidiócesis para los Servicios Militares", "Archdiocese of Military Services"),
        ("미국 군종교구", "Diocese of Military Services"),
        ("Ordinariato de la Cátedra de San Pedro", "Ordinariate of Chair of St. Peter"),
        # French elision, a see with its country, a double see in Japanese.
        ("Archidiocèse d'Anchorage", "Archdiocese of anchorage"),
        ("プエルトリコのサンフアン", "San Juan"),
        ("ファハルド\uff1dウマカオ司教区", "Diocese of Fajardo-Humacao"),
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


@pytest.mark.parametrize(
    ("typed", "english"),
    [
        # Another language's question words or article: the name left is looked up alone.
        ("¿Quién es Pietro Parolin?", "pietro parolin"),
        ("Kim jest Michael Czerny?", "michael czerny"),
        ("Prevost là ai?", "prevost"),
        ("Sino si Giovanni Battista Re?", "giovanni battista re"),
        ("le cardinal Parolin", "Cardinal parolin"),
        ("o camerlengo", "Camerlengo of the Holy Roman Church"),
        # Popes: the pope layer reads the name; the title alone is "Pope".
        ("papa Francisco", "Pope Francis"),
        ("教皇レオ14世", "Pope Leo XIV"),
        ("Papst Leo XIV.", "Pope leo xiv"),
        ("Đức Giáo hoàng Lêô XIV", "Pope leo xiv"),
        # Offices with the Holy See named, in every script; the Tagalog mix of English words.
        ("Sekretarz Stanu Stolicy Apostolskiej", "Secretary of State"),
        ("Quốc vụ khanh Tòa Thánh", "Secretary of State"),
        ("교황청 국무원장", "Secretary of State"),
        ("Hồng y Nhiếp chính", "Camerlengo of the Holy Roman Church"),
        ("枢機卿団の首席枢機卿", "Dean of the College of Cardinals"),
        ("Sino ang Secretary of State ng Vatican?", "Secretary of State"),
        ("圣座国务卿", "Secretary of State"),
        ("羅馬聖教會總司庫", "Camerlengo of the Holy Roman Church"),
        # Cardinals named in CJK, with a given name or by the surname and title.
        ("ケビン・ファレル枢機卿", "kevin-farrell"),
        ("윌턴 그레고리 추기경", "wilton-daniel-gregory"),
        ("維克多·曼努埃爾·費爾南德斯樞機", "victor-manuel-fernandez"),
        ("バーク枢機卿", "raymond-leo-burke"),
        # A name in Latin script among CJK words: the name before its see.
        ("芝加哥的Cupich樞機", "Cardinal cupich of Chicago"),
    ],
)
def test_clergy_asked_for_in_other_languages(typed: str, english: str) -> None:
    assert clergy.english_query(typed) == english


@pytest.mark.parametrize(
    "typed",
    ["Pope Francis", "Leo XIV", "Cardinal O'Malley", "O'Malley", "Angelo De Donatis"],
)
def test_clergy_in_english_stay_the_engine_s(typed: str) -> None:
    assert clergy.english_query(typed) is None


def test_each_name_of_the_clergy_table_alone_is_its_person() -> None:
    for ident, forms in authored("clergy")["names"].items():
        for form in forms:
            assert clergy.english_query(str(form)) == ident, form


def test_a_surname_two_cardinals_share_is_no_one_s_name() -> None:
    # Víctor Manuel and Ángel Fernández Artime: the table names the prefect in full only.
    assert clergy.english_query("フェルナンデス枢機卿") == "Cardinal フェルナンデス"
