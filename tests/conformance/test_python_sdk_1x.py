"""The official Python SDK, newest 1.x line, against a real server process.

It cannot share the test venv with the 0.3 line, so it runs in its own venv
(built once with pip, kept in the user's cache: ``tests/conformance/toolchains.py``)
as a probe script.

On its own it reads the card, takes the card's A2A 1.0 interface and speaks
1.0 (no compatibility layer): send, get, list, the extended card, and a cancel
refused as 1.0 refuses it; what it sends is recorded by the server and shown to
be 1.0. Held to the card's v0.3 interface, its v0.3 compatibility transport
still passes the hosted contract.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from magisterium_a2a.testing.pytest_plugin import MagisteriumServer
from tests.conformance.plan import (
    PROBES,
    V10_METHODS,
    check_errors,
    check_errors_v10,
    check_happy_path,
    make_plan,
    recorded_requests,
    run_probe,
)
from tests.conformance.toolchains import PYTHON_SDK_1X, python_env

pytestmark = pytest.mark.subprocess

STATES = {"completed": "TASK_STATE_COMPLETED", "user": "ROLE_USER", "agent": "ROLE_AGENT"}
# The SDK's exception type for each step, in A2A 1.0: the codes mean what 1.0
# says; 401, 403 and 429 raise a plain A2AClientError chained to the HTTP answer.
ERROR_TYPES_V10 = {
    "cancel": "TaskNotCancelableError",
    "get_unknown": "TaskNotFoundError",
    "cancel_unknown": "TaskNotFoundError",
    "send_unknown_skill": "InvalidParamsError",
    "send_empty_parts": "InvalidParamsError",
    "send_rate_limited": "A2AClientError",
    "send_bad_token": "A2AClientError",
    "send_free_plan": "A2AClientError",
    "get_internal_error": "InternalError",
    "unknown_method": "PushNotificationNotSupportedError",
}
# Through the compatibility transport, on the hosted dialect: 1.x names the
# hosted codes -32002..-32005 after their meaning in A2A itself (this contract
# reuses them).
ERROR_TYPES_03 = {
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


def test_python_sdk_1x_speaks_1_0(
    conformance_server: MagisteriumServer, conformance_records: Path
) -> None:
    python = python_env(PYTHON_SDK_1X)
    plan = make_plan(conformance_server, "python-sdk-1.x", dialect="1.0")
    report = run_probe([str(python), str(PROBES / "python_sdk_1x.py")], plan)
    assert report["card"] == {
        "protocolVersion": "1.0",
        "url": conformance_server.endpoint_url,
        "transport": "JsonRpcTransport",
        "interfaces": ["1.0", "0.3"],
    }
    check_happy_path(report, plan, STATES)
    check_errors_v10(report, plan, ERROR_TYPES_V10)
    for step in ("send_rate_limited", "send_bad_token", "send_free_plan"):
        assert report[step]["httpStatus"] is not None, report[step]
    assert report["send_rate_limited"]["retryAfterHeader"] is not None

    first, second = report["send"]["task"]["id"], report["second"]["task"]["id"]
    for step in ("list", "list_context", "list_first_page", "list_second_page", "extended_card"):
        assert report[step]["ok"], report[step]
    listed = report["list"]["value"]
    assert [t["id"] for t in listed["tasks"]][:2] == [second, first]
    assert listed["totalSize"] == 2 and listed["pageSize"] == 2
    assert "nextPageToken" not in listed  # ProtoJSON leaves the empty string out
    assert [t["id"] for t in report["list_context"]["value"]["tasks"]] == [first]
    assert [t["id"] for t in report["list_first_page"]["value"]["tasks"]] == [second]
    assert [t["id"] for t in report["list_second_page"]["value"]["tasks"]] == [first]
    card = report["extended_card"]["value"]
    assert card["capabilities"]["extendedAgentCard"] is True
    assert card["supportedInterfaces"][0]["protocolVersion"] == "1.0"

    # On the wire: 1.0 method names, each with A2A-Version: 1.0.
    sent = recorded_requests(conformance_records, report, plan)
    methods = [request["body"]["method"] for request in sent]
    assert {"SendMessage", "GetTask", "ListTasks", "CancelTask"} <= set(methods)
    assert set(methods) <= V10_METHODS
    assert {request["headers"].get("a2a-version") for request in sent} == {"1.0"}


def test_python_sdk_1x_on_the_v0_3_interface(conformance_server: MagisteriumServer) -> None:
    python = python_env(PYTHON_SDK_1X)
    plan = make_plan(conformance_server, "python-sdk-1.x-compat", dialect="0.3")
    report = run_probe([str(python), str(PROBES / "python_sdk_1x.py")], plan)
    assert report["card"] == {
        "protocolVersion": "0.3",
        "url": conformance_server.endpoint_url,
        "transport": "CompatJsonRpcTransport",
        "interfaces": ["0.3"],
    }
    check_happy_path(report, plan, STATES)
    check_errors(report, plan, ERROR_TYPES_03)
    for step in ("send_rate_limited", "send_bad_token", "send_free_plan"):
        assert report[step]["httpStatus"] is not None, report[step]
    assert report["send_rate_limited"]["retryAfterHeader"] is not None
