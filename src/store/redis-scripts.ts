/**
 * The Lua scripts of redisStore, and the readers of their replies. Each script runs atomically
 * on the one node holding its keys.
 *
 * Per ledger key, two keys in one hash-tag slot:
 * - `R` = `${prefix}{${key}}:rec`, a hash: `v` the record's text, `o` '1' open / '0' closed,
 *   `d` an open record's dueAt, `h` the token of the lease's holder (until it releases). No
 *   expiry while open; a closed record expires after keepMs; a key holding only a lease (`h`
 *   and no `v`) a day after that lease (LEASE_ONLY_KEEP_MS): its holder died.
 * - `L` = `${prefix}{${key}}:lease`, the holder's token with PX leaseMs: the lease is live while
 *   it exists, on the server's clock.
 *
 * `h` outlives `L` on purpose: a holder whose lease ran out may still write while nobody took
 * over (`h` is still its token), and a taker-over replaces `h`, which locks the old one out.
 */
import { createHash } from 'node:crypto';
import type { StoredRecord } from './types.js';

/** A Lua script and its SHA1, run with EVALSHA and loaded with EVAL when Redis lacks it. */
export interface Script {
  source: string;
  sha: string;
}

function script(source: string): Script {
  return { source, sha: createHash('sha1').update(source).digest('hex') };
}

/**
 * KEYS R, L; ARGV token, leaseMs, lease-only TTL (leaseMs + a day).
 * Returns {'closed', v} | {'busy'[, v, o, d]} | {'acquired'[, v, o, d]}: a closed record wins;
 * a live lease makes it busy; else the lease is taken. A bare lease (no record) is written as
 * `h` alone, with the lease-only TTL. The initial record is not written here (see redis-store).
 */
export const ACQUIRE = script(`
local r = redis.call('HMGET', KEYS[1], 'v', 'o', 'd', 'h')
if r[1] and r[2] == '0' then return {'closed', r[1]} end
if (r[1] or r[4]) and redis.call('EXISTS', KEYS[2]) == 1 then
  if r[1] then return {'busy', r[1], r[2], r[3]} end
  return {'busy'}
end
redis.call('HSET', KEYS[1], 'h', ARGV[1])
redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2])
if r[1] then return {'acquired', r[1], r[2], r[3]} end
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return {'acquired'}
`);

/**
 * The replicas of this node that are online (done with their first sync, so WAIT can count
 * their acknowledgements): from INFO, which a script may call (ROLE it may not).
 */
const ONLINE_REPLICAS = `
local function online()
  local n = 0
  for _ in string.gmatch(redis.call('INFO', 'replication'), 'state=online') do n = n + 1 end
  return n
end
`;

/**
 * KEYS R, L; ARGV token, value, open ('1'/'0'), dueAt, keepMs, release ('1'/'0'), count the
 * online replicas ('1'/'0').
 * Only for the holder (`h`): writes the record (open: no expiry; closed: PX keepMs) and, with
 * release, drops the lease. Returns {0 (not the holder) | 1 (written) | 2 (written; it was
 * open), the online replicas (0 unless counted)}: a write on a master with none is waited for
 * by none, without a WAIT that would hold up its connection.
 */
export const WRITE = script(`${ONLINE_REPLICAS}
local replicas = 0
if ARGV[7] == '1' then replicas = online() end
if redis.call('HGET', KEYS[1], 'h') ~= ARGV[1] then return {0, replicas} end
local was = redis.call('HGET', KEYS[1], 'o')
if ARGV[3] == '1' then
  redis.call('HSET', KEYS[1], 'v', ARGV[2], 'o', '1', 'd', ARGV[4])
  redis.call('PERSIST', KEYS[1])
else
  redis.call('HSET', KEYS[1], 'v', ARGV[2], 'o', '0', 'd', '0')
  redis.call('PEXPIRE', KEYS[1], ARGV[5])
end
if ARGV[6] == '1' then
  redis.call('HDEL', KEYS[1], 'h')
  redis.call('DEL', KEYS[2])
end
if was == '1' then return {2, replicas} end
return {1, replicas}
`);

/** KEYS R, L; ARGV token. Only the holder: drops the lease, and a key with no record with it. */
export const RELEASE = script(`
if redis.call('HGET', KEYS[1], 'h') ~= ARGV[1] then return 0 end
if redis.call('HEXISTS', KEYS[1], 'v') == 1 then redis.call('HDEL', KEYS[1], 'h') else redis.call('DEL', KEYS[1]) end
redis.call('DEL', KEYS[2])
return 1
`);

/** KEYS R, L; ARGV token. Only the holder: forgets the key. Returns 0, 1, or 2 (it was open). */
export const REMOVE = script(`
if redis.call('HGET', KEYS[1], 'h') ~= ARGV[1] then return 0 end
local was = redis.call('HGET', KEYS[1], 'o')
redis.call('DEL', KEYS[1], KEYS[2])
if was == '1' then return 2 end
return 1
`);

/**
 * KEYS R, L; ARGV token, leaseMs, lease-only TTL. Only the key's holder (`h`) renews its lease,
 * live or run out while nobody took the key (and a bare lease's `h` with it). Returns 1 when
 * renewed, else 0.
 */
export const EXTEND = script(`
if redis.call('HGET', KEYS[1], 'h') ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2])
if redis.call('HEXISTS', KEYS[1], 'v') == 0 then redis.call('PEXPIRE', KEYS[1], ARGV[3]) end
return 1
`);

/**
 * KEYS R, L. The key as it is: {has record '1'/'0', v, o, d, held '1'/'0', leased '1'/'0'}
 * (`held`: someone's token is in `h`, live lease or not).
 */
export const PEEK = script(`
local r = redis.call('HMGET', KEYS[1], 'v', 'o', 'd', 'h')
local leased = '0'
if (r[1] or r[4]) and redis.call('EXISTS', KEYS[2]) == 1 then leased = '1' end
local held = '0'
if r[4] then held = '1' end
if r[1] then return {'1', r[1], r[2], r[3], held, leased} end
return {'0', '', '', '', held, leased}
`);

/**
 * KEYS the due index; ARGV max score, offset, count. One page of members with their scores,
 * flat ({member, score, ...}) whatever the client's protocol version.
 */
export const INDEX_PAGE = script(`
return redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'WITHSCORES', 'LIMIT', ARGV[2], ARGV[3])
`);

/**
 * KEYS the due index; ARGV score, member, count the online replicas ('1'/'0'). Adds the member,
 * or lowers its score (ZADD LT); returns the online replicas (0 unless counted), as {@link WRITE}.
 */
export const INDEX_ADD = script(`${ONLINE_REPLICAS}
redis.call('ZADD', KEYS[1], 'LT', ARGV[1], ARGV[2])
if ARGV[3] == '1' then return online() end
return 0
`);

/** A {@link WRITE} reply: what it did (0 not the holder, 1 written, 2 written and was open) and the online replicas. */
export function writeReply(reply: unknown): { result: 0 | 1 | 2; replicas: number } {
  const [result, replicas] = Array.isArray(reply) ? reply.map(Number) : [];
  if ((result !== 0 && result !== 1 && result !== 2) || !Number.isInteger(replicas))
    throw new Error('redisStore: unexpected reply from the write script');
  return { result, replicas: replicas! };
}

/** Clients with a type mapping may hand back Buffers for bulk strings. */
export function text(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Buffer.isBuffer(value)) return value.toString('utf8');
  throw new Error('redisStore: unexpected reply from Redis');
}

/** One ledger key as the peek script sees it. */
export interface Peek {
  /** The record, when the key holds one. */
  record: StoredRecord | undefined;
  /** Someone's token holds the key (a live lease or an expired one nobody took over). */
  held: boolean;
  /** The lease is live. */
  leased: boolean;
}

/** A PEEK reply as the key's state. */
export function peeked(key: string, reply: unknown): Peek {
  if (!Array.isArray(reply) || reply.length !== 6) throw new Error('redisStore: unexpected reply from the peek script');
  const [has, value, open, dueAt, held, leased] = reply.map(text);
  const record: StoredRecord | undefined =
    has === '1' ? { key, value: value!, open: open === '1', dueAt: open === '1' ? Number(dueAt) : 0 } : undefined;
  return { record, held: held === '1', leased: leased === '1' };
}

/** The record an ACQUIRE reply carries after its state ({v, o, d}), if any. */
export function acquiredRecord(key: string, reply: unknown[]): StoredRecord | undefined {
  if (reply.length < 2) return undefined;
  const open = reply.length >= 4 && text(reply[2]) === '1';
  return { key, value: text(reply[1]), open, dueAt: open ? Number(text(reply[3])) : 0 };
}
