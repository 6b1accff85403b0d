/**
 * Pacing (a shared GCRA without burst): attempts to one key start at least `1000 / ratePerSecond` ms apart,
 * across every process, by reserving start times in Redis. Pure helpers of the Lua script's caller.
 */

/** The spacing of starts at this rate. */
export function paceIntervalMs(ratePerSecond: number): number {
  return 1000 / ratePerSecond;
}

/** The start times (ms from now) of `granted` reservations, the first `firstWaitMs` from now, one interval apart. */
export function reservedStarts(granted: number, firstWaitMs: number, intervalMs: number): number[] {
  return Array.from({ length: granted }, (_, i) => firstWaitMs + i * intervalMs);
}

/**
 * The Lua script: reserves up to ARGV[2] start times for KEYS[1] (its value: the next free start, in
 * microseconds of Redis's clock) no later than ARGV[3] ms from now, one interval (ARGV[1] ms) apart.
 * Answers `{granted, wait of the first in µs}`; nothing is reserved when even the first is too far.
 * Redis's own clock (TIME) is the one clock of every worker.
 */
export const PACE_LUA = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local interval = tonumber(ARGV[1]) * 1000
local wanted = tonumber(ARGV[2])
local horizon = tonumber(ARGV[3]) * 1000
local nextFree = tonumber(redis.call('GET', KEYS[1]) or '0')
local start = math.max(nextFree, now)
local granted = 0
if start - now <= horizon then
  granted = math.min(wanted, math.floor((now + horizon - start) / interval) + 1)
end
if granted > 0 then
  local after = start + granted * interval
  redis.call('SET', KEYS[1], string.format('%d', after), 'PX', math.ceil((after - now) / 1000) + 1000)
end
return {granted, string.format('%d', start - now)}
`;
