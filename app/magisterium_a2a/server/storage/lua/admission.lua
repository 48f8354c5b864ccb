-- The moving-window admission shared by the scripts that admit a request.
-- scripts.py puts it after the locals that name the script's KEYS and ARGV
-- (bucket, revoked; now_ms, window_ms, limit, member, bucket_ttl_ms).
-- bucket: a sorted set of admission times (ms); revoked: exists once the token was revoked.
-- Returns {status, remaining, ms until the oldest counted request leaves the window}:
-- status 1 admitted, 0 limited, -1 token revoked.
local function admit()
  if redis.call('EXISTS', revoked) == 1 then return {-1, 0, 0} end
  local now, window, allowed = tonumber(now_ms), tonumber(window_ms), tonumber(limit)
  redis.call('ZREMRANGEBYSCORE', bucket, '-inf', now - window)
  local used = redis.call('ZCARD', bucket)
  if used >= allowed then
    local blocking = redis.call('ZRANGE', bucket, used - allowed, used - allowed, 'WITHSCORES')
    return {0, 0, tonumber(blocking[2]) + window - now}
  end
  redis.call('ZADD', bucket, now, member)
  redis.call('PEXPIRE', bucket, bucket_ttl_ms)
  local oldest = redis.call('ZRANGE', bucket, 0, 0, 'WITHSCORES')
  return {1, allowed - used - 1, tonumber(oldest[2]) + window - now}
end
