"""What an answer says to a reader who asked in another language than English.

The sources are quoted as they stand (mostly English, some Latin); the
extractive provider says so first, in the question's language, in a sentence the
team wrote for each language of issue 20. A language model is asked to answer in
the question's language (``prompt.py``). The contract's own sentences ("The
sources available here do not address this question.") are never translated.
"""

from __future__ import annotations

from magisterium_a2a.skills.knowledge.languages import language_of

QUOTED_AS_THEY_STAND = {
    "es": "Las fuentes se citan en su propio idioma, sin traducir.",
    "pt": "As fontes são citadas na sua própria língua, sem tradução.",
    "it": "Le fonti sono citate nella loro lingua, senza traduzione.",
    "fr": "Les sources sont citées dans leur propre langue, sans traduction.",
    "de": "Die Quellen werden in ihrer eigenen Sprache zitiert, ohne Übersetzung.",
    "pl": "Źródła są cytowane w ich własnym języku, bez tłumaczenia.",
    "ja": "出典はそれぞれの原語のまま、翻訳せずに引用しています。",
    "ko": "출처는 번역하지 않고 원래 언어 그대로 인용합니다.",
    "zh": "以下资料均按原文语言引用，未经翻译。",  # noqa: RUF001 (Chinese punctuation)
    "zh-Hant": "以下資料均按原文語言引用，未經翻譯。",  # noqa: RUF001
    "vi": "Các nguồn được trích dẫn bằng chính ngôn ngữ của chúng, không dịch.",
    "tl": "Sinisipi ang mga pinagkunan sa sarili nilang wika, nang walang salin.",
}
"""One sentence per language, written by the team."""

NAMES = {
    "es": "Spanish",
    "pt": "Portuguese",
    "it": "Italian",
    "fr": "French",
    "de": "German",
    "pl": "Polish",
    "ja": "Japanese",
    "ko": "Korean",
    "zh": "Chinese (simplified characters)",
    "zh-Hant": "Chinese (traditional characters)",
    "vi": "Vietnamese",
    "tl": "Tagalog",
    "la": "Latin",
}
"""The languages a model is asked to answer in, by the names it knows them by."""

# Characters that exist only in the traditional script, and their simplified
# forms: enough of the commonest to tell which script a question is written in.
_TRADITIONAL = set(
    "會麼這國個們來說為與對體關應當於學實經從後過還進發開問題時間無愛聖禮彌靈書餅讓誰嗎"
)
_SIMPLIFIED = set(
    "会么这国个们来说为与对体关应当于学实经从后过还进发开问题时间无爱圣礼弥灵书饼让谁吗"
)


def chinese_script(text: str) -> str:
    """``zh-Hant`` when the text uses more traditional-only characters than
    simplified-only ones, else ``zh``."""
    traditional = sum(c in _TRADITIONAL for c in text)
    simplified = sum(c in _SIMPLIFIED for c in text)
    return "zh-Hant" if traditional > simplified else "zh"


def reader_language(text: str) -> str | None:
    """The question's language as the answer addresses it: a code of
    ``QUOTED_AS_THEY_STAND`` or ``NAMES`` (Chinese by script), "en", or None."""
    language = language_of(text)
    return chinese_script(text) if language == "zh" else language


def quoted_note(question: str) -> str | None:
    """The sentence that tells the reader the sources are not translated, in the
    question's language; None for English or a language not known here."""
    language = reader_language(question)
    return None if language is None else QUOTED_AS_THEY_STAND.get(language)
