-- One page of a user's tasks, newest first, from the sorted sets of index.lua.
-- walk: the set to read (every task, one state's or one context's); within: a
-- second set the tasks must also be in (the same key when there is one filter);
-- revoked: exists once the caller's token was revoked (then the reply is {-1, 0}).
-- floor_ms: the oldest write time that counts (live tasks, and any lower bound the
-- client asked for). after_ms, after_id: the last entry of the previous page ('' on
-- the first). limit: the page size.
-- Returns {total, more, id1, ms1, id2, ms2, ...}: total counts every entry that
-- matches, more is 1 when entries follow this page.
if redis.call('EXISTS', revoked) == 1 then return {-1, 0} end
local size = tonumber(limit)
local page, total, more = {}, 0, 0
if walk == within then
  total = redis.call('ZCOUNT', walk, floor_ms, '+inf')
  local start = 0
  if after_id ~= '' then
    local score = redis.call('ZSCORE', walk, after_id)
    if score and tonumber(score) == tonumber(after_ms) then
      start = redis.call('ZREVRANK', walk, after_id) + 1
    else
      -- The last entry left the set: resume after every entry of its time.
      start = redis.call('ZCOUNT', walk, after_ms, '+inf')
    end
  end
  local rows = redis.call('ZREVRANGE', walk, start, start + size, 'WITHSCORES')
  for i = 1, #rows, 2 do
    if tonumber(rows[i + 1]) < tonumber(floor_ms) then break end
    if #page < size * 2 then
      page[#page + 1] = rows[i]
      page[#page + 1] = rows[i + 1]
    else
      more = 1
    end
  end
else
  local rows = redis.call('ZREVRANGEBYSCORE', walk, '+inf', floor_ms, 'WITHSCORES')
  local started = after_id == ''
  for i = 1, #rows, 2 do
    local id, ms = rows[i], rows[i + 1]
    if redis.call('ZSCORE', within, id) then
      total = total + 1
      local take = started
      if not started then
        if id == after_id then
          started = true
        elseif tonumber(ms) < tonumber(after_ms) then
          started, take = true, true
        end
      end
      if take then
        if #page < size * 2 then
          page[#page + 1] = id
          page[#page + 1] = ms
        else
          more = 1
        end
      end
    end
  end
end
local reply = {total, more}
for i = 1, #page do reply[#reply + 1] = page[i] end
return reply
