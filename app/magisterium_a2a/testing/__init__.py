"""What a client project's tests use against this server: the pytest plugin and the
test-mode client.

The name is ours alone, so a client project with its own ``app`` or ``skills`` package never
shadows it, and it imports nothing of the server: the server runs in its own process.
"""
