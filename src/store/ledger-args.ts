/**
 * The argument checks the durable ledger stores (sqliteStore, redisStore) share: a caller's
 * mistake is refused with an error naming the argument before anything is read or written,
 * never with the value itself (a record's text is the pipeline's and may quote a buyer).
 */
import type { RecordWrite } from './types.js';

/**
 * How long a key that holds only a lease (acquired without a record) outlives its lease before
 * a store may forget it: its holder died without writing or releasing. A holder whose lease ran
 * out may still write while nobody took over (the contract); one a day late is not alive.
 */
export const LEASE_ONLY_KEEP_MS = 24 * 60 * 60 * 1000;

/** A key: a non-empty string. */
export function checkKey(store: string, key: unknown): asserts key is string {
  if (typeof key !== 'string' || key === '') throw new TypeError(`${store}: key must be a non-empty string`);
}

/** A lease's token as the caller holds it: a string (an unknown one simply holds nothing). */
export function checkToken(store: string, token: unknown): asserts token is string {
  if (typeof token !== 'string') throw new TypeError(`${store}: token must be a string`);
}

/** A duration above zero, as whole milliseconds (rounded up: a lease never ends early). */
export function wholeMs(store: string, name: string, ms: unknown): number {
  if (typeof ms !== 'number' || !Number.isFinite(ms) || ms <= 0) {
    throw new RangeError(`${store}: ${name} must be a positive number of milliseconds`);
  }
  return Math.ceil(ms);
}

/** A list's size: a positive integer. */
export function checkLimit(store: string, limit: unknown): asserts limit is number {
  if (typeof limit !== 'number' || !Number.isSafeInteger(limit) || limit <= 0) {
    throw new RangeError(`${store}: limit must be a positive integer`);
  }
}

/** A point on the caller's clock (ms): a finite number. */
export function checkTime(store: string, name: string, ms: unknown): asserts ms is number {
  if (typeof ms !== 'number' || !Number.isFinite(ms))
    throw new RangeError(`${store}: ${name} must be a finite number of milliseconds`);
}

/** A record to write: text, and either an open record's dueAt or a closed one's keepMs. */
export function checkRecordWrite(store: string, name: string, write: unknown): asserts write is RecordWrite {
  if (typeof write !== 'object' || write === null) throw new TypeError(`${store}: ${name} must be a record to write`);
  const w = write as Partial<Record<keyof RecordWrite | 'dueAt' | 'keepMs' | 'evictable', unknown>>;
  if (typeof w.value !== 'string') throw new TypeError(`${store}: ${name}.value must be a string`);
  if (w.open === true) checkTime(store, `${name}.dueAt`, w.dueAt);
  else if (w.open === false) wholeMs(store, `${name}.keepMs`, w.keepMs);
  else throw new TypeError(`${store}: ${name}.open must be true or false`);
}
