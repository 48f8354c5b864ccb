"""bench/run.py's report file: each run goes on top and the earlier runs stay
below it, with the title and the intro line written once."""

from pathlib import Path

from bench.run import INTRO, TITLE, _with_earlier_runs


def test_a_new_run_goes_first_and_the_intro_is_written_once(tmp_path: Path) -> None:
    report = tmp_path / "RESULTS.md"
    report.write_text(_with_earlier_runs(report, "## run one\n\nfirst\n"))
    report.write_text(_with_earlier_runs(report, "## run two\n\nsecond\n"))
    report.write_text(_with_earlier_runs(report, "## run three\n\nthird\n"))

    text = report.read_text()
    assert text.startswith(f"{TITLE}\n\n{INTRO}\n\n## run three\n")
    assert text.count(INTRO) == 1
    assert text.count(TITLE) == 1
    assert text.index("## run three") < text.index("## run two") < text.index("## run one")
    assert "third\n\n## run two\n\nsecond\n\n## run one\n\nfirst\n" in text
