"""Historical dates known to a day, a month or a year, possibly only roughly.

The data files write them as text (``"1978-10-16"``, ``"1568-04"``, ``"1294"``,
``"c. 1215"``) because that is how precise the sources are; a record must never
claim a day it does not know. ``HistoricalDate`` parses that text once and
compares two dates only as far as both are known, so the consistency checks
can order a year against a day.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from typing import Annotated

from pydantic import AfterValidator

PATTERN = re.compile(
    r"^(?P<circa>c\. )?(?P<year>\d{1,4})(?:-(?P<month>\d{2})(?:-(?P<day>\d{2}))?)?$"
)


class DateFormatError(ValueError):
    """A date written in none of the accepted forms."""


@dataclass(frozen=True, slots=True)
class HistoricalDate:
    year: int
    month: int | None = None
    day: int | None = None
    circa: bool = False

    @classmethod
    def parse(cls, text: str) -> HistoricalDate:
        found = PATTERN.match(text.strip())
        if found is None:
            raise DateFormatError(
                f"{text!r} is not a date (use YYYY-MM-DD, YYYY-MM or YYYY, optionally 'c. ' first)"
            )
        year = int(found["year"])
        month = int(found["month"]) if found["month"] else None
        day = int(found["day"]) if found["day"] else None
        if year < 1 or (month is not None and not 1 <= month <= 12):
            raise DateFormatError(f"{text!r} is not a date")
        if month is not None and day is not None:
            try:
                date(year, month, day)
            except ValueError:
                raise DateFormatError(f"{text!r} is not a date") from None
        return cls(year, month, day, found["circa"] is not None)

    def _fields(self, other: HistoricalDate) -> tuple[tuple[int, ...], tuple[int, ...]]:
        mine: list[int] = [self.year]
        theirs: list[int] = [other.year]
        if self.month is not None and other.month is not None:
            mine.append(self.month)
            theirs.append(other.month)
            if self.day is not None and other.day is not None:
                mine.append(self.day)
                theirs.append(other.day)
        return tuple(mine), tuple(theirs)

    def not_before(self, other: HistoricalDate) -> bool:
        """True when this date is on or after ``other`` as far as both are known."""
        mine, theirs = self._fields(other)
        return mine >= theirs

    def strictly_after(self, other: HistoricalDate) -> bool:
        mine, theirs = self._fields(other)
        return mine > theirs

    def __str__(self) -> str:
        text = f"{self.year}"
        if self.month is not None:
            text += f"-{self.month:02d}"
            if self.day is not None:
                text += f"-{self.day:02d}"
        return f"c. {text}" if self.circa else text


def _check(text: str) -> str:
    HistoricalDate.parse(text)
    return text


DateText = Annotated[str, AfterValidator(_check)]
"""A date as the data files write it, checked on load and kept as written."""


def year_of(text: str | None) -> str:
    """The year part for short displays (``"c. 67"``, ``"1978"``); ``?`` when unknown."""
    if text is None:
        return "?"
    parsed = HistoricalDate.parse(text)
    return f"c. {parsed.year}" if parsed.circa else str(parsed.year)
