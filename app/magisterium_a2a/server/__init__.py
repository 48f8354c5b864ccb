"""The server: HTTP, JSON-RPC, identity, limits and task storage."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("magisterium-a2a")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0"
