"""Saints named in our languages (skills/language/saints.py and data/language/saints.yaml):
the classes of names the saint_lookup twins found unread (bench/answers/cases/
saint_lookup.<lang>.yaml), each fixed in the layer's steps or tables and checked here."""

from __future__ import annotations

import pytest

from magisterium_a2a.skills.language import saints


@pytest.mark.parametrize(
    ("typed", "ident"),
    [
        # A pope's title around the name, in any of our languages.
        ("papa San Juan XXIII", "john_xxiii_pope"),
        ("papa Pablo VI", "paul_vi_pope"),
        ("Papst Johannes Paul II.", "john_paul_ii_pope"),
        ("pape Paul VI", "paul_vi_pope"),  # an English name, but "pape" is not English
        ("papież Leon Wielki", "leo_i_the_great_pope"),
        ("Giáo hoàng Gioan Phaolô II", "john_paul_ii_pope"),
        ("教宗若望保禄二世", "john_paul_ii_pope"),
        ("教皇パウロ6世", "paul_vi_pope"),
        ("교황 바오로 6세", "paul_vi_pope"),
        ("대 레오 교황", "leo_i_the_great_pope"),
        # A leading article before a name or a nickname.
        ("el Cura de Ars", "john_mary_vianney_priest"),
        ("le Curé d'Ars", "john_mary_vianney_priest"),
        ("l'archange Gabriel", "gabriel_archangel"),
        ("der Völkerapostel", "paul_apostle"),
        ("o Doutor Angélico", "thomas_aquinas_priest"),
        # Italian's elided Sant'.
        ("Sant'Agostino di Canterbury", "augustine_of_canterbury_bishop"),
        # A question about the feast around the name (\uff1f: a full-width question mark).
        ("¿Cuándo es la fiesta de santa Teresa de Calcuta?", "teresa_of_calcutta_religious"),
        ("Quand fête-t-on sainte Teresa de Calcutta ?", "teresa_of_calcutta_religious"),
        (
            "Wann ist der Gedenktag der heiligen Teresa von Kalkutta?",
            "teresa_of_calcutta_religious",
        ),
        ("Kiedy jest wspomnienie świętej Teresy z Kalkuty?", "teresa_of_calcutta_religious"),
        ("Lễ Thánh Têrêsa Calcutta là ngày nào?", "teresa_of_calcutta_religious"),
        ("Kailan ang kapistahan ni Santa Teresa ng Calcutta?", "teresa_of_calcutta_religious"),
        ("コルカタの聖テレサの祝日はいつですか\uff1f", "teresa_of_calcutta_religious"),
        ("콜카타의 성녀 데레사 축일은 언제입니까?", "teresa_of_calcutta_religious"),
        ("加爾各答的聖德蘭瞻禮是哪天\uff1f", "teresa_of_calcutta_religious"),
        ("wer war der heilige Maximilian Kolbe", "maximilian_mary_raymund_kolbe_priest"),
        # Names of the table: saints of the Martyrology, nicknames, Traditional Chinese.
        ("San Valentín", "mr:0214-valentinus"),
        ("洗礼者ヨハネ", "mr:0624-ioannes-baptista"),
        ("성녀 페르페투아와 펠리치타스", "mr:0307-perpetua-et-felicitas"),
        ("Tomás el incrédulo", "thomas_apostle"),
        ("小さき花のテレジア", "therese_of_the_child_jesus_and_the_holy_face_of_lisieux_virgin"),
        ("聖基道霍", "christopher_of_palestine_martyr"),
        ("Thánh Giuse Thợ", "joseph_spouse_of_mary"),
    ],
)
def test_names_the_twins_found_unread(typed: str, ident: str) -> None:
    assert saints.saint_id(typed) == ident


@pytest.mark.parametrize(
    "typed",
    [
        # A pope who is no saint: his name must not fall on a saint who bears it.
        "프란치스코 교황",
        "教宗方济各",
        "教皇フランシスコ",
        "papa Francisco",
        "papież Franciszek",
        "Papst Benedikt XVI.",
        # An article alone, or English left to the engine.
        "el",
        "the Curé of Ars",
        "Pope Paul VI",
    ],
)
def test_popes_who_are_no_saints_and_english_are_not_read(typed: str) -> None:
    assert saints.saint_id(typed) is None


@pytest.mark.parametrize(
    ("typed", "english"),
    [
        ("patrono de las escuelas católicas", "patron of Catholic schools"),
        ("カトリック学校の守護聖人", "patron of Catholic schools"),
        ("patrona dei musicisti", "patron of musicians"),
        ("padroeira dos músicos", "patron of musicians"),
        ("santo patrono dell'Irlanda", "patron of Ireland"),
        ("patrono d'Europa", "patron of Europe"),
        ("chi è il santo patrono dell'ecologia?", "patron of ecology"),
    ],
)
def test_patronages_with_elided_articles_and_feminine_words(typed: str, english: str) -> None:
    assert saints.english_query(typed) == english
