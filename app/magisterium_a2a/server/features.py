"""What a server runs with, in words: its mode and the features its settings
turn on.

The start-up log, the development banner and ``doctor`` all print this one
summary of the settings, so what ``doctor`` reports is what ``serve`` does
with the same environment.
"""

from __future__ import annotations

from dataclasses import dataclass

from magisterium_a2a.server.config import Settings


@dataclass(frozen=True)
class Features:
    mode: str
    """``development``, ``test``, ``development and test`` or ``production``."""
    demo_tokens: bool
    test_api: bool
    playground: bool
    oauth: str
    """``built-in server``, ``delegated to <issuer>`` or ``off``."""
    store: str
    limits: tuple[int, int]
    """Requests per minute of the pro and organization plans: default and expensive bucket."""
    public_url: str
    cors: str
    metrics: str
    recording: str | None


def mode_name(development: bool, test: bool) -> str:
    modes = [name for name, flag in (("development", development), ("test", test)) if flag]
    return " and ".join(modes) or "production"


def features(settings: Settings) -> Features:
    if settings.oauth_builtin:
        oauth = "built-in server"
    elif settings.oauth_delegated:
        oauth = f"delegated to {settings.oauth_issuer or settings.jwt_issuer}"
    else:
        oauth = "off"
    token = settings.metrics_token
    return Features(
        mode=mode_name(settings.dev_mode, settings.test_mode),
        demo_tokens=settings.dev_mode,
        test_api=settings.test_mode,
        playground=settings.playground_enabled,
        oauth=oauth,
        store="embedded (in-process)" if settings.embedded else "Redis",
        limits=(settings.limit_default_per_minute, settings.limit_expensive_per_minute),
        public_url=settings.public_url,
        cors=", ".join(settings.cors_origins) or "none",
        metrics="behind a bearer token" if token and token.get_secret_value() else "open",
        recording=str(settings.record_dir) if settings.record_dir is not None else None,
    )


def on(flag: bool) -> str:
    return "on" if flag else "off"


def lines(found: Features) -> list[tuple[str, str]]:
    """The summary as (label, value) rows, in the order people look for them."""
    default, expensive = found.limits
    playground = f"on at {found.public_url.rstrip('/')}/" if found.playground else "off"
    rows = [
        ("mode", found.mode),
        ("public URL", found.public_url),
        ("playground", playground),
        ("demo tokens", on(found.demo_tokens)),
        ("OAuth", found.oauth),
        ("test API (/_test/)", on(found.test_api)),
        ("rate limits", f"{default}/min default, {expensive}/min expensive (pro, organization)"),
        ("store", found.store),
        ("CORS origins", found.cors),
        ("/metrics", found.metrics),
    ]
    if found.recording is not None:
        rows.append(("recording", found.recording))
    return rows
