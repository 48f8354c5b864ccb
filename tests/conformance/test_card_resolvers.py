"""Which of the card's two forms each official SDK's card resolver takes.

The card is one card written two ways (``server.agent_card``): the hosted v0.3
form, fetched without ``A2A-Version``, and 1.0's own form, fetched with
``A2A-Version: 1.0``. Each resolver is given each form, and what it resolved is
used to make a client that sends one message. What they do:

- ``a2a-sdk`` 0.3 sends no header and takes the hosted form; it rejects 1.0's
  (its ``AgentCard`` requires ``url``).
- ``@a2a-js/sdk`` 0.3 sends no header and takes the hosted form; 1.0's it
  resolves without complaint, into a card with no URL and no interfaces, from
  which no client can be made.
- ``a2a-sdk`` 1.x and ``@a2a-js/sdk`` 1.x take either and speak 1.0 from
  either, through the card's ``supportedInterfaces``. Their client factories
  send ``A2A-Version: 1.0``, so they get 1.0's form unless something between
  drops the header.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from a2a.client import A2ACardResolver, ClientConfig, ClientFactory
from a2a.client.errors import A2AClientJSONError
from a2a.types import Message, Part, Role, TextPart

from magisterium_a2a.testing.pytest_plugin import MagisteriumServer
from tests.conformance.plan import PROBES, final_task, make_plan, run_probe
from tests.conformance.toolchains import (
    JS_SDK_03,
    JS_SDK_1X,
    PYTHON_SDK_1X,
    node_script,
    npm_prefix,
    python_env,
)

pytestmark = pytest.mark.subprocess

BOTH = [["JSONRPC", "1.0"], ["JSONRPC", "0.3"]]


async def test_python_sdk_03_takes_the_hosted_form_only(
    conformance_server: MagisteriumServer,
) -> None:
    plan = make_plan(conformance_server, "cards-python-0.3")
    headers = {"Authorization": f"Bearer {plan['tokens']['pro']}"}
    async with httpx.AsyncClient(headers=headers, timeout=30) as http:
        resolver = A2ACardResolver(http, plan["baseUrl"])
        with pytest.raises(A2AClientJSONError, match=r'"loc":\["url"\],"msg":"Field required"'):
            await resolver.get_agent_card(http_kwargs={"headers": {"A2A-Version": "1.0"}})
        card = await resolver.get_agent_card()
        assert card.url == conformance_server.endpoint_url
        client = ClientFactory(ClientConfig(httpx_client=http, streaming=False)).create(card)
        outgoing = Message(
            role=Role.user,
            message_id="cards-py03",
            parts=[Part(root=TextPart(text=plan["text"]))],
            metadata={"skillId": "echo"},
        )
        try:
            events = [event async for event in client.send_message(outgoing)]
        finally:
            await client.close()
    assert final_task(events).status.state.value == "completed"


def test_python_sdk_1x_takes_either_form(conformance_server: MagisteriumServer) -> None:
    python = python_env(PYTHON_SDK_1X)
    plan = make_plan(conformance_server, "cards-python-1.x")
    report = run_probe([str(python), str(PROBES / "card_forms_python_1x.py")], plan)
    for form in ("hosted", "1.0"):
        seen: dict[str, Any] = report[form]
        assert (seen["resolved"], seen["error"]) == (True, None), (form, seen)
        assert seen["interfaces"] == BOTH, (form, seen)
        assert "httpAuthSecurityScheme" in seen["schemes"], (form, seen)
        assert seen["sent"] == "TASK_STATE_COMPLETED", (form, seen)


@pytest.mark.parametrize("line", ["0.3", "1.x"])
def test_js_sdk_card_forms(conformance_server: MagisteriumServer, line: str) -> None:
    prefix = npm_prefix([JS_SDK_03 if line == "0.3" else JS_SDK_1X])
    plan = make_plan(conformance_server, f"cards-js-{line}") | {"line": line}
    script = node_script(prefix, PROBES / "card_forms.mjs")
    report = run_probe(["node", str(script)], plan, cwd=prefix)
    hosted, v10 = report["hosted"], report["1.0"]
    assert (hosted["resolved"], hosted["url"]) == (True, conformance_server.endpoint_url), hosted
    assert hosted["sent"] == ("completed" if line == "0.3" else "TASK_STATE_COMPLETED"), hosted
    assert v10["resolved"] is True, v10
    if line == "0.3":
        # Read as a v0.3 protobuf card: no url, no interfaces, so no transport.
        assert (v10["url"], v10["interfaces"]) == ("", []), v10
        assert v10["sent"].startswith("Error: No compatible transport found"), v10
    else:
        assert v10["interfaces"] == BOTH, v10
        assert v10["sent"] == "TASK_STATE_COMPLETED", v10
