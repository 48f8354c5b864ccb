"""The official Python SDK, newest 1.x line, against a real server process.

It cannot share the test venv with the 0.3 line, so it runs in its own venv
(built once with pip, kept under ``.cache/conformance/``) as a probe script.
It must find the card's ``protocolVersion`` 0.3 and pick its v0.3
compatibility transport by itself; send, get and cancel must work and every
contract error must surface as one of its own exception types.
"""

from __future__ import annotations

import pytest

from magisterium_a2a.testing.pytest_plugin import MagisteriumServer
from tests.conformance.plan import PROBES, check_errors, check_happy_path, make_plan, run_probe
from tests.conformance.toolchains import PYTHON_SDK_1X, python_env

pytestmark = pytest.mark.subprocess

# The SDK's exception type for each step. 1.x names the A2A codes -32002..-32005
# after their meaning in A2A itself (this contract reuses them); it raises a
# plain A2AClientError for 401, 403 and 429, chained to the HTTP answer.
ERROR_TYPES = {
    "cancel": "InvalidParamsError",
    "get_unknown": "TaskNotFoundError",
    "cancel_unknown": "TaskNotFoundError",
    "send_unknown_skill": "TaskNotCancelableError",
    "send_empty_parts": "InvalidParamsError",
    "send_rate_limited": "A2AClientError",
    "send_bad_token": "A2AClientError",
    "send_free_plan": "A2AClientError",
    "get_internal_error": "InternalError",
    "unknown_method": "MethodNotFoundError",
}


def test_python_sdk_1x(conformance_server: MagisteriumServer) -> None:
    python = python_env(PYTHON_SDK_1X)
    plan = make_plan(conformance_server, "python-sdk-1.x")
    report = run_probe([str(python), str(PROBES / "python_sdk_1x.py")], plan)
    assert report["card"] == {
        "protocolVersion": "0.3.0",
        "url": conformance_server.endpoint_url,
        "transport": "CompatJsonRpcTransport",
    }
    states = {"completed": "TASK_STATE_COMPLETED", "user": "ROLE_USER", "agent": "ROLE_AGENT"}
    check_happy_path(report, plan, states)
    check_errors(report, plan, ERROR_TYPES)
    for step in ("send_rate_limited", "send_bad_token", "send_free_plan"):
        assert report[step]["httpStatus"] is not None, report[step]
    assert report["send_rate_limited"]["retryAfterHeader"] is not None
