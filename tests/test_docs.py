"""The README stays true to the code: every setting is documented, and the
test command it gives is the one CI runs."""

from __future__ import annotations

from magisterium_a2a.server.config import Settings
from tests.support import ROOT

README = (ROOT / "README.md").read_text()


def test_every_setting_is_in_the_configuration_table() -> None:
    missing = [
        f"A2A_{name.upper()}"
        for name in Settings.model_fields
        if f"| `A2A_{name.upper()}` |" not in README
    ]
    assert missing == []


def test_quick_start_commands_are_the_ci_commands() -> None:
    assert "make run" in README
    assert "make test" in README
    assert "make test" in (ROOT / ".ci" / "run").read_text()
