"""``python -m app`` is the ``magisterium-a2a`` command."""

from magisterium_a2a.server.cli import main

main()
