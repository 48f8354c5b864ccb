"""The language layer (skills/language): script folding, language detection, dates,
popes, saints and dioceses named in our languages, the tables pointing at ids the
engines know, English left to the engines, and hostile text in any script. The
answers themselves, end to end in every language, are the golden set's
(bench/answers/cases/*.<lang>.yaml); timings are in bench/language_layer.py."""

from __future__ import annotations

import logging
from datetime import UTC, date, datetime
from importlib.resources import files
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from magisterium_a2a.server.clock import ManualClock
from magisterium_a2a.server.config import Settings
from magisterium_a2a.skills.language import build_romcal_names, dioceses, popes, saints
from magisterium_a2a.skills.language.celebrations import celebration_id, ordinal_sunday
from magisterium_a2a.skills.language.dates import english_form, resolve
from magisterium_a2a.skills.language.detect import detect
from magisterium_a2a.skills.language.numerals import number_of, roman
from magisterium_a2a.skills.language.phrases import match_form
from magisterium_a2a.skills.language.scripts import clean, key
from magisterium_a2a.skills.language.tables import _text, authored
from magisterium_a2a.skills.liturgy.calendar import LiturgicalCalendar
from magisterium_a2a.skills.liturgy.dates import DateQueryParser
from magisterium_a2a.skills.people.popes import builtin_popes
from tests.support import harness
from tests.test_architecture import GRAPH

TODAY = date(2026, 12, 1)  # a Tuesday, the golden set's today


# --- scripts and numerals -------------------------------------------------------------


@pytest.mark.parametrize(
    ("typed", "cleaned"),
    [
        ("２０２６年１２月２５日", "2026年12月25日"),  # full-width digits
        ("\u202eJuan Pablo II\u202c", "Juan Pablo II"),  # right-to-left override, pop
        ("San\u200b José\ufeff", "San José"),  # zero-width space, byte-order mark
        ("e\u0301", "é"),  # a combining accent, composed
        ("  Pfingst\u3000sonntag  ", "Pfingst sonntag"),  # ideographic space
    ],
)
def test_clean_folds_compatibility_forms_and_drops_invisible_characters(
    typed: str, cleaned: str
) -> None:
    assert clean(typed) == cleaned


@pytest.mark.parametrize(
    ("typed", "folded"),
    [
        ("Sant\u2019Ignazio di Loyola", "sant ignazio di loyola"),
        ("Jan Paweł II", "jan pawel ii"),
        ("Gioan Phaolô II", "gioan phaolo ii"),
        ("若望保祿二世", "若望保禄二世"),  # Traditional folded to Simplified
        ("ヨハネ・パウロ２世", "ヨハネ パウロ2世"),  # the kana's voicing mark stays (パ, not ハ)
        ("요한 바오로 2세", "요한 바오로 2세"),  # Hangul stays whole
    ],
)
def test_key_is_the_form_two_spellings_meet_in(typed: str, folded: str) -> None:
    assert key(typed) == folded


def test_numerals() -> None:
    assert [number_of(n) for n in ("二", "十二", "二十三", "三十四", "7")] == [2, 12, 23, 34, 7]
    assert number_of("xxiii", roman=True) == 23
    assert number_of("xxiii") is None
    assert number_of("一百零一") is None
    assert roman(14) == "XIV"


# --- detection ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("다음 주일", "ko"),
        ("来週の日曜日", "ja"),
        ("下周日的读经", "zh-Hans"),
        ("下週日的讀經", "zh-Hant"),
        ("¿Qué enseña la Iglesia sobre la anticoncepción?", "es"),
        ("Was lehrt die Kirche über Empfängnisverhütung?", "de"),
        ("Czego Kościół naucza o antykoncepcji?", "pl"),
        ("Giáo hội dạy gì về ngừa thai nhân tạo?", "vi"),
        ("Ano ang itinuturo ng Simbahan tungkol sa kontrasepsyon?", "tl"),
        ("12345", None),
    ],
)
def test_detect(text: str, language: str | None) -> None:
    assert detect(text) == language


# --- dates ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("typed", "english"),
    [
        ("Miércoles de Ceniza 2027", "ash wednesday 2027"),
        ("Pfingstsonntag 2027", "pentecost sunday 2027"),
        ("Noël", "nativity of the lord"),
        ("Lễ Lá 2027", "palm sunday of the passion of the lord 2027"),  # filler words only
        ("Lễ Các Thánh", "all saints"),
        ("復活祭", "easter sunday"),
        ("성탄절", "nativity of the lord"),
        ("聖誕節", "nativity of the lord"),
        ("nächsten Sonntag", "next sunday"),
        ("el domingo que viene", "next sunday"),
        ("다음 주일", "next sunday"),
        ("次の日曜日", "next sunday"),
        ("下主日", "next sunday"),
        ("domenica scorsa", "last sunday"),
        ("bukas", "tomorrow"),
        ("3er domingo de Cuaresma 2027", "3 sunday of lent 2027"),
        ("사순 제3주일", "3 sunday of lent"),
        ("四旬期第三主日", "3 sunday of lent"),
        ("Chúa Nhật III Mùa Chay", "3 sunday of lent"),
        ("3. Fastensonntag", "3 sunday of lent"),
        ("XXXIII Domingo del Tiempo Ordinario", "33 sunday of ordinary time"),
        ("2026年12月25日", "2026-12-25"),
        ("１２月２５日の朗読", "2026-12-25"),
        ("2026년 12월 25일 독서", "2026-12-25"),
        ("lecturas del 25 de diciembre de 2026", "2026-12-25"),
        ("19. März 2027", "2027-03-19"),
        ("ngày 19 tháng 3 năm 2027", "2027-03-19"),
        ("Marso 19, 2027", "2027-03-19"),
        ("明天的讀經", "2026-12-02"),
        # A weekday "of next week" counts weeks from Monday, as these civil calendars do.
        ("来週の日曜日", "2026-12-13"),
        ("下周日", "2026-12-13"),
        ("지난 주 일요일", "2026-11-29"),
    ],
)
def test_date_queries_in_other_languages_become_the_engines_english(
    typed: str, english: str
) -> None:
    assert english_form(typed, TODAY) == english


@pytest.mark.parametrize(
    "typed",
    [
        "Lunes de Pascua",  # only whole names: not "Pascua"
        "Miércoles de Ceniza 2027 2028",  # two years
        "Juan Pablo II",
        "diciembre 2026",  # no day
        "30 de febrero de 2027",
        "2027年2月30日",
        "x" * 301,
        "12/08/2026",  # 12 August or 8 December: the layer guesses no more than the engine
        "08.12.2026",
        "3-4-2027",
        "2026-13-01",  # no ISO date: not read again as 13 January
    ],
)
def test_what_is_not_one_date_is_left_alone(typed: str) -> None:
    assert english_form(typed, TODAY) is None


def test_a_numeric_date_whose_order_is_certain_is_read() -> None:
    assert english_form("25/12/2026", TODAY) == "2026-12-25"
    assert english_form("7.7.2027", TODAY) == "2027-07-07"


ENGLISH = [
    "today",
    "next Sunday",
    "Easter Sunday 2026",
    "2026-12-25",
    "march 3",
    "3rd of March",
    "Dec 25th",
    "Wednesday, March 4 2026",
    "Christmas 2030",
    "Ash Wednesday 2027",
    "3rd Sunday of Lent 2027",
    "Pentecost",
]


@pytest.mark.parametrize("query", ENGLISH)
def test_what_the_engine_reads_is_read_once_and_as_before(query: str) -> None:
    parser = DateQueryParser(LiturgicalCalendar())
    asked: list[str] = []

    def read(text: str) -> date | None:
        asked.append(text)
        return parser.parse(text, TODAY)

    assert resolve(query, TODAY, read) == parser.parse(query, TODAY) is not None
    assert asked == [query]


def test_the_celebration_tables_name_celebrations_the_engine_finds() -> None:
    parser = DateQueryParser(LiturgicalCalendar())
    for ident in authored("celebrations")["celebrations"]:
        words = ident.replace("_", " ")
        # In some years a Sunday outranks a feast (Guadalupe on 12 December 2027).
        found = [parser.parse(f"{words} {year}", TODAY) for year in (2026, 2027)]
        assert found != [None, None], ident
    assert celebration_id(match_form("Miércoles de Ceniza")) == "ash_wednesday"
    assert ordinal_sunday(match_form("2º domingo de Pascua")) == "2 sunday of easter"


def test_no_name_of_the_team_s_tables_names_two_celebrations() -> None:
    seen: dict[str, str] = {}
    for ident, languages in authored("celebrations")["celebrations"].items():
        for names in languages.values():
            for name in names:
                form = match_form(str(name))
                assert form, name
                assert seen.setdefault(form, ident) == ident, (name, ident, seen[form])


def test_the_generated_romcal_table_is_current(capsys: pytest.CaptureFixture[str]) -> None:
    build_romcal_names.main()
    assert capsys.readouterr().out == _text("romcal-names.tsv")


# --- names ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("typed", "english"),
    [
        ("Juan Pablo II", "John Paul II"),
        ("Jean-Paul II", "John Paul II"),
        ("Johannes Paul II.", "John Paul II"),
        ("Jan Paweł II", "John Paul II"),
        ("ヨハネ・パウロ2世", "John Paul II"),
        ("ヨハネ・パウロ二世", "John Paul II"),
        ("요한 바오로 2세", "John Paul II"),
        ("若望保祿二世", "John Paul II"),
        ("约翰·保罗二世", "John Paul II"),  # the secular Chinese form
        ("Gioan Phaolô II", "John Paul II"),
        ("Ioannes Paulus II", "John Paul II"),
        ("¿Quién fue el papa Pío XII?", "Pius XII"),
        ("ピオ12世とは誰ですか", "Pius XII"),
        ("良十四世", "Leo XIV"),
        ("利奥十四世", "Leo XIV"),
        ("Grégoire Ier", "Gregory I"),
        ("Gregorio Magno", "Gregory the Great"),
        ("Papa Francisco", "Francis"),
        ("Juan Pablo", "John Paul"),
    ],
)
def test_popes_in_other_languages(typed: str, english: str) -> None:
    assert popes.english_name(typed) == english


@pytest.mark.parametrize("typed", ["John Paul II", "Pius XII", "Pope Francis", "Leo", "Xyz IV"])
def test_popes_in_english_or_unknown_are_left_to_the_engine(typed: str) -> None:
    assert popes.english_name(typed) is None


def test_every_regnal_name_of_the_table_is_a_pope_s() -> None:
    regnal = {pope.regnal_name for pope in builtin_popes()}
    for english in authored("popes")["names"]:
        assert english in regnal, english
    for english in popes.english_name("Gregorio Magno"), popes.english_name("León Magno"):
        assert english is not None and english.endswith("the Great")


@pytest.mark.parametrize(
    ("typed", "ident"),
    [
        ("San José", "joseph_spouse_of_mary"),
        ("聖ヨセフ", "joseph_spouse_of_mary"),
        ("성 요셉", "joseph_spouse_of_mary"),
        ("聖若瑟", "joseph_spouse_of_mary"),
        ("Thánh Giuse", "joseph_spouse_of_mary"),
        ("Sant'Ignazio di Loyola", "ignatius_of_loyola_priest"),
        ("San Ignacio de Loyola, presbítero", "ignatius_of_loyola_priest"),  # romcal's es name
        ("Padre Pío", "pius_francesco_forgione_priest"),
    ],
)
def test_saints_in_other_languages(typed: str, ident: str) -> None:
    assert saints.saint_id(typed) == ident


@pytest.mark.parametrize("typed", ["Saint Joseph", "Thomas Aquinas", "San Juan", "Nobody"])
def test_saints_in_english_ambiguous_or_unknown_are_left_to_the_engine(typed: str) -> None:
    assert saints.saint_id(typed) is None


def test_every_saint_of_the_table_is_a_saint_of_saint_lookup(tmp_path: Path) -> None:
    from magisterium_a2a.plugin import SkillEnvironment
    from magisterium_a2a.skills.engines import liturgy_engine
    from magisterium_a2a.skills.liturgy.martyrology import builtin_martyrology
    from magisterium_a2a.skills.saints.index import SaintIndex
    from magisterium_a2a.skills.saints.popular import popular_saints

    env = SkillEnvironment(clock=ManualClock(0.0), data_dir=tmp_path)
    liturgy = liturgy_engine(env)
    index = SaintIndex(
        liturgy.calendar.entities(),
        liturgy.calendar.definitions,
        builtin_martyrology().entries(),
        liturgy.martyrologies,
        popular_saints(),
    )
    for ident in authored("saints")["saints"]:
        assert index.get(ident) is not None, ident


@pytest.mark.parametrize(
    ("typed", "english"),
    [
        ("Arquidiócesis de Nueva York", "Archdiocese of New York"),
        ("Diócesis de San Agustín", "Diocese of St. Augustine"),
        ("ロサンゼルス大司教区", "Archdiocese of Los Angeles"),
        ("紐約總教區", "Archdiocese of New York"),
        ("Tổng giáo phận Los Angeles", "Archdiocese of Los Angeles"),
        ("Arquidiócesis de Chicago", "Archdiocese of chicago"),  # the see as typed
    ],
)
def test_dioceses_in_other_languages(typed: str, english: str) -> None:
    assert dioceses.english_name(typed) == english


@pytest.mark.parametrize("typed", ["Archdiocese of Chicago", "Los Angeles", "diocese of st. paul"])
def test_dioceses_in_english_are_left_to_the_engine(typed: str) -> None:
    assert dioceses.english_name(typed) is None


def test_every_see_of_the_diocese_table_is_a_us_see() -> None:
    raw = files("magisterium_a2a.skills").joinpath("data/dioceses-us.yaml").read_text("utf-8")
    names = {str(d["name"]) for d in yaml.safe_load(raw)}
    for see in authored("dioceses")["places"]:
        assert any(name.endswith(f"of {see}") or f"of {see} " in name for name in names), see


def test_the_layer_imports_no_engine_and_no_skill() -> None:
    layer = "magisterium_a2a.skills.language"
    allowed = (layer, "magisterium_a2a.skills.text")
    wrong = sorted(
        f"{name} -> {target}"
        for name, targets in GRAPH.items()
        if name == layer or name.startswith(layer + ".")
        for target in targets
        if not target.startswith(allowed) and target != "magisterium_a2a.skills"
    )
    assert wrong == []


# --- hostile text ---------------------------------------------------------------------

SCRIPTS = st.sampled_from(
    [
        st.characters(min_codepoint=0x20, max_codepoint=0x24F),  # Latin
        st.characters(min_codepoint=0x0590, max_codepoint=0x06FF),  # Hebrew, Arabic (RTL)
        st.characters(min_codepoint=0x0300, max_codepoint=0x036F),  # combining marks
        st.characters(min_codepoint=0x3040, max_codepoint=0x30FF),  # kana
        st.characters(min_codepoint=0x4E00, max_codepoint=0x4FFF),  # Han
        st.characters(min_codepoint=0xAC00, max_codepoint=0xAD00),  # Hangul
        st.characters(min_codepoint=0xFF01, max_codepoint=0xFF5E),  # full-width forms
        st.sampled_from(["\u202e", "\u200f", "\u200b", "\ufeff", "\u0301", "年", "월", " "]),
        st.characters(min_codepoint=0x1F300, max_codepoint=0x1F6FF),  # emoji
        st.sampled_from(list("0123456789ivxlIVXL.-/")),
    ]
)
MIXED = SCRIPTS.flatmap(lambda first: st.lists(first, max_size=40)).map("".join)
TEXTS = st.lists(MIXED, max_size=12).map(" ".join)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(TEXTS)
def test_any_text_in_any_script_is_read_or_refused_without_an_error(text: str) -> None:
    answer = english_form(text, TODAY)
    assert answer is None or isinstance(answer, str)
    assert popes.english_name(text) is None or isinstance(popes.english_name(text), str)
    assert saints.saint_id(text) is None or isinstance(saints.saint_id(text), str)
    assert dioceses.english_name(text) is None or isinstance(dioceses.english_name(text), str)
    detect(text)


HOSTILE = [
    "\u202e" + "Miércoles de Ceniza 2027",
    "２０２７年３月１９日" * 20,
    "e\u0301" * 149,
    "聖" * 300,
    "ヨハネ・パウロ" + "\u0301" * 290,
    "مرحبا " * 50,
    "요한 바오로 2세 " + "ש" * 280,
    "Juan Pablo II" + "\u200b" * 287,
]
HOOKED = [
    ("liturgical_readings", "No mass readings found."),
    ("saints_of_the_day", "No martyrology data found."),
    ("pope_lookup", None),
    ("saint_lookup", None),
    ("diocese_lookup", None),
    ("diocese_statistics_lookup", None),
]


@pytest.mark.parametrize(("skill", "_"), HOOKED)
async def test_hostile_text_completes_or_is_refused_cleanly_over_http(
    settings: Settings, caplog: pytest.LogCaptureFixture, skill: str, _: Any
) -> None:
    caplog.set_level(logging.DEBUG)
    builtins = (f"magisterium_a2a.skills.{skill}:create",)
    clock = ManualClock(datetime(2026, 12, 1, 12, tzinfo=UTC).timestamp())
    async with harness(settings, builtins=builtins, clock=clock) as h:
        token = await h.token(plan="enterprise")
        for text in HOSTILE:
            response = await h.send(token, text, skill)
            assert response.status_code == 200, response.text
            body = response.json()
            state = body["result"]["status"]["state"] if "result" in body else None
            assert state in {"completed", "failed"} or body["error"]["code"] == -32602, body
    assert [r.getMessage() for r in caplog.records if r.exc_info or r.levelno >= 40] == []
