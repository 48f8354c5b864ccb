"""The golden set: realistic queries for every skill, each with an answer taken
from a source outside the project (named per case), run in-process against the
server as users meet it (a fresh data directory, built-in data only)."""
