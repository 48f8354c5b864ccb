"""Print the golden set's figures per skill and per language, and every miss.

.venv/bin/python -m bench.answers [--dir DIR] [--skill ID ...] [--lang CODE ...] [--show-text]

``--dir`` reads another set of case files in the same format: ``bench/answers/heldout``
holds queries written without looking at the golden cases or at how the engines read them,
to measure how far the fixes generalise.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from bench.answers.golden import CASES_DIR, Figures, figures, load, run


def table(title: str, counts: Figures) -> None:
    if title != "all":
        print(f"{title:<28} {'right':>5} / {'cases':<5} share")
    for key in sorted(counts.total):
        right, total = counts.right[key], counts.total[key]
        print(f"{key:<28} {right:>5} / {total:<5} {counts.share(key):.1%}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--dir", type=Path, default=CASES_DIR, help="the directory of case files (default: cases/)"
    )
    parser.add_argument("--skill", action="append", help="only these skills")
    parser.add_argument("--lang", action="append", help="only these languages")
    parser.add_argument("--show-text", action="store_true", help="print the answer of each miss")
    args = parser.parse_args()
    cases = [
        c
        for c in load(args.dir)
        if (not args.skill or c.skill in args.skill) and (not args.lang or c.lang in args.lang)
    ]
    outcomes = asyncio.run(run(cases))
    skills, langs, overall = figures(outcomes)
    table("skill", skills)
    table("all", overall)
    print()
    table("language", langs)
    misses = [o for o in outcomes if not o.right]
    if misses:
        print(f"\n{len(misses)} miss(es):")
    for outcome in misses:
        print(f"- {outcome.case.label}")
        for reason in outcome.misses:
            print(f"    {reason}")
        if outcome.case.why:
            print(f"    why: {outcome.case.why}")
        if args.show_text:
            for line in outcome.text.splitlines()[:12]:
                print(f"    | {line}")
    return 0 if not misses else 1


if __name__ == "__main__":
    sys.exit(main())
