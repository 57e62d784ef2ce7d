/**
 * The Lua scripts the Redis limiter runs, each atomic in one round trip (as
 * upstash/ratelimit keeps its scripts apart from its client). The rules are
 * MemoryRateLimiter's. Keys carry their window in their name and expire when
 * it ends (PEXPIREAT), so Redis holds only live windows. Each script names
 * its KEYS and ARGV as locals first; RedisRateLimiter passes them in that order.
 */

/**
 * One request, counted unless refused. A refused request is not counted, and
 * refusals within one minute beyond its limit ban the subject. Replies:
 * {0, minute, day} counted; {1, minute, day} refused; {2, banEnd} banned.
 */
const CONSUME = `
local banKey, minuteKey, dayKey, refusalsKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local rpm, rpd, now = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local minuteEnd, dayEnd, banMs = ARGV[4], ARGV[5], tonumber(ARGV[6])
local banEnd = tonumber(redis.call('GET', banKey) or '0')
if banEnd > now then return {2, banEnd} end
local minute = tonumber(redis.call('GET', minuteKey) or '0')
local day = tonumber(redis.call('GET', dayKey) or '0')
if minute >= rpm or day >= rpd then
  local refusals = redis.call('INCR', refusalsKey)
  if refusals == 1 then redis.call('PEXPIREAT', refusalsKey, minuteEnd) end
  if refusals > rpm then
    banEnd = now + banMs
    redis.call('SET', banKey, banEnd, 'PXAT', banEnd)
    return {2, banEnd}
  end
  return {1, minute, day}
end
minute = redis.call('INCR', minuteKey)
if minute == 1 then redis.call('PEXPIREAT', minuteKey, minuteEnd) end
day = redis.call('INCR', dayKey)
if day == 1 then redis.call('PEXPIREAT', dayKey, dayEnd) end
return {0, minute, day}
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
}
