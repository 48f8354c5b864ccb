-- Admit a request (admission.lua) and, only if admitted, store its finished task,
-- append it to its context and index it (index.lua), all in one atomic round trip.
-- task: the task's key; context: the list of its context's task ids.
local verdict = admit()
if verdict[1] == 1 then
  redis.call('SET', task, record, 'EX', ttl_seconds)
  redis.call('RPUSH', context, task_id)
  redis.call('LTRIM', context, -tonumber(context_cap), -1)
  redis.call('EXPIRE', context, ttl_seconds)
  index_task()
end
return verdict
