"""Latency of the liturgy answers for every date of 2026-2027 after each year's
first call, and completeness of the readings (built-in table alone, and with
an imported table). Usage: python bench/liturgy_days.py [DATA_DIR]"""

from __future__ import annotations

import statistics
import sys
import time
from datetime import date, timedelta
from pathlib import Path

from magisterium_a2a.skills.liturgical_readings import format_day
from magisterium_a2a.skills.liturgy.engine import LiturgyEngine
from magisterium_a2a.skills.liturgy.settings import LiturgySettings
from magisterium_a2a.skills.saints_of_the_day import format_saints


def main() -> None:
    data_dir = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("/nonexistent-liturgy-data")
    engine = LiturgyEngine(LiturgySettings(_env_file=None, data_dir=data_dir))  # type: ignore[call-arg]
    first = {}
    for year in (2026, 2027):
        started = time.perf_counter()
        engine.readings(date(year, 1, 1))
        first[year] = (time.perf_counter() - started) * 1000
    timings, complete, days = [], 0, 0
    when = date(2026, 1, 1)
    while when <= date(2027, 12, 31):
        started = time.perf_counter()
        found = engine.readings(when)
        format_day(found)
        format_saints(engine, when)
        timings.append((time.perf_counter() - started) * 1000)
        complete += found.complete
        days += 1
        when += timedelta(days=1)
    timings.sort()
    print(f"first call per year (ms): {first}")
    print(f"days {days}, complete {complete}")
    print(
        f"per answer ms: median {statistics.median(timings):.3f}, "
        f"p99 {timings[int(len(timings) * 0.99)]:.3f}, max {timings[-1]:.3f}"
    )


if __name__ == "__main__":
    main()
