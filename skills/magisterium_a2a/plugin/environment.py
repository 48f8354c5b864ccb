"""What a skill factory is given at start-up, and the settings base a skill
family declares its own configuration with.

A plug-in sees the clock, a data directory, its own settings and the engines
it shares with other skills — never the server's settings (admin token, Redis
URL, identity provider), which stay with the server.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from platformdirs import user_data_dir
from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from magisterium_a2a.plugin.clock import Clock

if TYPE_CHECKING:
    from magisterium_a2a.plugin.skill import Skill

T = TypeVar("T")


class PluginSettings(BaseSettings):
    """Base of a skill family's settings: ``A2A_<FIELD>`` variables and the
    ``.env`` file, read the same way as the server's own. ``data_dir`` is the
    server's (``A2A_DATA_DIR``); a family keeps its files below it."""

    model_config = SettingsConfigDict(
        env_prefix="A2A_", env_file=".env", env_file_encoding="utf-8", extra="ignore"
    )

    data_dir: Path = Field(
        default_factory=lambda: Path(user_data_dir("magisterium-a2a")),
        description="Where content, indexes and the embedded token file live",
    )


S = TypeVar("S", bound=PluginSettings)


class SkillEnvironment:
    """The clock, the data directory, each family's settings and shared engines.

    ``settings(kind)`` reads a family's settings class from the environment once
    (or returns the instance the host was given, as tests do); ``shared`` builds
    an engine once per server and hands the same instance to every skill that
    asks for it by name; ``on_close`` registers clean-up for shutdown.
    """

    def __init__(
        self,
        *,
        clock: Clock,
        data_dir: Path,
        settings: Iterable[PluginSettings] = (),
    ) -> None:
        self.clock = clock
        self.data_dir = data_dir
        self._settings: dict[type[PluginSettings], PluginSettings] = {
            type(item): item for item in settings
        }
        self._shared: dict[str, object] = {}
        self._closers: list[Callable[[], Awaitable[None]]] = []

    def settings(self, kind: type[S]) -> S:
        """That family's settings, always with this environment's data directory."""
        found = self._settings.get(kind)
        if found is None or found.data_dir != self.data_dir:
            base = found if found is not None else kind()
            found = self._settings[kind] = base.model_copy(update={"data_dir": self.data_dir})
        assert isinstance(found, kind)
        return found

    def shared(self, name: str, build: Callable[[], T]) -> T:
        if name not in self._shared:
            self._shared[name] = build()
        value: T = self._shared[name]  # type: ignore[assignment]
        return value

    def on_close(self, closer: Callable[[], Awaitable[None]]) -> None:
        self._closers.append(closer)

    async def close(self) -> None:
        for closer in reversed(self._closers):
            await closer()
        self._closers.clear()


SkillFactory = Callable[[SkillEnvironment], "Skill | Iterable[Skill]"]
