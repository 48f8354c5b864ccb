"""The precedence of liturgical days: the Table of Liturgical Days and the rules of
occurrence and transfer of the General Norms for the Liturgical Year and the Calendar
(GNLY, 1969; nos. 5, 14 and 59-60 as the Roman Missal of 2002 gives them), in one place.

romcal 4.0.0b6 places each celebration on its date and ranks it with a row of the
Table (``general_memorial_10``: row 10), but does not apply all of the rules:

- memorials stay on days that exclude them: the Sundays of Lent, Ash Wednesday, Holy
  Week (St Scholastica on Ash Wednesday 2027, Sts Cyril and Methodius on the First Sunday
  of Lent 2027, St Stanislaus on Holy Tuesday 2028);
- on the privileged weekdays of row 9 (17-24 December, the days within the Octave of
  Christmas, the weekdays of Lent) memorials are kept as optional memorials, where
  GIRM 355a allows only a commemoration: the Mass is of the weekday, its collect may
  be the saint's (GNLY 14 had already made them optional in Lent);
- a solemnity impeded by a weightier day is dropped instead of transferred (St Joseph on
  a Sunday of Lent, as in 2023; the Nativity of St John the Baptist under the Sacred
  Heart, as in 2022 and 2033);
- of two memorials on one day it keeps both, or the wrong one: the memorials of Mary
  tied to a moveable celebration prevail over a saint's (``PREVAILING_MEMORIALS``);
- some days sit in the wrong row (``CORRECTED``): the weekdays of Holy Week in row 9
  instead of 2, two feasts of the Lord as something else, so the Dedication of the
  Lateran Basilica is dropped when 9 November is a Sunday.

``calendar.LiturgicalCalendar`` builds each year from romcal and then applies the
functions here to every day; they see only ids, ranks and rows (``Ranked``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from datetime import date, timedelta
from typing import Protocol, TypeVar

PRECEDENCE_ROW = re.compile(r"_(\d+)([a-z]?)$")
WEEKDAY_ROW = 13
# Row 9: the weekdays of Advent from 17 to 24 December, the days within the Octave of
# Christmas, the weekdays of Lent. A memorial falling on them is only commemorated.
PRIVILEGED_WEEKDAY_ROW = 9
# Rows 1-8 (the Triduum to proper feasts) exclude every memorial; a solemnity impeded by
# one of them moves to the nearest day that is none of them (GNLY 60).
LAST_IMPEDING_ROW = 8
LAST_SOLEMNITY_ROW = 4
MEMORIAL_RANKS = frozenset({"memorial", "optional_memorial"})
COMMEMORATION = "commemoration"
# The Sundays of Advent, Lent and Easter (row 2): a solemnity falling on one is kept on
# the Monday after (GNLY 5), except on Palm Sunday and Easter Sunday.
PRIVILEGED_SUNDAY = "privileged_sunday_2"
NO_MONDAY_AFTER = frozenset({"palm_sunday_of_the_passion_of_the_lord", "easter_sunday"})
# Days romcal 4.0.0b6 puts in another row of the Table: (rank, precedence) as the Table
# has them. The weekdays of Holy Week are row 2 ("weekdays of Holy Week from Monday up to
# and including Thursday"), not 9. The Baptism of the Lord (a solemnity for romcal) and
# the Dedication of the Lateran Basilica, the Basilica of the Most Holy Saviour (a
# saint's feast for romcal), are feasts of the Lord (row 5), as the Roman Missal counts
# them: the Lateran replaces a Sunday in Ordinary Time (9 November 2008, 2014 and 2025).
HOLY_WEEK_WEEKDAY = ("weekday", "holy_week_weekday_2")
LORD_FEAST = ("feast", "general_lord_feast_5")
CORRECTED: dict[str, tuple[str, str]] = {
    "holy_monday": HOLY_WEEK_WEEKDAY,
    "holy_tuesday": HOLY_WEEK_WEEKDAY,
    "holy_wednesday": HOLY_WEEK_WEEKDAY,
    "holy_thursday": HOLY_WEEK_WEEKDAY,
    "baptism_of_the_lord": LORD_FEAST,
    "dedication_of_the_lateran_basilica": LORD_FEAST,
}
# Memorials of the Blessed Virgin Mary tied to a moveable celebration (Mary, Mother of
# the Church to Pentecost, the Immaculate Heart to the Sacred Heart) prevail over the
# memorial of a saint falling on the same day, which is omitted that year (Congregation
# for Divine Worship, notification on the memorial of Mary, Mother of the Church, 24 March
# 2018: St Justin on 1 June 2020, St Anthony of Padua on 13 June 2026).
PREVAILING_MEMORIALS = frozenset({"mary_mother_of_the_church", "immaculate_heart_of_mary"})
# How far a transfer looks for a free day (Holy Week with the Easter Octave is 15 days).
TRANSFER_REACH = 21


class Ranked(Protocol):
    """What the rules read of a celebration."""

    @property
    def id(self) -> str: ...

    @property
    def rank(self) -> str: ...

    @property
    def precedence(self) -> str: ...


C = TypeVar("C", bound=Ranked)


def table_row(precedence: str) -> int:
    """The row of the Table of Liturgical Days that a romcal precedence names (1-13)."""
    found = PRECEDENCE_ROW.search(precedence)
    return int(found.group(1)) if found else WEEKDAY_ROW


def corrected(ident: str, rank: str, precedence: str) -> tuple[str, str]:
    """The rank and precedence of a celebration, in the Table's row where romcal errs."""
    return CORRECTED.get(ident, (rank, precedence))


def is_memorial(celebration: Ranked) -> bool:
    return celebration.rank in MEMORIAL_RANKS or celebration.rank == COMMEMORATION


def day_row(celebrations: Sequence[Ranked], proper_of_time: Ranked) -> int:
    """The row of the day itself: its weightiest celebration that is no memorial, else
    its weekday of the Proper of Time (a memorial is kept within its weekday)."""
    greater = [table_row(c.precedence) for c in celebrations if not is_memorial(c)]
    return min(greater, default=table_row(proper_of_time.precedence))


def occurrence(celebrations: Sequence[C], proper_of_time: C) -> tuple[list[C], list[C]]:
    """The day's celebrations as the Table keeps them: (kept, commemorated).

    On the days of rows 1-8 no memorial is kept (GNLY 14 and 60; the Table); on those of
    row 9 an obligatory or optional memorial is only commemorated (GIRM 355a);
    on other weekdays memorials are kept, but a prevailing memorial of Mary is kept alone.
    A day romcal left to a memorial alone gets its weekday back in front when that
    weekday excludes or demotes the memorial."""
    row = day_row(celebrations, proper_of_time)
    if row > PRIVILEGED_WEEKDAY_ROW:
        marian = [c for c in celebrations if c.id in PREVAILING_MEMORIALS]
        return (marian or list(celebrations)), []
    greater = [c for c in celebrations if not is_memorial(c)] or [proper_of_time]
    if row < PRIVILEGED_WEEKDAY_ROW:
        return greater, []
    return greater, [c for c in celebrations if is_memorial(c)]


def outranks(candidate: Ranked, celebrations: Sequence[Ranked], proper_of_time: Ranked) -> bool:
    """Whether ``candidate`` takes the day from what is already celebrated on it."""
    return table_row(candidate.precedence) < day_row(celebrations, proper_of_time)


def transfer_date(natural: date, impeding: Ranked, free: Callable[[date], bool]) -> date | None:
    """Where a solemnity impeded on ``natural`` is kept, or None when no day is free.

    A solemnity on a Sunday of Advent, Lent or Easter goes to the Monday after (GNLY 5),
    except on Palm Sunday and Easter Sunday; otherwise to the nearest day that is not
    one of rows 1-8 (GNLY 60), the earlier of two equally near days (the Congregation
    for Divine Worship kept the Nativity of St John the Baptist on 23 June 2022, when
    the Sacred Heart took the 24th). ``free`` says whether a day could take it."""
    if impeding.precedence == PRIVILEGED_SUNDAY and impeding.id not in NO_MONDAY_AFTER:
        monday = natural + timedelta(days=1)
        if free(monday):
            return monday
    for distance in range(1, TRANSFER_REACH + 1):
        for candidate in (natural - timedelta(days=distance), natural + timedelta(days=distance)):
            if free(candidate):
                return candidate
    return None


def takes_transfer(celebrations: Sequence[Ranked], proper_of_time: Ranked) -> bool:
    """Whether a day can take a transferred solemnity: it is none of rows 1-8."""
    return day_row(celebrations, proper_of_time) > LAST_IMPEDING_ROW
