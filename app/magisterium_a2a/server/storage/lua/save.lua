-- Store a finished task with no admission (a skill that ran after its admission,
-- or a task whose state changed): the task, its context's list, its indexes
-- (index.lua). earlier_state: the set of the state it leaves (by_state when new).
redis.call('SET', task, record, 'EX', ttl_seconds)
redis.call('RPUSH', context, task_id)
redis.call('LTRIM', context, -tonumber(context_cap), -1)
redis.call('EXPIRE', context, ttl_seconds)
if earlier_state ~= by_state then
  redis.call('ZREM', earlier_state, task_id)
end
index_task()
return 1
