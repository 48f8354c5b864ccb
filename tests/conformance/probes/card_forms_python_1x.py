"""Which card forms the Python SDK's 1.x card resolver takes, in its own venv.

Reads a plan (JSON) on stdin and prints a report (JSON) on stdout. For each of
the card's two forms, the hosted v0.3 one (fetched without ``A2A-Version``)
and 1.0's (fetched with ``A2A-Version: 1.0``), it resolves the card with
``A2ACardResolver``, makes a client from what it resolved, and sends one
message through it. The test asserts on the report; this script only observes.
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

import httpx
from a2a.client import A2ACardResolver, ClientConfig, ClientFactory
from a2a.types import Message, Part, Role, SendMessageRequest
from google.protobuf.json_format import MessageToDict
from google.protobuf.struct_pb2 import Struct

FORMS = {"hosted": {}, "1.0": {"A2A-Version": "1.0"}}


async def one_form(plan: dict[str, Any], form: str) -> dict[str, Any]:
    seen: dict[str, Any] = {"resolved": False, "error": None, "sent": None}
    headers = {"Authorization": f"Bearer {plan['tokens']['pro']}"}
    async with httpx.AsyncClient(headers=headers, timeout=60) as http:
        try:
            card = await A2ACardResolver(http, plan["baseUrl"]).get_agent_card(
                http_kwargs={"headers": FORMS[form]}
            )
        except Exception as exc:
            seen["error"] = f"{type(exc).__name__}: {exc}"
            return seen
        seen["resolved"] = True
        seen["interfaces"] = [
            [i.protocol_binding, i.protocol_version] for i in card.supported_interfaces
        ]
        seen["schemes"] = sorted(
            next(iter(MessageToDict(scheme))) for scheme in card.security_schemes.values()
        )
        metadata = Struct()
        metadata.update({"skillId": plan["skill"]})
        message = Message(
            role=Role.ROLE_USER,
            message_id=f"card-{form}",
            parts=[Part(text=plan["text"])],
            metadata=metadata,
        )
        client = ClientFactory(ClientConfig(httpx_client=http, streaming=False)).create(card)
        try:
            async for event in client.send_message(SendMessageRequest(message=message)):
                seen["sent"] = MessageToDict(event.task)["status"]["state"]
        except Exception as exc:
            seen["sent"] = f"{type(exc).__name__}: {exc}"
        finally:
            await client.close()
    return seen


async def run(plan: dict[str, Any]) -> dict[str, Any]:
    return {form: await one_form(plan, form) for form in FORMS}


if __name__ == "__main__":
    print(json.dumps(asyncio.run(run(json.loads(sys.stdin.read())))))
