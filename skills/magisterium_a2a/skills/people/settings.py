"""Settings of the people skills: only the data directory, where imported
clergy live (``<data_dir>/people/clergy.json``)."""

from __future__ import annotations

from magisterium_a2a.plugin import PluginSettings


class PeopleSettings(PluginSettings):
    """``A2A_DATA_DIR`` and nothing else: the built-in data needs no configuration."""
