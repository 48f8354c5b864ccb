-- The sorted sets that list a user's tasks, scored by when each task was written
-- (ms): all of them (tasks), those in one state (by_state), those of one context
-- (by_context). scripts.py puts it after the locals of the scripts that write a
-- task (task_id, written_ms, ttl_seconds). Each write also drops the entries whose
-- tasks the TTL has retired, and keeps each set alive exactly as long as its newest
-- task, so no entry outlives its task by more than the next write, and no set grows
-- past the tasks that are still live.
local function index_task()
  local retired = string.format('%.0f', tonumber(written_ms) - tonumber(ttl_seconds) * 1000)
  for _, set in ipairs({tasks, by_state, by_context}) do
    redis.call('ZADD', set, written_ms, task_id)
    redis.call('ZREMRANGEBYSCORE', set, '-inf', retired)
    redis.call('EXPIRE', set, ttl_seconds)
  end
end
