"""(2) The official a2a-sdk 0.3 server as shipped: its FastAPI application,
DefaultRequestHandler and InMemoryTaskStore, with an executor that completes
at once (one text artifact)."""

from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.apps import A2AFastAPIApplication
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
from a2a.types import AgentCapabilities, AgentCard, AgentSkill, Part, TextPart
from a2a.utils import new_task


class InstantExecutor(AgentExecutor):
    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        assert context.message is not None
        task = context.current_task or new_task(context.message)
        await event_queue.enqueue_event(task)
        updater = TaskUpdater(event_queue, task.id, task.context_id)
        await updater.add_artifact([Part(root=TextPart(text="done"))], name="document")
        await updater.complete()

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        raise RuntimeError("not cancelable")


card = AgentCard(
    name="bench",
    description="benchmark agent",
    url="http://127.0.0.1:8000/api/v1/a2a",
    version="1",
    capabilities=AgentCapabilities(streaming=False),
    default_input_modes=["text/plain"],
    default_output_modes=["text/plain"],
    skills=[AgentSkill(id="x", name="x", description="x", tags=["x"])],
)
handler = DefaultRequestHandler(agent_executor=InstantExecutor(), task_store=InMemoryTaskStore())
app = A2AFastAPIApplication(agent_card=card, http_handler=handler).build(rpc_url="/api/v1/a2a")
