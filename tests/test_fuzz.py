"""Robustness: random and mutated JSON-RPC bodies, headers and parts.

Whatever arrives, the endpoint answers a JSON-RPC response (one object, or a
batch array) with one of the contract's codes and the HTTP status the contract
gives that code; never a 500, never HTML, never an internal error (no fault is
forced here, so a ``-32603`` would be a bug), and it keeps serving afterwards.
Hypothesis drives the in-process app (test mode and recording on, as client
developers run it) and a real server process; the explicit cases are the
classic parser traps.
"""

from __future__ import annotations

import copy
import functools
import os
import secrets
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import jsonschema
import orjson
import pytest
from anyio.from_thread import start_blocking_portal
from hypothesis import HealthCheck, currently_in_test_context, event, given, settings
from hypothesis import strategies as st

from magisterium_a2a.server.config import Settings
from magisterium_a2a.testing.admin_client import AdminClient
from magisterium_a2a.testing.pytest_plugin import MagisteriumServer
from tests.support import ENDPOINT, a2a_schema, harness, rpc_body, send_params, server_process

CONTRACT_CODES = frozenset(
    {-32700, -32600, -32601, -32602, -32603, -32001, -32002, -32003, -32004, -32005}
)
STATUS_OF = {-32003: 429, -32004: 401, -32005: 403}
MAX_BODY = 8 * 1024 * 1024  # raised, so that the 100,000-part message is parsed
ADMIN = secrets.token_urlsafe(24)
SKILLS = ["echo", "echo_expensive", "explode", "refuse", "earlier", "empty", "catholic_qa", "nope"]
IN_CI = os.environ.get("CI") == "true"


# --- what every answer must be ------------------------------------------------

_SCHEMA = a2a_schema()
_TASK_VALIDATOR = (
    jsonschema.Draft7Validator(
        {"$ref": "#/definitions/Task", "definitions": _SCHEMA["definitions"]}
    )
    if _SCHEMA is not None
    else None
)


@dataclass(frozen=True)
class Answer:
    status: int
    content_type: str | None
    body: bytes

    @classmethod
    def of(cls, response: httpx.Response) -> Answer:
        return cls(response.status_code, response.headers.get("content-type"), response.content)

    def json(self) -> Any:
        return orjson.loads(self.body)


def check_object(obj: Any, *, validate: bool) -> int | None:
    """One JSON-RPC response object; its error code, or None for a result."""
    assert isinstance(obj, dict), obj
    assert obj["jsonrpc"] == "2.0"
    assert obj["id"] is None or isinstance(obj["id"], str | int), obj
    assert ("result" in obj) != ("error" in obj), obj
    if "error" in obj:
        error = obj["error"]
        assert set(error) <= {"code", "message", "data"}, error
        assert error["code"] in CONTRACT_CODES, error
        assert error["code"] != -32603, f"an internal error: {error}"
        assert isinstance(error["message"], str) and error["message"], error
        return int(error["code"])
    task = obj["result"]
    assert task["kind"] == "task"
    assert task["status"]["state"] in ("completed", "failed"), task["status"]
    if validate and _TASK_VALIDATOR is not None:
        _TASK_VALIDATOR.validate(task)
    return None


def check_answer(answer: Answer, *, validate: bool = True) -> Any:
    """Any answer of the endpoint: a contract-shaped response with the contract's status."""
    assert answer.status != 500, answer.body[:500]
    assert answer.content_type == "application/json", (answer.status, answer.body[:200])
    payload = answer.json()
    if isinstance(payload, list):
        assert payload, "an empty batch answer"
        codes = [check_object(item, validate=validate) for item in payload]
        assert answer.status == (401 if all(c == -32004 for c in codes) else 200), codes
        return payload
    code = check_object(payload, validate=validate)
    if currently_in_test_context():  # for --hypothesis-show-statistics
        event(f"answered {code or payload['result']['status']['state']}")
    if answer.status == 413:
        assert code == -32600 and payload["id"] is None
    else:
        assert answer.status == STATUS_OF.get(code or 0, 200), (answer.status, payload)
    return payload


# --- the two targets ----------------------------------------------------------


@dataclass
class Target:
    """An endpoint to throw bodies at, and tokens that reach every check."""

    post: Callable[[bytes | Iterator[bytes], dict[str, str]], Answer]
    tokens: dict[str, str]

    def auth(self, token: str | None) -> dict[str, str]:
        headers = {"Content-Type": "application/json"}
        if token is not None:
            headers["Authorization"] = f"Bearer {self.tokens.get(token, token)}"
        return headers

    def healthy(self) -> None:
        """A plain request after the storm still gets its task."""
        body = orjson.dumps(rpc_body("message/send", send_params("still here")))
        answer = self.post(body, self.auth("good"))
        assert answer.status == 200, answer.body[:300]
        assert answer.json()["result"]["artifacts"][0]["parts"][0]["text"] == "still here"


def fuzz_settings(tmp: Path) -> Settings:
    return Settings(  # type: ignore[call-arg]
        _env_file=None,
        data_dir=tmp / "data",
        max_body_bytes=MAX_BODY,
        max_message_bytes=MAX_BODY,
        max_answer_bytes=4 * MAX_BODY,  # the echo's task holds the message twice
        disabled_skills=["hang"],
        test_mode=True,
        admin_token=ADMIN,
        record_dir=tmp / "records",
    )


@pytest.fixture(scope="module")
def in_process(tmp_path_factory: pytest.TempPathFactory, plugin_site: Path) -> Iterator[Target]:
    """The app in process, on its own event loop thread, called synchronously."""
    configured = fuzz_settings(tmp_path_factory.mktemp("fuzz-in-process"))
    with (
        start_blocking_portal() as portal,
        portal.wrap_async_context_manager(harness(configured)) as h,
    ):

        def post(content: bytes | Iterator[bytes], headers: dict[str, str]) -> Answer:
            send = functools.partial(h.client.post, ENDPOINT, content=content, headers=headers)
            return Answer.of(portal.call(send))

        def token(plan: str, **limits: Any) -> str:
            return portal.call(functools.partial(h.token, plan, **limits))

        tokens = {
            "good": token("enterprise", per_minute=10**9, qa_per_minute=10**9),
            "pro": token("pro"),
            "free": token("free"),
        }
        yield Target(post, tokens)


@pytest.fixture(scope="module")
def subprocess_target(
    tmp_path_factory: pytest.TempPathFactory, plugin_site: Path
) -> Iterator[Target]:
    """A real ``magisterium-a2a serve`` process, over real HTTP."""
    tmp = tmp_path_factory.mktemp("fuzz-subprocess")
    env = {
        "A2A_DATA_DIR": str(tmp / "data"),
        "A2A_MAX_BODY_BYTES": str(MAX_BODY),
        "A2A_MAX_MESSAGE_BYTES": str(MAX_BODY),
        "A2A_MAX_ANSWER_BYTES": str(4 * MAX_BODY),
        "A2A_DISABLED_SKILLS": "hang",
        "A2A_TEST_MODE": "1",
        "A2A_ADMIN_TOKEN": ADMIN,
        "A2A_RECORD_DIR": str(tmp / "records"),
        "A2A_LOG_LEVEL": "critical",
        "PYTHONPATH": str(plugin_site),
    }
    with server_process(env, tmp) as process, httpx.Client(timeout=60) as client:
        admin = AdminClient(process.base_url, ADMIN)
        server = MagisteriumServer(process.base_url, admin)
        tokens = {
            "good": server.issue_token("enterprise", perMinute=10**9, qaPerMinute=10**9),
            "pro": server.issue_token("pro"),
            "free": server.issue_token("free"),
        }
        admin.close()

        def post(content: bytes | Iterator[bytes], headers: dict[str, str]) -> Answer:
            return Answer.of(client.post(server.endpoint_url, content=content, headers=headers))

        target = Target(post, tokens)
        yield target
        assert process.process.poll() is None, process.log()
        assert client.get(f"{process.base_url}/healthz").status_code == 200
        target.healthy()


# --- strategies ---------------------------------------------------------------

json_leaf = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20)
)
json_value = st.recursive(
    json_leaf,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
json_object = st.dictionaries(st.text(max_size=8), json_value, max_size=4)

part = st.one_of(
    st.builds(lambda t: {"kind": "text", "text": t}, st.text(max_size=30)),
    st.builds(lambda d: {"kind": "data", "data": d}, json_object),
    st.builds(
        lambda f: {"kind": "file", "file": f},
        st.fixed_dictionaries({"uri": st.text(max_size=20)}, optional={"mimeType": st.text()})
        | st.fixed_dictionaries({"bytes": st.text(max_size=20)}, optional={"name": st.text()})
        | json_value,
    ),
    st.dictionaries(st.sampled_from(["kind", "text", "data", "file", "metadata"]), json_value),
    json_value,
)
skill_id = st.sampled_from(SKILLS) | json_value
message = st.fixed_dictionaries(
    {
        "kind": st.just("message") | json_value,
        "role": st.sampled_from(["user", "agent"]) | json_value,
        "messageId": st.text(max_size=12) | json_value,
        "parts": st.lists(part, max_size=5) | json_value,
    },
    optional={
        "metadata": st.fixed_dictionaries({}, optional={"skillId": skill_id}) | json_value,
        "contextId": st.text(max_size=12) | json_value,
        "taskId": st.text(max_size=12) | json_value,
        "referenceTaskIds": json_value,
    },
)
params = st.one_of(
    st.fixed_dictionaries({"message": message}, optional={"configuration": json_value}),
    st.fixed_dictionaries(
        {"id": st.text(max_size=12) | json_value}, optional={"historyLength": json_value}
    ),
    json_value,
)
method = st.sampled_from(["message/send", "tasks/get", "tasks/cancel", "tasks/list"]) | st.text(
    max_size=20
)
request_id = st.integers(min_value=-(2**63), max_value=2**64 - 1) | st.text(max_size=8) | json_value
envelope = st.fixed_dictionaries(
    {},
    optional={
        "jsonrpc": st.just("2.0") | json_value,
        "id": request_id,
        "method": method,
        "params": params,
    },
)


@st.composite
def mutated(draw: st.DrawFn, base: st.SearchStrategy[Any]) -> Any:
    """A value with a few of its nodes deleted, replaced or added."""
    value = copy.deepcopy(draw(base))
    for _ in range(draw(st.integers(0, 3))):
        slots: list[tuple[Any, Any]] = []
        stack = [value]
        while stack:
            node = stack.pop()
            keys = list(node) if isinstance(node, dict) else range(len(node))
            for key in keys:
                slots.append((node, key))
                if isinstance(node[key], dict | list):
                    stack.append(node[key])
        if not slots:
            break
        node, key = draw(st.sampled_from(slots))
        action = draw(st.sampled_from(["delete", "replace", "add"]))
        if action == "delete":
            del node[key]
        elif action == "replace":
            node[key] = draw(json_value)
        elif isinstance(node, dict):
            node[draw(st.text(max_size=8))] = draw(json_value)
        else:
            node.append(draw(json_value))
    return value


def valid_request() -> st.SearchStrategy[dict[str, Any]]:
    sends = st.builds(
        lambda text, skill, parts: rpc_body(
            "message/send", send_params(text, skill, parts=parts), "r1"
        ),
        st.text(max_size=20),
        st.sampled_from(SKILLS),
        st.none() | st.lists(part, min_size=1, max_size=4),
    )
    reads = st.builds(
        lambda m, i: rpc_body(m, {"id": i}, 7),
        st.sampled_from(["tasks/get", "tasks/cancel"]),
        st.text(max_size=12),
    )
    return sends | reads


request = envelope | mutated(valid_request()) | valid_request()


@st.composite
def byte_mutated(draw: st.DrawFn) -> bytes:
    """Serialized requests with bytes flipped, cut or inserted."""
    raw = bytearray(orjson.dumps(draw(valid_request())))
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(raw)))
        action = draw(st.sampled_from(["flip", "cut", "insert"]))
        if action == "flip" and at < len(raw):
            raw[at] = draw(st.integers(0, 255))
        elif action == "cut":
            del raw[at:]
        else:
            raw[at:at] = draw(st.binary(min_size=1, max_size=4))
    return bytes(raw)


header_text = st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=40)
authorization = st.one_of(
    st.just(("token", "good")),
    st.sampled_from(["pro", "free", "mag_unknown", None]).map(lambda t: ("token", t)),
    st.sampled_from(["", "Bearer", "Bearer ", "Basic dXNlcjpwYXNz", "bearer good"]).map(
        lambda h: ("raw", h)
    ),
    header_text.map(lambda h: ("raw", h)),
)
content_type = (
    st.sampled_from(
        ["application/json", "text/plain", "", "application/json; charset=latin-1", "text/html"]
    )
    | header_text
)


def headers_for(target: Target, auth: tuple[str, str | None], ctype: str) -> dict[str, str]:
    # HTTP trims the whitespace around a field value (and h11 refuses to send it).
    kind, value = auth
    headers = target.auth(value) if kind == "token" else {"Authorization": (value or "").strip()}
    headers["Content-Type"] = ctype.strip()
    return headers


FUZZ = settings(
    max_examples=150,
    deadline=None,
    derandomize=IN_CI,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


# --- hypothesis against the app in process ------------------------------------


@FUZZ
@given(body=request, auth=authorization, ctype=content_type)
def test_random_requests(
    in_process: Target, body: Any, auth: tuple[str, str | None], ctype: str
) -> None:
    answer = in_process.post(orjson.dumps(body), headers_for(in_process, auth, ctype))
    payload = check_answer(answer)
    if isinstance(body, dict) and isinstance(payload, dict) and answer.status != 413:
        sent_id = body.get("id")
        if isinstance(sent_id, str) or (isinstance(sent_id, int) and not isinstance(sent_id, bool)):
            assert payload["id"] == sent_id


@FUZZ
@given(batch=st.lists(request, max_size=24), auth=authorization)
def test_random_batches(in_process: Target, batch: list[Any], auth: tuple[str, str | None]) -> None:
    answer = in_process.post(orjson.dumps(batch), headers_for(in_process, auth, "application/json"))
    payload = check_answer(answer)
    if 0 < len(batch) <= 20:
        assert isinstance(payload, list) and len(payload) == len(batch)


@FUZZ
@given(body=st.binary(max_size=300) | byte_mutated(), auth=authorization)
def test_random_bytes(in_process: Target, body: bytes, auth: tuple[str, str | None]) -> None:
    check_answer(in_process.post(body, headers_for(in_process, auth, "application/json")))


@FUZZ
@given(parts=st.lists(part, min_size=1, max_size=12), skill=st.sampled_from(SKILLS))
def test_random_parts_with_a_good_token(in_process: Target, parts: list[Any], skill: str) -> None:
    """Past authentication, so that params checks and skills see the parts."""
    body = orjson.dumps(rpc_body("message/send", send_params(skill=skill, parts=parts)))
    check_answer(in_process.post(body, in_process.auth("good")))


# --- hypothesis against a real server process ---------------------------------


@pytest.mark.subprocess
@settings(FUZZ, max_examples=100)
@given(
    body=request.map(orjson.dumps) | byte_mutated() | st.binary(max_size=200),
    auth=authorization,
    ctype=content_type,
)
def test_random_requests_over_http(
    subprocess_target: Target, body: bytes, auth: tuple[str, str | None], ctype: str
) -> None:
    check_answer(subprocess_target.post(body, headers_for(subprocess_target, auth, ctype)))


# --- the classic traps, on both targets ---------------------------------------


def _send_with_data(data: bytes) -> bytes:
    return (
        b'{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message",'
        b'"role":"user","messageId":"m","parts":[{"kind":"data","data":'
        + data
        + b'}],"metadata":{"skillId":"echo"}}}}'
    )


def _nested_object(depth: int) -> bytes:
    return b'{"n":' * depth + b"1" + b"}" * depth


def _many_parts(count: int) -> bytes:
    parts = [{"kind": "text", "text": str(i)} for i in range(count)]
    return orjson.dumps(rpc_body("message/send", send_params(parts=parts), "many"))


def _error(code: int) -> Callable[[Answer, Any], None]:
    def check(answer: Answer, payload: Any) -> None:
        assert payload["error"]["code"] == code, payload

    return check


def _echoed_data(depth: int) -> Callable[[Answer, Any], None]:
    def check(answer: Answer, payload: Any) -> None:
        data = payload["result"]["artifacts"][0]["parts"][0]["data"]
        assert data == orjson.loads(_nested_object(depth))

    return check


def _one_of_the_duplicates(answer: Answer, payload: Any) -> None:
    # JSON leaves duplicate names to the parser; this one keeps the last.
    assert payload["id"] == 2
    assert payload["error"]["code"] == -32001
    assert payload["error"]["data"] == {"id": "second"}


def _all_parts(answer: Answer, payload: Any) -> None:
    task = payload["result"]
    assert task["status"]["state"] == "completed"
    parts = task["artifacts"][0]["parts"]
    assert len(parts) == 100_000
    assert parts[-1] == {"kind": "text", "text": "99999"}


def _null_char_kept(answer: Answer, payload: Any) -> None:
    assert payload["result"]["artifacts"][0]["parts"][0]["text"] == "a\x00b"


@dataclass(frozen=True)
class Case:
    body: Callable[[], bytes]
    check: Callable[[Answer, Any], None]
    validate: bool = True


VALID = orjson.dumps(rpc_body("tasks/get", {"id": "x"}))
CASES: dict[str, Case] = {
    "nested-100000-deep": Case(lambda: b"[" * 100_000 + b"]" * 100_000, _error(-32700)),
    "nested-too-deep-to-store": Case(lambda: _send_with_data(_nested_object(500)), _error(-32700)),
    "nested-64-deep-echoed": Case(lambda: _send_with_data(_nested_object(64)), _echoed_data(64)),
    "ten-megabytes": Case(
        lambda: (
            b'{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"'
            + b"x" * 10_000_000
            + b'"}}'
        ),
        _error(-32600),
    ),
    "not-utf8": Case(lambda: VALID.replace(b'"x"', b'"\xff\xfe\x80"'), _error(-32700)),
    "latin-1": Case(lambda: VALID.replace(b'"x"', '"café"'.encode("latin-1")), _error(-32700)),
    "utf-16": Case(lambda: VALID.decode().encode("utf-16"), _error(-32700)),
    "lone-surrogate": Case(lambda: VALID.replace(b'"x"', b'"\\ud800"'), _error(-32700)),
    "nan-id": Case(lambda: VALID.replace(b'"id":1', b'"id":NaN'), _error(-32700)),
    "nan-param": Case(
        lambda: orjson.dumps(rpc_body("tasks/get", {"id": "x", "historyLength": 1})).replace(
            b":1}", b":NaN}"
        ),
        _error(-32700),
    ),
    "infinity": Case(lambda: VALID.replace(b'"id":1', b'"id":-Infinity'), _error(-32700)),
    "duplicate-keys": Case(
        lambda: (
            b'{"jsonrpc":"2.0","id":1,"id":2,"method":"message/send","method":"tasks/get",'
            b'"params":{"id":"first","id":"second"}}'
        ),
        _one_of_the_duplicates,
    ),
    "integer-id-past-64-bits": Case(
        lambda: VALID.replace(b'"id":1', b'"id":100000000000000000000000'), _error(-32600)
    ),
    "null-character": Case(
        lambda: orjson.dumps(rpc_body("message/send", send_params("a\x00b"))), _null_char_kept
    ),
    "100000-parts": Case(lambda: _many_parts(100_000), _all_parts, validate=False),
    "batch-of-21": Case(lambda: orjson.dumps([orjson.loads(VALID)] * 21), _error(-32600)),
}


@pytest.mark.parametrize(
    "target_name", ["in_process", pytest.param("subprocess_target", marks=pytest.mark.subprocess)]
)
@pytest.mark.parametrize("name", sorted(CASES))
def test_explicit_cases(request: pytest.FixtureRequest, target_name: str, name: str) -> None:
    target: Target = request.getfixturevalue(target_name)
    case = CASES[name]
    answer = target.post(case.body(), target.auth("good"))
    case.check(answer, check_answer(answer, validate=case.validate))
    target.healthy()


@pytest.mark.subprocess
def test_ten_megabytes_streamed_without_a_length(subprocess_target: Target) -> None:
    chunk = b"x" * 1_000_000

    def chunks() -> Iterator[bytes]:
        yield b'{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"'
        for _ in range(10):
            yield chunk
        yield b'"}}'

    answer = subprocess_target.post(chunks(), subprocess_target.auth("good"))
    assert answer.status == 413
    assert check_answer(answer)["error"]["code"] == -32600
    subprocess_target.healthy()


def test_in_process_app_still_serves(in_process: Target) -> None:
    in_process.healthy()
