"""(1) The floor: a bare FastAPI POST route returning a small JSON object."""

from fastapi import FastAPI, Request

app = FastAPI()


@app.post("/api/v1/a2a")
async def endpoint(request: Request) -> dict[str, object]:
    await request.body()
    return {"jsonrpc": "2.0", "id": 1, "result": {"ok": True}}
