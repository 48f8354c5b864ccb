"""The A2A methods: ``message/send``, ``tasks/get`` and ``tasks/cancel``.

Each takes the authenticated principal and its validated params model and
returns the JSON of its result, so a task is encoded once for the store and
the reply. Problems are raised as ``RPCError`` subclasses.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from magisterium_a2a.plugin import Skill, SkillContext, SkillError
from magisterium_a2a.server.clock import Clock, IdFactory, iso_timestamp
from magisterium_a2a.server.config import Settings
from magisterium_a2a.server.errors import (
    InvalidParams,
    InvalidStateTransition,
    SkillNotFound,
    TaskNotFound,
)
from magisterium_a2a.server.identity import Principal
from magisterium_a2a.server.protocol import (
    PART_KINDS,
    TERMINAL_STATES,
    Artifact,
    JSONRPCRequest,
    Message,
    MessageSendParams,
    Part,
    Task,
    TaskIdParams,
    TaskQueryParams,
    TaskState,
    TaskStatus,
    TextPart,
    Wire,
)
from magisterium_a2a.server.ratelimit import RateLimiter
from magisterium_a2a.server.registry import SkillRegistry
from magisterium_a2a.server.taskjson import BuiltTask, encode, plain
from magisterium_a2a.server.tasks import TaskPage, TaskQuery, TaskStore
from magisterium_a2a.server.testmode import Faults

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Result:
    """A method's result, already JSON, and any HTTP headers it adds."""

    payload: bytes
    headers: dict[str, str] = field(default_factory=dict)
    outcome: str = "ok"


@dataclass(frozen=True, slots=True)
class Method:
    params: type[Wire]
    run: Callable[[Principal, Any], Awaitable[Result]]


class A2AMethods:
    def __init__(
        self,
        *,
        settings: Settings,
        store: TaskStore,
        registry: SkillRegistry,
        limiter: RateLimiter,
        clock: Clock,
        ids: IdFactory,
        faults: Faults | None = None,
    ) -> None:
        self._faults = faults
        self._store = store
        self._registry = registry
        self._limiter = limiter
        self._clock = clock
        self._ids = ids
        self._default_skill = settings.default_skill
        self._timeout = settings.skill_timeout_seconds
        self._max_answer = settings.max_answer_bytes
        self._max_message_bytes = settings.max_message_bytes
        self.table: dict[str, Method] = {
            "message/send": Method(MessageSendParams, self.send),
            "tasks/get": Method(TaskQueryParams, self.get),
            "tasks/cancel": Method(TaskIdParams, self.cancel),
        }

    async def send(self, principal: Principal, params: MessageSendParams) -> Result:
        message = params.message
        if message.role != "user":
            raise InvalidParams.field("message.role", "must be 'user'")
        if len(message.to_json()) > self._max_message_bytes:
            raise InvalidParams.field(
                "message", f"larger than {self._max_message_bytes} bytes (A2A_MAX_MESSAGE_BYTES)"
            )
        skill_id = (message.metadata or {}).get("skillId", self._default_skill)
        if not isinstance(skill_id, str):
            raise InvalidParams.field("message.metadata.skillId", "must be a string")
        skill = self._registry.get(skill_id)
        if skill is None:
            raise SkillNotFound(data={"skillId": skill_id})
        forced = None
        if self._faults is not None:
            forced = await self._faults.skill_failure(principal, skill.id)
        admission = self._limiter.admission(principal, skill.cost)
        if skill.cheap:
            # A cheap skill runs first, so that admission and storage share one round trip.
            task = await self._execute(principal, skill, message, forced)
            payload, state = await self._store.admit_and_save(principal.owner, task, admission)
        else:
            state = await self._limiter.hit(admission)
            task = await self._execute(principal, skill, message, forced)
            payload = await self._store.save(principal.owner, task)
        return Result(payload, state.headers(), task.state)

    def skill_of(self, request: JSONRPCRequest, send: str = "message/send") -> str | None:
        """The skill a raw request to ``send`` names (before its params are checked)."""
        if request.method != send:
            return None
        params = request.params if isinstance(request.params, dict) else {}
        message = params.get("message")
        metadata = message.get("metadata") if isinstance(message, dict) else None
        skill = metadata.get("skillId") if isinstance(metadata, dict) else None
        return skill if isinstance(skill, str) else self._default_skill

    async def _execute(
        self, principal: Principal, skill: Skill, message: Message, forced: str | None
    ) -> BuiltTask:
        task_id = self._ids.uuid()
        context_id = message.context_id or self._ids.uuid()
        # The validated message belongs to this request alone: it takes its
        # task's ids in place (a copy cost more than the rest of the step).
        message.task_id = task_id
        message.context_id = context_id
        context = SkillContext(
            user_id=principal.owner,
            plan=principal.plan,
            task_id=task_id,
            context_id=context_id,
            ids=self._ids,
            clock=self._clock,
            earlier_tasks=lambda: self._store.context_tasks(principal.owner, context_id),
        )
        if forced is not None:
            return self._failed(skill, message, context, forced)
        return await self._run(skill, message, context)

    async def get(self, principal: Principal, params: TaskQueryParams) -> Result:
        if params.history_length is None:
            payload = await self._store.get_json(principal.owner, params.id, principal.token_id)
            if payload is None:
                raise TaskNotFound(data={"id": params.id})
            return Result(payload)
        task = await self.owned(principal, params.id)
        if task.history is not None:
            keep = params.history_length
            task = task.model_copy(update={"history": task.history[-keep:] if keep else []})
        return Result(task.to_json())

    async def cancel(self, principal: Principal, params: TaskIdParams) -> Result:
        task = await self.owned(principal, params.id)
        if task.status.state in TERMINAL_STATES:
            raise InvalidStateTransition(
                data={"id": task.id, "state": task.status.state},
            )
        status = TaskStatus(state="canceled", timestamp=iso_timestamp(self._clock.now()))
        canceled = task.model_copy(update={"status": status})
        built = BuiltTask(task.id, task.context_id, "canceled", canceled.to_json())
        return Result(await self._store.save(principal.owner, built, task.status.state))

    async def owned(self, principal: Principal, task_id: str) -> Task:
        """The principal's task, or TaskNotFound."""
        task = await self._store.get(principal.owner, task_id, principal.token_id)
        if task is None:
            raise TaskNotFound(data={"id": task_id})
        return task

    async def list_tasks(self, principal: Principal, query: TaskQuery) -> TaskPage:
        """A page of the principal's live tasks, most recently changed first."""
        return await self._store.list(principal.owner, query, principal.token_id)

    async def _run(self, skill: Skill, incoming: Message, context: SkillContext) -> BuiltTask:
        """Run the skill to a terminal task; a skill failure is a failed task, not an error."""
        try:
            artifacts = list(await self._answer(skill, incoming, context))
        except SkillError as exc:
            return self._failed(skill, incoming, context, str(exc))
        except TimeoutError:
            reason = f"The skill '{skill.id}' did not answer within {self._timeout:g} seconds."
            return self._failed(skill, incoming, context, reason)
        except Exception:
            log.exception("skill %s failed on task %s", skill.id, context.task_id)
            reason = f"The skill '{skill.id}' failed unexpectedly; please try again later."
            return self._failed(skill, incoming, context, reason)
        if not artifacts or not all(isinstance(a, Artifact) for a in artifacts):
            log.error("skill %s returned no artifacts, or something else", skill.id)
            reason = f"The skill '{skill.id}' produced an invalid result."
            return self._failed(skill, incoming, context, reason)
        built = self._task(skill, context, incoming, artifacts, None)
        if len(built.json) > self._max_answer:
            # Every skill bounds its own answer; this is the backstop (A2A_MAX_ANSWER_BYTES).
            log.warning("skill %s answered %d bytes; refused", skill.id, len(built.json))
            reason = (
                f"The skill '{skill.id}' answered more than {self._max_answer} bytes; "
                "ask for less (a narrower query or a smaller document)."
            )
            return self._failed(skill, incoming, context, reason)
        return built

    async def _answer(
        self, skill: Skill, incoming: Message, context: SkillContext
    ) -> Sequence[Artifact]:
        """The skill's answer, within the skill deadline.

        A cheap skill answers without waiting on anything, so its first step is
        its whole run: that step goes at once, without the deadline's timer (which
        costs more than the skill). One that has to wait after all is closed there
        and run again under the deadline; being free of side effects, it may.
        """
        step = skill.handle(incoming, context)
        if skill.cheap and inspect.iscoroutine(step):
            try:
                step.send(None)
            except StopIteration as done:
                answer: Sequence[Artifact] = done.value
                return answer
            step.close()
            step = skill.handle(incoming, context)
        async with asyncio.timeout(self._timeout):
            return await step

    def _failed(
        self, skill: Skill, incoming: Message, context: SkillContext, reason: str
    ) -> BuiltTask:
        return self._task(skill, context, incoming, [], TextPart(kind="text", text=reason))

    def _task(
        self,
        skill: Skill,
        context: SkillContext,
        incoming: Message,
        artifacts: list[Artifact],
        failure: TextPart | None,
    ) -> BuiltTask:
        """The terminal task: completed with the artifacts (the agent's reply
        repeats their parts), or failed with ``failure`` as the reply and status."""
        reply_id = self._ids.uuid()
        timestamp = iso_timestamp(self._clock.now())
        state: TaskState = "completed" if failure is None else "failed"
        artifact_docs = [plain(artifact) for artifact in artifacts]
        reply_parts = (
            [part for doc in artifact_docs for part in doc["parts"]]
            if failure is None
            else [plain(failure)]
        )
        # Field order as the models declare it (Message, TaskStatus, Task).
        reply = {
            "kind": "message",
            "role": "agent",
            "messageId": reply_id,
            "parts": reply_parts,
            "contextId": context.context_id,
            "taskId": context.task_id,
        }
        status: dict[str, Any] = {"state": state}
        if failure is not None:
            status["message"] = reply
        status["timestamp"] = timestamp
        payload = encode(
            {
                "kind": "task",
                "id": context.task_id,
                "contextId": context.context_id,
                "status": status,
                "artifacts": artifact_docs,
                "history": [plain(incoming), reply],
                "metadata": {"skillId": skill.id},
            }
        )
        if payload is None:
            payload = self._task_model(
                skill, context, incoming, artifacts, failure, reply_id, timestamp
            ).to_json()
        return BuiltTask(context.task_id, context.context_id, state, payload)

    @staticmethod
    def _task_model(
        skill: Skill,
        context: SkillContext,
        incoming: Message,
        artifacts: list[Artifact],
        failure: TextPart | None,
        reply_id: str,
        timestamp: str,
    ) -> Task:
        """The same task as models, for what only pydantic can write."""
        parts: list[Part] = (
            [part for artifact in artifacts for part in artifact.parts]
            if failure is None
            else [failure]
        )
        reply = Message(
            kind="message",
            role="agent",
            message_id=reply_id,
            task_id=context.task_id,
            context_id=context.context_id,
            parts=parts,
        )
        return Task(
            kind="task",
            id=context.task_id,
            context_id=context.context_id,
            status=TaskStatus(
                state="completed" if failure is None else "failed",
                message=None if failure is None else reply,
                timestamp=timestamp,
            ),
            artifacts=artifacts,
            history=[incoming, reply],
            metadata={"skillId": skill.id},
        )


def parse_params(model: type[Wire], params: Any) -> Any:
    """Validate params into their model; the error names the first bad field."""
    if params is None:
        raise InvalidParams.field("params", "required")
    if not isinstance(params, dict):
        raise InvalidParams.field("params", "must be an object")
    try:
        return model.model_validate(params)
    except ValidationError as exc:
        error = exc.errors(include_url=False)[0]
        raise InvalidParams.field(_field_path(error["loc"]), error["msg"]) from None


def _field_path(loc: Sequence[int | str]) -> str:
    """``('message', 'parts', 0, 'text', 'text')`` -> ``message.parts[0].text``.

    Pydantic puts the discriminator tag of a tagged union in the location;
    it is not a field, so it is dropped.
    """
    path = ""
    previous: int | str | None = None
    for item in loc:
        if isinstance(item, int):
            path += f"[{item}]"
        elif isinstance(previous, int) and item in PART_KINDS and path.endswith("]"):
            previous = None
            continue
        else:
            path += f".{item}" if path else item
        previous = item
    return path or "params"
