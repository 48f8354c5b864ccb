"""The language layer's popes (``language/popes.py``, ``language/pope_questions.py`` and
their tables): the fixes the pope_lookup twins forced, each as a class of queries
(bench/answers/cases/pope_lookup.<lang>.yaml)."""

from __future__ import annotations

import pytest

from magisterium_a2a.skills.language import pope_questions, popes
from magisterium_a2a.skills.language.scripts import key
from magisterium_a2a.skills.language.tables import authored
from magisterium_a2a.skills.people.popes import PopeIndex
from magisterium_a2a.skills.people.questions import PopeQuestions


@pytest.fixture(scope="module")
def index() -> PopeIndex:
    return PopeIndex()


# --- regnal numbers in words --------------------------------------------------------


@pytest.mark.parametrize(
    ("typed", "english"),
    [
        ("Pío décimo", "Pius X"),
        ("Pio decimo", "Pius X"),
        ("Pie dix", "Pius X"),
        ("Pius der Zehnte", "Pius X"),  # the English form of the name, a German number
        ("Pius Dziesiąty", "Pius X"),
        ("Léon treize", "Leo XIII"),
        ("Benoît seize", "Benedict XVI"),
        ("León trece", "Leo XIII"),
        ("Pie dix-sept", "Pius XVII"),  # read as said: the engine says no such pope exists
        ("Juan veintitrés", "John XXIII"),
        ("Juan Pablo segundo", "John Paul II"),
        ("Bento dezesseis", "Benedict XVI"),
        ("Leone tredicesimo", "Leo XIII"),
        ("Jan Paweł Drugi", "John Paul II"),
        ("Jan Paweł Dwudziesty Drugi", "John Paul XXII"),  # two words, read whole
    ],
)
def test_a_regnal_number_in_the_language_s_words(typed: str, english: str) -> None:
    assert popes.english_name(typed) == english


@pytest.mark.parametrize("typed", ["Pius the Tenth", "Leo 13", "Pius X", "dix", "Pius ten"])
def test_english_numbers_and_a_bare_number_word_are_left_to_the_engine(typed: str) -> None:
    assert popes.english_name(typed) is None


def test_every_number_of_the_table_is_said_once() -> None:
    numbers = authored("popes")["numbers"]
    forms = [key(str(f)) for fs in numbers.values() for f in fs]
    assert sorted(int(n) for n in numbers) == list(range(1, len(numbers) + 1))
    assert len(forms) == len(set(forms))


# --- antipopes ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "typed",
    [
        "antipapa Clemente VII",
        "antipape Clément VII",
        "Gegenpapst Clemens VII.",
        "antypapież Klemens VII",
        "対立教皇クレメンス7世",
        "대립 교황 클레멘스 7세",
        "对立教皇克雷芒七世",
        "對立教皇克雷芒七世",
        "giáo hoàng đối lập Clêmentê VII",
    ],
)
def test_the_word_for_an_antipope_is_kept(typed: str, index: PopeIndex) -> None:
    english = popes.english_name(typed)
    assert english == "antipope Clement VII"
    found = index.search(english)
    assert [a.name for a in found.antipopes] == ["Clement VII"] and not found.popes


def test_a_pope_of_an_antipope_s_name_is_still_the_pope() -> None:
    assert popes.english_name("Clemente VII") == "Clement VII"


# --- whole names: epithets, birth names, descriptions ------------------------------


@pytest.mark.parametrize(
    ("typed", "english"),
    [
        ("Juan Pablo el Grande", "John Paul the Great"),
        ("Jan Paweł Wielki", "John Paul the Great"),
        ("il Papa buono", "Good Pope John"),
        ("l'unico papa inglese", "the only English pope"),
        ("唯一的英格蘭籍教宗", "the only English pope"),
        ("¿Quién fue Joseph Ratzinger?", "Joseph Ratzinger"),
        ("Kim był Joseph Ratzinger?", "Joseph Ratzinger"),
        ("ヨーゼフ・ラッツィンガー", "Joseph Ratzinger"),
        ("요제프 라칭거", "Joseph Ratzinger"),
        ("若瑟·拉辛格", "Joseph Ratzinger"),
        ("アンジェロ・ロンカッリ", "Angelo Roncalli"),
        ("der heilige Petrus", "Peter"),
        ("Ojciec Święty Franciszek", "Francis"),
        ("フェリクス5世", "Felix V"),
    ],
)
def test_whole_names_and_titles(typed: str, english: str) -> None:
    assert popes.english_name(typed) == english


def test_every_whole_name_of_the_table_names_one_pope(index: PopeIndex) -> None:
    for english in authored("popes")["whole"]:
        found = index.search(str(english))
        assert found.single, english


# --- questions ----------------------------------------------------------------------

NICAEA = "the pope during the First Council of Nicaea"
CONVOKED_VATICAN_II = "the pope who convoked the Second Vatican Council"
OPENED_VATICAN_II = "the pope who opened the Second Vatican Council"
CLOSED_VATICAN_II = "the pope who closed the Second Vatican Council"
CLOSED_LATERAN_V = "the pope who closed the Fifth Lateran Council"


@pytest.mark.parametrize(
    ("typed", "english", "ident"),
    [
        # a place in the list, with each language's ordinal mark
        ("el papa número 264", "the 264th pope", "john-paul-ii"),
        ("o 264º papa", "the 264th pope", "john-paul-ii"),
        ("le 264e pape", "the 264th pope", "john-paul-ii"),
        ("der 264. Papst", "the 264th pope", "john-paul-ii"),
        ("264. papież", "the 264th pope", "john-paul-ii"),
        ("第264代教皇", "the 264th pope", "john-paul-ii"),
        ("제264대 교황", "the 264th pope", "john-paul-ii"),
        ("第264任教宗", "the 264th pope", "john-paul-ii"),
        ("giáo hoàng thứ 264", "the 264th pope", "john-paul-ii"),
        ("ika-264 na Papa", "the 264th pope", "john-paul-ii"),
        ("第1代教皇", "the 1st pope", "peter"),
        # documents by their titles in the language, read before the question's words
        ("「찬미받으소서」를 쓴 교황은?", "who wrote laudato si", "francis"),
        ("回勅『神は愛』を書いた教皇", "who wrote deus caritas est", "benedict-xvi"),
        ("《人類生命》通諭是誰寫的\uff1f", "who wrote humanae vitae", "paul-vi"),
        ("le pape qui a écrit Deus caritas est", "who wrote deus caritas est", "benedict-xvi"),
        ("sinong Papa ang sumulat ng Laudato Si", "who wrote laudato si", "francis"),
        ("Wer hat Humanae Vitae geschrieben?", "who wrote humanae vitae", "paul-vi"),
        ("Kto napisał encyklikę Laudato si?", "who wrote laudato si", "francis"),
        # the pope during a council
        ("Kto był papieżem podczas Soboru Nicejskiego?", NICAEA, "sylvester-i"),
        ("ニカイア公会議の時の教皇は誰ですか", NICAEA, "sylvester-i"),
        ("Wer war Papst während des Konzils von Nizäa?", NICAEA, "sylvester-i"),
        # councils and the verbs of convoking, opening, closing
        ("Welcher Papst berief das Zweite Vatikanum ein?", CONVOKED_VATICAN_II, "john-xxiii"),
        ("제2차 바티칸 공의회를 연 교황", OPENED_VATICAN_II, "john-xxiii"),
        ("结束梵二大公会议的教宗", CLOSED_VATICAN_II, "paul-vi"),
        ("der Papst, der das Fünfte Laterankonzil abschloss", CLOSED_LATERAN_V, "leo-x"),
        ("il papa che chiuse il Concilio Lateranense V", CLOSED_LATERAN_V, "leo-x"),
        ("Chi ha convocato il Concilio Vaticano II?", CONVOKED_VATICAN_II, "john-xxiii"),
        # succession verbs
        ("quién sucedió a León XIII", "the pope after Leo XIII", "pius-x"),
        ("kto zastąpił Leona XIII", "the pope after Leo XIII", "pius-x"),
        ("レオ13世の後を継いだのは誰", "the pope after Leo XIII", "pius-x"),
        ("誰接替了良十三世\uff1f", "the pope after Leo XIII", "pius-x"),
        ("Sino ang hinalinhan ni Juan Pablo II?", "the pope before John Paul II", "john-paul-i"),
        ("Wer ist jetzt Papst?", "the current pope", "leo-xiv"),
        ("Qui a été le premier pape ?", "the first pope", "peter"),
        ("첫 번째 교황은 누구였나요?", "the first pope", "peter"),
    ],
)
def test_pope_questions_the_twins_taught(typed: str, english: str, ident: str) -> None:
    assert pope_questions.english_question(typed) == english
    resolved = PopeQuestions(PopeIndex()).resolve(english)
    assert resolved is not None and [p.id for p in resolved.popes] == [ident]


@pytest.mark.parametrize(
    "typed",
    [
        "264",  # a number and no word for a pope
        "papa 12 13",  # two numbers
        "le 264e pape de France",  # words the question table does not know
        "ピオ12世の次の教皇",  # a regnal number is no place in the list (that is "after")
        "「찬미받으소서」를 쓴 교황 프란치스코",  # a title and a pope: not the author question
        "le pape qui a convoqué Deus caritas est",  # a document is no council
    ],
)
def test_questions_the_table_does_not_read_as_numbered_or_documents(typed: str) -> None:
    english = pope_questions.english_question(typed)
    assert english is None or not english.startswith(("the 264th", "who wrote"))


def test_every_document_of_the_table_is_one_pope_lookup_knows() -> None:
    questions = PopeQuestions(PopeIndex())
    for title in authored("pope-questions")["documents"]:
        resolved = questions.resolve(f"who wrote {key(str(title))}")
        assert resolved is not None and len(resolved.popes) == 1, title


@pytest.mark.parametrize(
    "typed", ["", " ", "\uff1f\uff1f", "第" * 400, "教皇" * 200, "\u200b264\u200b"]
)
def test_bad_input_gives_none_or_a_question_never_an_error(typed: str) -> None:
    assert pope_questions.english_question(typed) in {None, "the 264th pope"}
    assert popes.english_name(typed) is None
