"""The test mode's HTTP API under ``/_test/``; mounted only with
``A2A_TEST_MODE=1`` and guarded by ``A2A_ADMIN_TOKEN``. Bad input is a 422."""

from __future__ import annotations

import secrets
from collections.abc import Callable, Coroutine
from typing import Annotated, Any

from fastapi import APIRouter, Depends, HTTPException, Request, Response
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute
from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic.alias_generators import to_camel

from magisterium_a2a.server.clock import iso_timestamp, parse_timestamp
from magisterium_a2a.server.errors import RPCError
from magisterium_a2a.server.identity import Plan, hash_token
from magisterium_a2a.server.runtime import runtime_of
from magisterium_a2a.server.testmode.state import (
    EARLIEST,
    LATEST,
    ClockOutOfRange,
    Scenario,
    TestMode,
)
from magisterium_a2a.server.tokens import TokenRecord, new_token


class AdminModel(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid")


class TokenRequest(AdminModel):
    plan: Plan
    user: str | None = Field(None, min_length=1)
    expires_in: float | None = Field(None, gt=0)
    per_minute: int | None = Field(None, ge=1)
    qa_per_minute: int | None = Field(None, ge=1)


class ClockRequest(AdminModel):
    now: Annotated[float, Field(ge=EARLIEST, le=LATEST, allow_inf_nan=False)] | str | None = Field(
        None, description="Epoch seconds or ISO 8601, between 1970 and 9999"
    )
    advance: float | None = Field(
        None,
        ge=-LATEST,
        le=LATEST,
        allow_inf_nan=False,
        description="Seconds to move forward (or back)",
    )

    @model_validator(mode="after")
    def _one(self) -> ClockRequest:
        if (self.now is None) == (self.advance is None):
            raise ValueError("give exactly one of 'now' and 'advance'")
        return self


class ExpireRequest(AdminModel):
    token: str = Field(min_length=1)
    task_id: str = Field(min_length=1)


def _test_mode(request: Request) -> TestMode:
    runtime = runtime_of(request)
    supplied = request.headers.get("authorization", "")
    expected = f"Bearer {runtime.settings.admin_token}"
    if runtime.testmode is None or not secrets.compare_digest(supplied, expected):
        raise HTTPException(401, "admin token required", {"WWW-Authenticate": "Bearer"})
    return runtime.testmode


class _Route(APIRoute):
    """Answers a body that fails validation with a 422 that leaves out what was sent:
    FastAPI's own would echo it, and cannot encode a number such as ``1e400``
    (infinite once parsed), so it would answer 500."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def guarded(request: Request) -> Response:
            try:
                return await handler(request)
            except RequestValidationError as exc:
                errors = [{k: v for k, v in e.items() if k != "input"} for e in exc.errors()]
                return JSONResponse({"detail": jsonable_encoder(errors)}, status_code=422)

        return guarded


Mode = Annotated[TestMode, Depends(_test_mode)]
router = APIRouter(prefix="/_test", route_class=_Route)


def _clock(mode: TestMode) -> dict[str, Any]:
    now = mode.clock.now()
    return {"now": iso_timestamp(now), "epoch": now}


@router.post("/tokens")
async def issue_token(body: TokenRequest, mode: Mode, request: Request) -> dict[str, str]:
    runtime = runtime_of(request)
    created = mode.clock.now()
    user = body.user or f"test-{body.plan}-{secrets.token_hex(4)}"
    record = TokenRecord(
        user_id=user,
        plan=body.plan,
        created_at=created,
        expires_at=created + body.expires_in if body.expires_in else None,
        per_minute=body.per_minute,
        qa_per_minute=body.qa_per_minute,
    )
    token = new_token()
    await runtime.tokens.put(hash_token(token), record)
    return {"token": token, "user": user, "plan": body.plan}


@router.post("/scenarios")
async def add_scenario(scenario: Scenario, mode: Mode) -> dict[str, str]:
    return {"id": await mode.add(scenario)}


@router.get("/scenarios")
async def list_scenarios(token: str, mode: Mode) -> dict[str, Any]:
    return {"scenarios": await mode.pending(token)}


@router.get("/clock")
async def get_clock(mode: Mode) -> dict[str, Any]:
    await mode.refresh_clock()
    return _clock(mode)


@router.post("/clock")
async def set_clock(body: ClockRequest, mode: Mode) -> dict[str, Any]:
    try:
        if body.now is None:
            await mode.advance_clock(body.advance or 0.0)
        else:
            await mode.set_clock(parse_timestamp(body.now))
    except ClockOutOfRange as exc:
        raise HTTPException(422, str(exc)) from None
    except ValueError as exc:
        raise HTTPException(422, f"'now' is not a time: {exc}") from None
    return _clock(mode)


@router.post("/tasks/expire")
async def expire_task(body: ExpireRequest, mode: Mode, request: Request) -> dict[str, bool]:
    runtime = runtime_of(request)
    try:
        principal = await runtime.auth.identify(f"Bearer {body.token}")
    except RPCError as exc:
        raise HTTPException(422, f"token: {exc.message}") from None
    if not await runtime.store.forget(principal.owner, body.task_id):
        raise HTTPException(404, "no such task for this token")
    return {"expired": True}


@router.post("/reset")
async def reset(mode: Mode) -> dict[str, int]:
    return {"deleted": await mode.reset()}
