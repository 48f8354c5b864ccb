"""What an answer says to a reader who asked in another language than English.

The sources are quoted as they stand (mostly English, some Latin); the
extractive provider says so first, in the question's language, in a sentence the
team wrote for each language of issue 20. A language model is asked to answer in
the question's language (``prompt.py``). The contract's own sentences ("The
sources available here do not address this question.") are never translated.
"""

from __future__ import annotations

from magisterium_a2a.skills.knowledge.languages import tag_of

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


def reader_language(text: str) -> str | None:
    """The question's language as the answer addresses it: a code of
    ``QUOTED_AS_THEY_STAND`` or ``NAMES`` (``zh`` or ``zh-Hant`` by script), "en",
    or None."""
    tag = tag_of(text)
    return "zh" if tag == "zh-Hans" else tag


def quoted_note(question: str) -> str | None:
    """The sentence that tells the reader the sources are not translated, in the
    question's language; None for English or a language not known here."""
    language = reader_language(question)
    return None if language is None else QUOTED_AS_THEY_STAND.get(language)
