// The cache's atomic steps as Lua scripts run by Redis (redis-cache.ts), each one round trip that no
// other instance can interleave with.
import type { Redis } from 'ioredis';

// Atomic on every Redis version: the window starts with the first hit and is never extended, unless
// ARGV[2] asks for every hit to start it again.
const INCR_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 or ARGV[2] == '1' or redis.call('PTTL', KEYS[1]) < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return {count, redis.call('PTTL', KEYS[1])}`;
const DECR_SCRIPT = `
local count = tonumber(redis.call('GET', KEYS[1]))
if count and count > 0 then return redis.call('DECR', KEYS[1]) end
return 0`;
// Counters of request weight: check and add in one step, so that instances never both take the last room.
const ADD_WITHIN_SCRIPT = `
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
local amount = tonumber(ARGV[1])
if current + amount > tonumber(ARGV[2]) then return {0, current} end
local count = redis.call('INCRBY', KEYS[1], amount)
if redis.call('PTTL', KEYS[1]) < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[3]) end
return {1, count}`;
// A pause and counters in one step (decision 395): the pause read first (a JSON value whose `until` is
// after ARGV[1], the caller's clock), then every counter checked before any is added. KEYS[1]: the pause;
// KEYS[2..]: the counters; ARGV: now, the counters' ttl, then each counter's amount and cap. `until` is a
// word of Lua, hence state['until'].
const ADD_ALL_WITHIN_SCRIPT = `
local pause = redis.call('GET', KEYS[1])
if pause then
  local ok, state = pcall(cjson.decode, pause)
  local untilMs = ok and type(state) == 'table' and tonumber(state['until'])
  if untilMs and untilMs > tonumber(ARGV[1]) then return {-1, pause} end
end
for i = 2, #KEYS do
  local current = tonumber(redis.call('GET', KEYS[i]) or '0')
  if current + tonumber(ARGV[2 * i - 1]) > tonumber(ARGV[2 * i]) then return {0, i - 2, current} end
end
local answer = {1}
for i = 2, #KEYS do
  answer[i] = redis.call('INCRBY', KEYS[i], ARGV[2 * i - 1])
  if redis.call('PTTL', KEYS[i]) < 0 then redis.call('PEXPIRE', KEYS[i], ARGV[2]) end
end
return answer`;
const RAISE_TO_SCRIPT = `
local current = tonumber(redis.call('GET', KEYS[1]) or '-1')
local value = tonumber(ARGV[1])
if current >= value then return current end
redis.call('SET', KEYS[1], value, 'KEEPTTL')
if redis.call('PTTL', KEYS[1]) < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return value`;
const SUBTRACT_SCRIPT = `
local current = tonumber(redis.call('GET', KEYS[1]))
if not current then return 0 end
local count = math.max(0, current - tonumber(ARGV[1]))
redis.call('SET', KEYS[1], count, 'KEEPTTL')
return count`;
// A leaky bucket on Redis's own clock, so that instances with skewed clocks decay it alike. Levels are
// fractions: returned as text (Lua numbers become integers on the way out).
const DECAYING_SCRIPT = `
local now = redis.call('TIME')
local at = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
local state = redis.call('HMGET', KEYS[1], 'level', 'at')
local amount, cap, rate = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local level = 0
if state[1] then level = math.max(0, tonumber(state[1]) - (at - tonumber(state[2])) / 1000 * rate) end
local nextLevel = math.max(0, level + amount)
if ARGV[4] == '1' then nextLevel = math.max(level, amount)
elseif amount > 0 and nextLevel > cap then return {0, tostring(level)} end
redis.call('HSET', KEYS[1], 'level', tostring(nextLevel), 'at', tostring(at))
redis.call('PEXPIRE', KEYS[1], math.ceil(nextLevel / rate * 1000) + 1000)
return {1, tostring(nextLevel)}`;
// A lock and, only with it, the next number of a sequence, in one round trip: max(floor, last + 1). The
// number is kept as `set` keeps a number (its decimal digits, as JSON), so `get` reads it alike.
const ACQUIRE_NUMBERED_SCRIPT = `
if not redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2], 'NX') then return false end
local last = tonumber(redis.call('GET', KEYS[2]) or '0') or 0
local number = string.format('%d', math.max(tonumber(ARGV[3]), last + 1))
redis.call('SET', KEYS[2], number, 'PX', ARGV[4])
return number`;
const RELEASE_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

/** The scripts above, as ioredis commands of the connection (`defineCommand`): EVALSHA, EVAL when not loaded. */
const SCRIPTS = {
  incr: { lua: INCR_SCRIPT, numberOfKeys: 1 },
  decr: { lua: DECR_SCRIPT, numberOfKeys: 1 },
  addWithin: { lua: ADD_WITHIN_SCRIPT, numberOfKeys: 1 },
  // Its first argument is its number of keys: one pause and any number of counters.
  addAllWithin: { lua: ADD_ALL_WITHIN_SCRIPT },
  raiseTo: { lua: RAISE_TO_SCRIPT, numberOfKeys: 1 },
  subtract: { lua: SUBTRACT_SCRIPT, numberOfKeys: 1 },
  addDecaying: { lua: DECAYING_SCRIPT, numberOfKeys: 1 },
  acquireNumbered: { lua: ACQUIRE_NUMBERED_SCRIPT, numberOfKeys: 2 },
  release: { lua: RELEASE_SCRIPT, numberOfKeys: 1 },
} as const;

export type ScriptCommands = Record<keyof typeof SCRIPTS, (...args: (string | number)[]) => Promise<unknown>>;

/** Named `script:<name>` on the connection: `incr` and `decr` are Redis's own commands there. */
export function defineScripts(redis: Redis): ScriptCommands {
  const commands = redis as unknown as Record<string, (...args: (string | number)[]) => Promise<unknown>>;
  const defined: Partial<ScriptCommands> = {};
  for (const [name, definition] of Object.entries(SCRIPTS) as [
    keyof typeof SCRIPTS,
    { lua: string; numberOfKeys?: number },
  ][]) {
    redis.defineCommand(`script:${name}`, definition);
    defined[name] = (...args) => commands[`script:${name}`]!.apply(redis, args);
  }
  return defined as ScriptCommands;
}
