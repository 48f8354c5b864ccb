"""The cost of the worst date queries: ``python -m bench.liturgy_bad_input [ROUNDS]``.

Times ``LiturgyEngine.resolve`` (what both date skills run first) on the hostile
inputs of issue 12 at several sizes, interleaved over rounds, and prints the median
and the largest time of each in milliseconds as a Markdown table. The engine's years
are warmed first, so a row measures the parser, not a calendar build; the last row
is a first call for a year never built (the calendar's own cost). The last column
calls the parser directly, past the length cap, to show it is linear on its own.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from magisterium_a2a.plugin import Clock
from magisterium_a2a.skills.liturgy.engine import LiturgyEngine
from magisterium_a2a.skills.liturgy.settings import LiturgySettings

NOW = 1_795_000_000.0  # 2026-11-18


class FixedClock:
    virtual = True

    def now(self) -> float:
        return NOW


def inputs() -> dict[str, str]:
    return {
        '"march " + "1" * 10_000': "march " + "1" * 10_000,
        '"march " + "1" * 1_000_000': "march " + "1" * 1_000_000,
        '"may " + "1 " * 1_000': "may " + "1 " * 1_000,
        '"may " + "1 " * 10_000': "may " + "1 " * 10_000,
        '"may 1" + "- " * 1_000': "may 1" + "- " * 1_000,
        '"may 1" + "- " * 10_000': "may 1" + "- " * 10_000,
        '"may " + "1 " * 148 (under the cap)': "may " + "1 " * 148,
        '"may 1" + "- " * 147 (under the cap)': "may 1" + "- " * 147,
        '"saint " * 49 (fuzzy names, under the cap)': "saint " * 49,
        '"feast of saint " + "x" * 280 (under the cap)': "feast of saint " + "x" * 280,
        '"0001-01-01"': "0001-01-01",
    }


def timed(call: Callable[[], object]) -> float:
    start = time.perf_counter()
    call()
    return (time.perf_counter() - start) * 1000


def main(rounds: int) -> None:
    engine = LiturgyEngine(LiturgySettings(data_dir=Path(tempfile.mkdtemp())))
    clock: Clock = FixedClock()
    engine.resolve("christmas", clock)
    engine.resolve("2026-06-01", clock)
    cases = inputs()
    today = engine.today(clock)
    times: dict[str, list[float]] = {name: [] for name in cases}
    bare: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(rounds):
        for name, text in cases.items():
            times[name].append(timed(lambda text=text: engine.resolve(text, clock)))  # type: ignore[misc]
            bare[name].append(timed(lambda text=text: engine.parser.parse(text, today)))  # type: ignore[misc]
    first_year = [
        timed(lambda year=year: engine.calendar.year(year))  # type: ignore[misc]
        for year in range(3000, 3000 + rounds)
    ]
    print("| input | resolve median ms | max ms | parser without the cap, median ms |")
    print("| --- | --- | --- | --- |")
    for name, values in times.items():
        print(
            f"| {name} | {statistics.median(values):.2f} | {max(values):.2f}"
            f" | {statistics.median(bare[name]):.2f} |"
        )
    print(
        f"| first call for a new year (calendar build) | {statistics.median(first_year):.1f}"
        f" | {max(first_year):.1f} | |"
    )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3)
