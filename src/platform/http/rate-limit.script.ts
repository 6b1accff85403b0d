/**
 * The rate-limit algorithm of rate-limit.rules.ts as one Redis script, so that every window
 * a request touches (per second, burst, day, the address's failures) is decided in one
 * round trip and atomically across API processes. It mirrors the TypeScript function by
 * function; test/e2e/rate-limit-store.e2e-spec.ts runs both on the same sequence of
 * requests and compares every answer.
 *
 * KEYS: 1 key window, 2 key burst, 3 key day, 4 address window, 5 address burst.
 * ARGV: 1 operation ('key' | 'guarded' | 'failure' | 'giveBack'),
 *       2 perWindow, 3 burstExtra, 4 windowMs, 5 burstWindowMs, 6 perDay, 7 dayMs,
 *       8 failure perWindow, 9 failure burstExtra,
 *       10-12 what to give back of the key's counters (window, burst, day; 1 or 0).
 * Returns for 'key' and 'guarded': {outcome (0 allowed, 1 rate, 2 day, 3 addressBlocked),
 *   windowCount, windowMsLeft, dayCount, dayMsLeft, tookBurst, tookDay};
 *   for 'failure': {allowed (1 or 0), msLeft}; for 'giveBack': {}.
 */
export const RATE_LIMIT_LUA = `
local function hit(key, ttl)
  local count = redis.call('INCR', key)
  local left = redis.call('PTTL', key)
  if left < 0 then
    redis.call('PEXPIRE', key, ttl)
    left = ttl
  end
  return count, left
end

local function peek(key)
  local count = tonumber(redis.call('GET', key) or '0')
  local left = redis.call('PTTL', key)
  if left < 0 then left = 0 end
  return count, left
end

local function give_back(key)
  if redis.call('DECR', key) <= 0 then redis.call('DEL', key) end
end

local function take_bursty(window, burst, per, extra, window_ms, burst_ms)
  local count, left = hit(window, window_ms)
  if count <= per then return 1, count, left, 0 end
  if extra == 0 then return 0, count, left, 0 end
  local extra_count, extra_left = hit(burst, burst_ms)
  return (extra_count <= extra) and 1 or 0, count, math.min(left, extra_left), 1
end

local function take_key()
  local allowed, count, left, took_burst = take_bursty(KEYS[1], KEYS[2], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5]))
  local day_count, day_left
  if allowed == 1 then day_count, day_left = hit(KEYS[3], tonumber(ARGV[7])) else day_count, day_left = peek(KEYS[3]) end
  local outcome = 0
  if allowed == 0 then outcome = 1 elseif day_count > tonumber(ARGV[6]) then outcome = 2 end
  return {outcome, count, left, day_count, day_left, took_burst, allowed}
end

local function address_block()
  local per, extra = tonumber(ARGV[8]), tonumber(ARGV[9])
  local count, left = peek(KEYS[4])
  if count < per then return 0, 0 end
  if extra == 0 then return 1, left end
  local extra_count, extra_left = peek(KEYS[5])
  if extra_count < extra then return 0, 0 end
  return 1, math.min(left, extra_left)
end

local function give_back_key()
  if ARGV[10] == '1' then give_back(KEYS[1]) end
  if ARGV[11] == '1' then give_back(KEYS[2]) end
  if ARGV[12] == '1' then give_back(KEYS[3]) end
end

local op = ARGV[1]
if op == 'key' then return take_key() end
if op == 'guarded' then
  local blocked, left = address_block()
  if blocked == 1 and peek(KEYS[3]) == 0 then return {3, 0, left, 0, 0, 0, 0} end
  return take_key()
end
if op == 'failure' then
  give_back_key()
  local allowed, _, left = take_bursty(KEYS[4], KEYS[5], tonumber(ARGV[8]), tonumber(ARGV[9]), tonumber(ARGV[4]), tonumber(ARGV[5]))
  return {allowed, left}
end
if op == 'giveBack' then
  give_back_key()
  return {}
end
return redis.error_reply('unknown rate-limit operation ' .. tostring(op))
`;
