"""The test mode, all of it: with ``A2A_TEST_MODE=1`` a server becomes an
integration-test target.

Client developers need the unhappy paths that are hard to provoke on the
hosted service. A scenario can force the next N calls of one token (optionally
of one method or skill) to answer a chosen error, make a skill fail, or add
latency; the clock can be set or advanced so rate windows and TTLs are crossed
without sleeping. Everything lives in the store (keys in ``storage.keys``), so
it holds across worker processes and replicas.

- ``state``: ``TestMode`` (scenarios, clock, expiry, reset) and the ``Faults``
  hooks the request path calls only when the test mode is on (otherwise each
  hook costs one ``None`` check: ``http.py``, ``rpc.py``, ``methods.py``);
- ``api``: the ``/_test/`` HTTP API, mounted only in test mode, behind
  ``A2A_ADMIN_TOKEN``;
- ``cli``: ``magisterium-a2a test ...``, which drives that API.

The client side (the pytest plugin and the HTTP client of ``/_test/``) lives in
``magisterium_a2a.testing`` and imports nothing of the server.
"""

from magisterium_a2a.server.testmode.state import ClockOutOfRange, Faults, Scenario, TestMode

__all__ = ["ClockOutOfRange", "Faults", "Scenario", "TestMode"]
