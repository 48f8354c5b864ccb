"""Popes named in any of our languages, as the English name ``pope_lookup``
reads: "Juan Pablo II", "Jean-Paul II", "Johannes Paul II.", "Jan Paweł II",
"ヨハネ・パウロ2世", "요한 바오로 2세", "若望保祿二世", "Gioan Phaolô II" are all
"John Paul II"; "Gregorio Magno" is "Gregory the Great"; "Pie dix" and "Pius der
Zehnte" are "Pius X"; "antipapa Clemente VII" is "antipope Clement VII".

The rule of ``popes.yaml``: the language's form of the regnal name, then the
number (Roman numerals, "Ier", digits, the language's number words, or Chinese
numerals, before 世 or 세 in Japanese, Chinese and Korean). The word for an antipope
before a name is kept as the English word, so the engine names the antipope. A name
already in English, or one the table does not know, gives None: the engine reads the
query as it always did.
"""

from __future__ import annotations

import re
from functools import cache

from magisterium_a2a.skills.language.names import Stripper, unspaced
from magisterium_a2a.skills.language.numerals import number_of, roman
from magisterium_a2a.skills.language.scripts import clean, key
from magisterium_a2a.skills.language.tables import authored

MAX_QUERY_CHARS = 300
# A regnal number at the end: "ii", "2", "ier" (French first), or before 世/세.
_CJK_NUMBER = re.compile(r"(\d{1,2}|[一二三四五六七八九十]{1,3})\s*(?:世|세)$")
_FIRST = {"ier", "er", "1er", "primo", "primero", "primeiro", "pierwszy"}


def english_name(query: str) -> str | None:
    """The English name of the pope a query names in another language, or None."""
    if len(query) > MAX_QUERY_CHARS:
        return None
    antipope, folded = _without_antipope(key(clean(query)))
    folded = _titles()(folded)
    if not folded:
        return None
    whole = _whole().get(unspaced(folded))
    if whole is not None:
        return f"antipope {whole}" if antipope else whole
    name, number, in_words = _split_number(folded)
    english = _names().get(unspaced(name))
    # An English name is left to the engine, unless what the engine cannot read is around it
    # (a number in another language's words, the word for an antipope).
    if english is None or (english[1] and not antipope and not in_words):
        return None
    named = f"{english[0]} {roman(number)}" if number else english[0]
    return f"antipope {named}" if antipope else named


def _without_antipope(folded: str) -> tuple[bool, str]:
    """Whether the text names an antipope ("antipapa", "対立教皇"), and the text without it."""
    stripped = _antipope_words()(folded)
    return stripped != " ".join(folded.split()), stripped


def _split_number(folded: str) -> tuple[str, int | None, bool]:
    """The name, its regnal number, and whether the number was said in words."""
    found = _CJK_NUMBER.search(folded)
    if found is not None:
        return folded[: found.start()].strip(), number_of(found.group(1)), False
    head, _, last = folded.rpartition(" ")
    if not head:
        return folded, None, False
    if last in _FIRST:
        return head, 1, False
    words = folded.split()
    for size in (3, 2, 1):  # "dix sept", "decimo primeiro", "zehnte"
        if len(words) > size and (said := _number_words().get(" ".join(words[-size:]))):
            return " ".join(words[:-size]), said, True
    number = number_of(last, roman=True)
    if number is not None and 1 <= number <= 30:
        return head, number, False
    return folded, None, False


@cache
def _names() -> dict[str, tuple[str, bool]]:
    """Matched form -> (English regnal name, whether the form is the English one)."""
    table: dict[str, tuple[str, bool]] = {}
    for english, languages in authored("popes")["names"].items():
        for forms in languages.values():
            for form in forms:
                table.setdefault(unspaced(key(str(form))), (str(english), False))
    for english in authored("popes")["names"]:
        table[unspaced(key(str(english)))] = (str(english), True)
    return table


@cache
def _number_words() -> dict[str, int]:
    return {
        key(str(form)): int(number)
        for number, forms in authored("popes")["numbers"].items()
        for form in forms
    }


@cache
def _antipope_words() -> Stripper:
    return Stripper(authored("popes")["antipopes"])


@cache
def _whole() -> dict[str, str]:
    strip = _titles()
    return {
        unspaced(strip(key(str(form)))): str(english)
        for english, forms in authored("popes")["whole"].items()
        for form in forms
    }


@cache
def _titles() -> Stripper:
    return Stripper(authored("popes")["titles"])
