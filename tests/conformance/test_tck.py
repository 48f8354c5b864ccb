"""The A2A TCK, its 1.0 track (``../shared/refdata/a2a-tck-1.0``), mandatory
category with the JSON-RPC transport, against a real server process.

It runs exactly the selection ``run_tck.py --category mandatory --transports
jsonrpc`` makes, with a JSON report, in a venv of its own under
``.cache/conformance/``. By hand, with a server running::

    A2A_AUTH_HEADERS='{"Authorization": "Bearer <token>", "A2A-Version": "1.0"}' \\
        python run_tck.py --sut-url http://127.0.0.1:8000/api/v1/a2a \\
        --category mandatory --transports jsonrpc

The snapshot's client sends no ``A2A-Version`` header (it predates 1.0.0's
"clients MUST send" in section 3.6.1, and a request without one is a v0.3
request, section 3.6.2), so the header rides with the credentials.

Every mandatory test passes (or skips, for what the card declares off) but
those listed in ``DEVIATIONS``, each with why; the test fails if one of them
starts passing, or any other fails.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import NamedTuple

import pytest

from magisterium_a2a.testing.pytest_plugin import serve_in_test_mode
from tests.conformance.toolchains import tck_env
from tests.support import ROOT

pytestmark = pytest.mark.subprocess

TCK_TIMEOUT = 1200
MARKERS = "mandatory or mandatory_protocol or mandatory_jsonrpc"


class Deviation(NamedTuple):
    cause: str
    section: str
    why: str


SYNCHRONOUS = "synchronous tasks"
ONE_CARD = "one card for two generations"
TCK = "TCK snapshot or test setup"

_LIST = "tests/mandatory/protocol/test_tasks_list_method.py::"
_WORKING = Deviation(
    SYNCHRONOUS,
    "3.2.2",
    "The TCK's task helper waits for TASK_STATE_WORKING; a task here is finished "
    "(COMPLETED) when SendMessage returns, which is the blocking default of 3.2.2.",
)
DEVIATIONS: dict[str, Deviation] = {
    "tests/mandatory/protocol/test_message_send_method.py::test_message_send_continue_task": (
        Deviation(
            SYNCHRONOUS,
            "3.1.1, 3.4.2",
            "Continues a task with a second message; the task is already completed, and "
            "a task in a terminal state takes no further messages (UnsupportedOperationError).",
        )
    ),
    "tests/mandatory/protocol/test_state_transitions.py::test_task_history_length": Deviation(
        SYNCHRONOUS,
        "3.1.1",
        "Builds a history by sending three more messages to a finished task (refused, as above).",
    ),
    "tests/mandatory/protocol/test_tasks_cancel_method.py::test_tasks_cancel_valid": Deviation(
        SYNCHRONOUS,
        "3.1.5",
        "Expects a cancel to succeed; every task is terminal, so TaskNotCancelableError (-32002).",
    ),
    "tests/mandatory/protocol/test_a2a_v030_new_methods.py::TestMethodMappingCompliance"
    "::test_core_method_mapping_compliance": Deviation(
        SYNCHRONOUS, "3.1.5", "Expects CancelTask to return the task canceled (as above)."
    ),
    **{
        _LIST + name: _WORKING
        for name in (
            "TestBasicListing::test_list_all_tasks",
            "TestBasicListing::test_list_tasks_validates_required_fields",
            "TestBasicListing::test_list_tasks_sorted_by_timestamp_descending",
            "TestFiltering::test_filter_by_context_id",
            "TestFiltering::test_filter_by_status",
            "TestFiltering::test_filter_by_last_updated_after",
            "TestFiltering::test_combined_filters",
            "TestPagination::test_custom_page_size",
            "TestPagination::test_page_token_navigation",
            "TestPagination::test_last_page_detection",
            "TestPagination::test_total_size_accuracy",
            "TestHistoryLimiting::test_history_length_zero",
            "TestHistoryLimiting::test_history_length_custom",
            "TestHistoryLimiting::test_history_length_exceeds_actual",
            "TestArtifactInclusion::test_artifacts_excluded_by_default",
            "TestArtifactInclusion::test_artifacts_included_when_requested",
            "TestEdgeCasesAndErrors::test_default_page_size_is_50",
        )
    },
    **{
        test: Deviation(
            ONE_CARD,
            "4.5.1, 5.7, 3.6.2",
            "Requires each security scheme to be 1.0's oneof alone. The TCK reads the card "
            "without A2A-Version, which is a v0.3 reader's request: that card keeps the hosted "
            "v0.3 scheme ({type, scheme}), as v0.3 clients need, and adds 1.0's "
            "supportedInterfaces; with A2A-Version: 1.0 the card is in 1.0's form.",
        )
        for test in (
            "tests/mandatory/authentication/test_auth_compliance_v030.py"
            "::test_security_scheme_structure_compliance",
            "tests/mandatory/authentication/test_auth_enforcement.py"
            "::test_authentication_scheme_consistency",
            "tests/mandatory/security/test_agent_card_security.py"
            "::test_security_scheme_consistency",
        )
    },
    "tests/mandatory/jsonrpc/test_a2a_error_codes_enhanced.py"
    "::test_push_notification_not_supported_error_32003_enhanced": Deviation(
        TCK,
        "3.3.4",
        "Calls its helper transport_create_task_push_notification_config with four "
        "arguments (it takes three): a TypeError before any request is sent. (The server "
        "answers the push methods with -32003, tests/test_dialect_v1.py.)",
    ),
    "tests/mandatory/security/test_agent_card_security.py"
    "::test_public_agent_card_access_control": Deviation(
        TCK,
        "8.2",
        "Fetches <JSON-RPC endpoint URL>/.well-known/agent-card.json; the card is at the "
        "domain's /.well-known/agent-card.json, where the TCK's own agent_card_data fixture "
        "reads it without authentication.",
    ),
    "tests/mandatory/security/test_agent_card_security.py"
    "::test_sensitive_information_protection": Deviation(
        TCK,
        "13.3",
        "A pattern scan: it flags the word 'token' (the OAuth flow's tokenUrl, the bearer "
        "scheme's description) and 127.0.0.1, the address of the server under test.",
    ),
    "tests/mandatory/authentication/test_auth_compliance_v030.py"
    "::test_oauth2_metadata_url_validation": Deviation(
        TCK,
        "4.5.4",
        "Requires an https:// oauth2MetadataUrl; the server under test runs on "
        "http://127.0.0.1, and names its public URL (A2A_PUBLIC_URL), https in deployment.",
    ),
}


def test_tck_mandatory_jsonrpc(tmp_path: Path, plugin_site: Path) -> None:
    python, source = tck_env()
    plugins = os.pathsep.join([str(ROOT), str(ROOT / "tests" / "plugins"), str(plugin_site)])
    env = {"PYTHONPATH": plugins, "A2A_DEFAULT_SKILL": "echo"}
    report = tmp_path / "tck.json"
    (tmp_path / "server").mkdir()
    with serve_in_test_mode(tmp_path / "server", env) as server:
        token = server.issue_token("enterprise", "tck", perMinute=100_000, qaPerMinute=100_000)
        credentials = {"Authorization": f"Bearer {token}", "A2A-Version": "1.0"}
        tck_environment = {k: v for k, v in os.environ.items() if not k.startswith("A2A_")}
        tck_environment["A2A_AUTH_HEADERS"] = json.dumps(credentials)
        done = subprocess.run(
            [
                str(python),
                "-m",
                "pytest",
                "tests/mandatory/",
                f"--sut-url={server.endpoint_url}",
                "--test-scope=all",
                "--tb=short",
                "-m",
                MARKERS,
                "--transports",
                "jsonrpc",
                "--json-report",
                f"--json-report-file={report}",
                "-p",
                "no:cacheprovider",
                "-q",
            ],
            cwd=source,
            env=tck_environment,
            capture_output=True,
            text=True,
            timeout=TCK_TIMEOUT,
            check=False,
        )
    assert report.exists(), done.stdout[-6000:] + done.stderr[-3000:]
    outcomes = {test["nodeid"]: test["outcome"] for test in json.loads(report.read_text())["tests"]}
    failed = {test for test, outcome in outcomes.items() if outcome in ("failed", "error")}
    unexpected = sorted(failed - set(DEVIATIONS))
    fixed = sorted(set(DEVIATIONS) - failed)
    assert (unexpected, fixed) == ([], []), done.stdout[-8000:]
    passed = {test for test, outcome in outcomes.items() if outcome == "passed"}
    assert len(passed) >= 55, outcomes
