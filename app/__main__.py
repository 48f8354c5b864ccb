"""``python -m app`` is the ``magisterium-a2a`` command."""

from app.cli import main

main()
