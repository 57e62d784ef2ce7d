/**
 * The Lua scripts the Redis limiter runs, each atomic in one round trip (as
 * upstash/ratelimit keeps its scripts apart from its client). The rules are
 * MemoryRateLimiter's. Keys carry their window in their name and expire when
 * it ends (PEXPIREAT), so Redis holds only live windows. Each script names
 * its KEYS and ARGV as locals first; RedisRateLimiter passes them in that order.
 */

/** A refused request's reply: the ban once the minute's refusals outnumber its limit, else the counts. */
const REFUSED = `
local function refused(refusals, rpm, now, banMs, banKey, minute, day)
  if refusals > rpm then
    local banEnd = now + banMs
    redis.call('SET', banKey, banEnd, 'PXAT', banEnd)
    return {2, banEnd}
  end
  return {1, minute, day}
end
`

/**
 * A key's requests of one turn of the event loop, `ARGV[7]` of them, each
 * decided as if it came alone and in order (RedisRateLimiter sends one call
 * for a turn's requests of one key, so a client's concurrent requests cost
 * one script, not one each). A refused request is not counted, and refusals
 * within one minute beyond its limit ban the subject. Reply: three numbers
 * per request, in order: 0, minute, day when counted; 1, minute, day when
 * refused; 2, banEnd, 0 when banned; then the shared store's version (nil
 * when none was counted), which the page cache of every instance checks its
 * pages against (pets/shared_page_cache.ts): a request let through reads
 * it in this same round trip. None is set yet (a new or emptied Redis): one
 * is made from Redis's clock, as a write would set a new one.
 */
const CONSUME = `${REFUSED}
local banKey, minuteKey, dayKey, refusalsKey, storeVersionKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local rpm, rpd, now = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local minuteEnd, dayEnd, banMs, requests = ARGV[4], ARGV[5], tonumber(ARGV[6]), tonumber(ARGV[7])
local banEnd = tonumber(redis.call('GET', banKey) or '0')
local minute = tonumber(redis.call('GET', minuteKey) or '0')
local day = tonumber(redis.call('GET', dayKey) or '0')
local replies, counted = {}, false
for _ = 1, requests do
  local reply
  if banEnd > now then
    reply = {2, banEnd}
  elseif minute >= rpm or day >= rpd then
    local refusals = redis.call('INCR', refusalsKey)
    if refusals == 1 then redis.call('PEXPIREAT', refusalsKey, minuteEnd) end
    reply = refused(refusals, rpm, now, banMs, banKey, minute, day)
    if reply[1] == 2 then banEnd = reply[2] end
  else
    minute = redis.call('INCR', minuteKey)
    if minute == 1 then redis.call('PEXPIREAT', minuteKey, minuteEnd) end
    day = redis.call('INCR', dayKey)
    if day == 1 then redis.call('PEXPIREAT', dayKey, dayEnd) end
    counted = true
    reply = {0, minute, day}
  end
  replies[#replies + 1] = reply[1]
  replies[#replies + 1] = reply[2]
  replies[#replies + 1] = reply[3] or 0
end
local storeVersion = false
if counted then
  storeVersion = redis.call('GET', storeVersionKey)
  if not storeVersion then
    local time = redis.call('TIME')
    storeVersion = 'since ' .. time[1] .. '.' .. time[2]
    redis.call('SET', storeVersionKey, storeVersion)
  end
end
replies[#replies + 1] = storeVersion
return replies
`

/**
 * Gives back one counted request: each window it was counted in that still
 * holds a count is one lower (DECR keeps the key's expiry). Reply: the ban,
 * the current minute's and day's counts, as `peek` reads them.
 */
const REFUND = `
local countedMinuteKey, countedDayKey = KEYS[1], KEYS[2]
local banKey, minuteKey, dayKey = KEYS[3], KEYS[4], KEYS[5]
for _, key in ipairs({countedMinuteKey, countedDayKey}) do
  if tonumber(redis.call('GET', key) or '0') > 0 then redis.call('DECR', key) end
end
return redis.call('MGET', banKey, minuteKey, dayKey)
`

/**
 * Lifts a ban and clears the current windows, once per reset: a reset
 * already applied (by the CLI or another instance) is not applied again.
 * Reply: 1 applied, 0 already applied.
 */
const RESET = `
local lastResetKey, banKey, minuteKey, dayKey, refusalsKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local resetName, rememberMs = ARGV[1], ARGV[2]
if redis.call('GET', lastResetKey) == resetName then return 0 end
redis.call('DEL', banKey, minuteKey, dayKey, refusalsKey)
redis.call('SET', lastResetKey, resetName, 'PX', rememberMs)
return 1
`

/*
 * Callers without a key (address subjects) are held apart, in hashes of one
 * Redis Cluster slot ({anonymous}), so that what a flood of distinct
 * addresses leaves in Redis is bounded as the in-memory limiter bounds it:
 * one field per caller, `day:minute:used` (the day's count, the minute it
 * was last counted in, and that minute's count), in two generations of a
 * day (recent, older) of at most `generation` fields each. When the recent
 * one is full it becomes the older one and the older one is dropped
 * (UNLINK: freed in the background), so the least recently seen are
 * forgotten first, and Redis holds at most about ANON_SUBJECTS_MAX of them
 * whatever the flood. A caller that spent its day moves to the day's
 * `spent` hash, which no rotation drops; one that spent its minute is named
 * in that minute's `blocked` hash, and a rotation carries it over: so a
 * flood never makes Redis forget a refusal. Refusals are counted per minute
 * in one hash, for refused callers only.
 */
const ANONYMOUS_STATE = `
local function stateOf(subject, spentKey, recentKey, olderKey)
  for _, key in ipairs({spentKey, recentKey, olderKey}) do
    local held = redis.call('HGET', key, subject)
    if held then
      local day, minute, used = string.match(held, '(%d+):(%d+):(%d+)')
      return tonumber(day), tonumber(minute), tonumber(used), key
    end
  end
  return 0, 0, 0, nil
end
`

/** CONSUME for a caller without a key; the same replies. */
const CONSUME_ANONYMOUS = `${REFUSED}${ANONYMOUS_STATE}
local banKey, refusalsKey, blockedKey = KEYS[1], KEYS[2], KEYS[3]
local spentKey, recentKey, olderKey = KEYS[4], KEYS[5], KEYS[6]
local subject, rpm, rpd, now = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local minuteEnd, dayEnd, banMs = ARGV[5], ARGV[6], tonumber(ARGV[7])
local generation, currentMinute = tonumber(ARGV[8]), tonumber(ARGV[9])
local banEnd = tonumber(redis.call('GET', banKey) or '0')
if banEnd > now then return {2, banEnd} end
local day, minuteOf, used, heldIn = stateOf(subject, spentKey, recentKey, olderKey)
local minute = 0
if minuteOf == currentMinute then minute = used end
if minute >= rpm or day >= rpd then
  local refusals = redis.call('HINCRBY', refusalsKey, subject, 1)
  redis.call('PEXPIREAT', refusalsKey, minuteEnd)
  return refused(refusals, rpm, now, banMs, banKey, minute, day)
end
minute = minute + 1
day = day + 1
local value = day .. ':' .. currentMinute .. ':' .. minute
if heldIn and heldIn ~= recentKey then redis.call('HDEL', heldIn, subject) end
if day >= rpd or heldIn == spentKey then
  if heldIn == recentKey then redis.call('HDEL', recentKey, subject) end
  redis.call('HSET', spentKey, subject, value)
  redis.call('PEXPIREAT', spentKey, dayEnd)
  return {0, minute, day}
end
if minute >= rpm then
  redis.call('HSET', blockedKey, subject, 1)
  redis.call('PEXPIREAT', blockedKey, minuteEnd)
end
if heldIn ~= recentKey and redis.call('HLEN', recentKey) >= generation then
  -- The older generation goes; those blocked this minute are carried into the recent one first.
  for _, blocked in ipairs(redis.call('HKEYS', blockedKey)) do
    local held = redis.call('HGET', olderKey, blocked)
    if held then redis.call('HSET', recentKey, blocked, held) end
  end
  redis.call('UNLINK', olderKey)
  redis.call('RENAME', recentKey, olderKey)
end
redis.call('HSET', recentKey, subject, value)
redis.call('PEXPIREAT', recentKey, dayEnd)
return {0, minute, day}
`

/** What PEEK replies for a caller without a key: the ban, the current minute's and the day's counts. */
const ANONYMOUS_READING = `
local day, minuteOf, used = stateOf(subject, spentKey, recentKey, olderKey)
local minute = 0
if minuteOf == currentMinute then minute = used end
return {redis.call('GET', banKey), tostring(minute), tostring(day)}
`

/** PEEK for a caller without a key. */
const PEEK_ANONYMOUS = `${ANONYMOUS_STATE}
local banKey, spentKey, recentKey, olderKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local subject, currentMinute = ARGV[1], tonumber(ARGV[2])
${ANONYMOUS_READING}`

/**
 * REFUND for a caller without a key: in the day it was counted in, the day's
 * count one lower, and the minute's if it is still the minute it was
 * counted in; then what PEEK reads.
 */
const REFUND_ANONYMOUS = `${ANONYMOUS_STATE}
local countedSpentKey, countedRecentKey, countedOlderKey = KEYS[1], KEYS[2], KEYS[3]
local banKey, spentKey, recentKey, olderKey = KEYS[4], KEYS[5], KEYS[6], KEYS[7]
local subject, countedMinute, currentMinute = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local day, minuteOf, used, heldIn = stateOf(subject, countedSpentKey, countedRecentKey, countedOlderKey)
if heldIn then
  if day > 0 then day = day - 1 end
  if minuteOf == countedMinute and used > 0 then used = used - 1 end
  redis.call('HSET', heldIn, subject, day .. ':' .. minuteOf .. ':' .. used)
end
${ANONYMOUS_READING}`

/** A script and its SHA-1, by which EVALSHA runs it without sending it again. */
export interface RedisScript {
  source: string
  sha: string
}

function script(source: string): RedisScript {
  return { source, sha: new Bun.CryptoHasher('sha1').update(source).digest('hex') }
}

/** The limiter's scripts, loaded at connect and taught again to a Redis that restarted. */
export const REDIS_SCRIPTS = {
  consume: script(CONSUME),
  refund: script(REFUND),
  reset: script(RESET),
  consumeAnonymous: script(CONSUME_ANONYMOUS),
  peekAnonymous: script(PEEK_ANONYMOUS),
  refundAnonymous: script(REFUND_ANONYMOUS),
}
