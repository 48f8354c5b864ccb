"""Write ``bench/RESULTS-answers.md``: the golden set's and the held-out sets' figures
per skill and per language, and every miss with its reason.

    .venv/bin/python -m bench.answers.report [--out bench/RESULTS-answers.md]

A miss's reason is what its checks found, and the case's ``why`` where the set's
authors explained it (a known limit, a source that disagrees).
"""

from __future__ import annotations

import argparse
import asyncio
import platform
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

from bench.answers.golden import CASES_DIR, Figures, Outcome, figures, load, run

HERE = Path(__file__).resolve().parent
SETS = {
    "golden set (bench/answers/cases)": CASES_DIR,
    "first held-out set (bench/answers/heldout)": HERE / "heldout",
    "second held-out set (bench/answers/heldout2)": HERE / "heldout2",
}
DEFAULT_OUT = HERE.parent / "RESULTS-answers.md"


def _rows(counts: Figures) -> list[str]:
    return [
        f"| {key} | {counts.right[key]} | {counts.total[key]} | {counts.share(key):.1%} |"
        for key in sorted(counts.total)
    ]


def section(title: str, outcomes: list[Outcome], seconds: float) -> list[str]:
    skills, langs, overall = figures(outcomes)
    lines = [f"## The {title}", ""]
    lines.append(
        f"{overall.right['all']} of {overall.total['all']} right "
        f"({overall.share('all'):.1%}), in {seconds:.0f} s."
    )
    lines += ["", "| skill | right | cases | share |", "| --- | ---: | ---: | ---: |"]
    lines += _rows(skills)
    lines += ["", "| language | right | cases | share |", "| --- | ---: | ---: | ---: |"]
    lines += _rows(langs)
    misses = [o for o in outcomes if not o.right]
    lines += ["", f"### Misses ({len(misses)})", ""]
    if not misses:
        lines.append("None.")
    for outcome in misses:
        case = outcome.case
        reason = "; ".join(outcome.misses)
        why = f" Why: {case.why}" if case.why else ""
        lines.append(f"- `{case.label}`: {reason}.{why} Source: {case.source}")
    return [*lines, ""]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args()
    lines = [
        "# Answers: the golden and held-out sets",
        "",
        f"Written by `python -m bench.answers.report` on {datetime.now(UTC):%Y-%m-%d %H:%M} UTC "
        f"(Python {platform.python_version()}), each set run in-process against a fresh data "
        "directory with built-in data only, the clock at 2026-12-01 12:00 UTC. Floors "
        "(tests/test_answers.py): 95% per skill, 97% overall, 90% per language.",
        "",
        "Each miss gives what its checks found, the case's `why` where it has one, and its "
        "source. Why the `catholic_qa` and `document_search` misses in other languages happen, "
        "class by class (a description that is no name, a glossed word that misleads, a short "
        'phrase routed as English), is in `bench/RESULTS-knowledge.md`, section "Search twins '
        'in twelve languages".',
        "",
    ]
    for title, directory in SETS.items():
        started = time.perf_counter()
        outcomes = asyncio.run(run(load(directory)))
        lines += section(title, outcomes, time.perf_counter() - started)
    args.out.write_text("\n".join(lines), encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
