"""The pytest plugin a client project uses (``magisterium_a2a.testing``): its
``magisterium`` fixture serves a client of either A2A version, chosen by the
test through ``magisterium_version``."""

from __future__ import annotations

import httpx
import pytest

from magisterium_a2a.testing.pytest_plugin import MagisteriumServer

pytestmark = pytest.mark.subprocess

SEND = {
    "0.3": (
        "message/send",
        {
            "message": {
                "kind": "message",
                "role": "user",
                "messageId": "m-plugin",
                "parts": [{"kind": "text", "text": "hello"}],
                "metadata": {"skillId": "document_search"},
            }
        },
    ),
    "1.0": (
        "SendMessage",
        {
            "message": {
                "role": "ROLE_USER",
                "messageId": "m-plugin",
                "parts": [{"text": "hello"}],
                "metadata": {"skillId": "document_search"},
            }
        },
    ),
}
LIMITED = {"0.3": ("tasks/get", -32003), "1.0": ("GetTask", -31429)}


def rpc(server: MagisteriumServer, method: str, params: object) -> httpx.Response:
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    return httpx.post(server.endpoint_url, json=body, headers=server.headers("pro"), timeout=60)


@pytest.mark.parametrize("magisterium_version", ["0.3", "1.0"])
def test_a_test_chooses_the_version_its_client_speaks(
    magisterium: MagisteriumServer, magisterium_version: str
) -> None:
    assert magisterium.version == magisterium_version
    method, params = SEND[magisterium_version]
    sent = rpc(magisterium, method, params)
    assert sent.status_code == 200, sent.text
    result = sent.json()["result"]
    task = result if magisterium_version == "0.3" else result["task"]
    state = task["status"]["state"]
    assert state == {"0.3": "completed", "1.0": "TASK_STATE_COMPLETED"}[magisterium_version]
    # A forced error is given by its code in the client's version, and answered so.
    get, code = LIMITED[magisterium_version]
    magisterium.force_error(magisterium.tokens["pro"], code, method=get, retry_after=5)
    refused = rpc(magisterium, get, {"id": task["id"]})
    assert refused.status_code == 429
    assert refused.json()["error"]["code"] == code
    assert refused.headers["retry-after"] == "5"


def test_only_known_versions(magisterium: MagisteriumServer) -> None:
    assert magisterium.version == "0.3"
    assert "A2A-Version" not in magisterium.headers()
    assert magisterium.speaking("1.0").headers()["A2A-Version"] == "1.0"
    with pytest.raises(ValueError, match=r"0\.3"):
        magisterium.speaking("2.0")


@pytest.mark.parametrize("magisterium_version", ["1.0"])
def test_an_oauth_signed_in_client_of_1_0(magisterium: MagisteriumServer) -> None:
    """``oauth_login`` gives a ``mat_`` access token; a 1.0 client sends, reads
    and lists with it, as the user whose API token signed in."""
    login = magisterium.oauth_login("pro")
    assert login.access_token.startswith("mat_")
    headers = magisterium.headers(token=login.access_token)
    assert headers == {"Authorization": login.authorization, "A2A-Version": "1.0"}

    def call(method: str, params: object, sent: dict[str, str] = headers) -> httpx.Response:
        body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
        return httpx.post(magisterium.endpoint_url, json=body, headers=sent, timeout=60)

    sent = call(*SEND["1.0"])
    assert sent.status_code == 200, sent.text
    task = sent.json()["result"]["task"]
    assert task["status"]["state"] == "TASK_STATE_COMPLETED"
    got = call("GetTask", {"id": task["id"], "historyLength": 0})
    assert got.json()["result"]["id"] == task["id"]
    assert "history" not in got.json()["result"]
    for credentials in (headers, magisterium.headers("pro")):
        listed = call("ListTasks", {"pageSize": 5}, credentials).json()["result"]
        assert task["id"] in [t["id"] for t in listed["tasks"]]
    other = magisterium.headers("enterprise")
    listed = call("ListTasks", {}, other).json()["result"]
    assert task["id"] not in [t["id"] for t in listed["tasks"]]
    bogus = magisterium.headers(token="mat_" + "x" * 43)
    refused = call("GetTask", {"id": task["id"]}, bogus)
    assert (refused.status_code, refused.json()["error"]["code"]) == (401, -31401)
