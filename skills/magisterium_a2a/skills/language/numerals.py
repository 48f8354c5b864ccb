"""Numbers as our languages write them in names and dates: digits, Roman
numerals (Juan Pablo II, Chúa Nhật III Mùa Chay) and Chinese numerals, which
Japanese and Chinese use for regnal numbers and ordinals (二世, 第三主日)."""

from __future__ import annotations

import re

_ROMAN = re.compile(r"^(?=[mdclxvi])m{0,3}(cm|cd|d?c{0,3})(xc|xl|l?x{0,3})(ix|iv|v?i{0,3})$")
_ROMAN_VALUES = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100, "d": 500, "m": 1000}
_CJK_DIGITS = {"\u3007": 0, "零": 0, "一": 1, "二": 2, "两": 2, "兩": 2, "三": 3, "四": 4, "五": 5,
               "六": 6, "七": 7, "八": 8, "九": 9}  # fmt: skip
_CJK_UNITS = {"十": 10, "百": 100}
_CJK = re.compile(r"^[\u3007零一二两兩三四五六七八九十百]{1,6}$")


def number_of(text: str, *, roman: bool = False) -> int | None:
    """The value of digits, Chinese numerals (up to 999) or, when ``roman``, a
    lower-case Roman numeral; None for anything else."""
    if text.isascii() and text.isdigit():
        return int(text)
    if _CJK.match(text):
        return _cjk(text)
    if roman and _ROMAN.match(text):
        return roman_value(text)
    return None


def roman_value(numeral: str) -> int:
    total = 0
    for here, after in zip(numeral, [*numeral[1:], ""], strict=True):
        value = _ROMAN_VALUES[here]
        total += -value if after and _ROMAN_VALUES[after] > value else value
    return total


def roman(number: int) -> str:
    """Upper-case Roman numeral (1..3999)."""
    out = ""
    for value, letters in ((1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"),
                           (90, "XC"), (50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"),
                           (4, "IV"), (1, "I")):  # fmt: skip
        while number >= value:
            out += letters
            number -= value
    return out


def _cjk(text: str) -> int | None:
    """二十三 = 23, 十六 = 16, 二〇二七 = 2027 (digit by digit when no unit is written)."""
    if not any(c in _CJK_UNITS for c in text):
        value = 0
        for char in text:
            value = value * 10 + _CJK_DIGITS[char]
        return value
    total, digit = 0, None
    for char in text:
        if char in _CJK_UNITS:
            total += (digit if digit is not None else 1) * _CJK_UNITS[char]
            digit = None
        elif digit is not None:
            return None
        else:
            digit = _CJK_DIGITS[char]
    return total + (digit or 0)
