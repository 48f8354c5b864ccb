"""Settings of the diocese skills: only the data directory, where imports live."""

from __future__ import annotations

from magisterium_a2a.plugin import PluginSettings


class DioceseSettings(PluginSettings):
    """``A2A_DATA_DIR``: imported directory records and statistics are kept in
    ``<data_dir>/dioceses/dioceses.sqlite``."""
