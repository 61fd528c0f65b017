import type { ClientContext } from '../context.js';
import type { LedgerStore } from '../store/types.js';
import { CLOSED_STATES, type LedgerRecord, serializeRecord } from './ledger-record.js';

/**
 * A lease's lifetime between renewals. Whoever holds a key renews its lease every third of this
 * for as long as it works on it (a gateway call, a reversal, however slow a hook), so one formula
 * serves every operation: a live holder never loses its key, and a dead one frees it this long
 * after it stopped.
 */
export const LEASE_MS = 30_000;

/**
 * The pipeline's hold on one ledger key: every write goes through it, only while it holds the
 * lease. Its heartbeat renews the lease until it is released; once the store says the lease is
 * gone (or a write fails: the lease is then given back), `lost` is true and the holder stops
 * moving the record: whoever holds it now, or the settler, continues from what was last written.
 */
export interface Lease {
  readonly key: string;
  /** True once a renewal or a write found the lease gone or the store failing. */
  readonly lost: boolean;
  /** Writes the record (open or closed by its state) and keeps the lease; false when it could not. */
  put(record: LedgerRecord, dueAt?: number): Promise<boolean>;
  /** Writes the record and drops the lease; false when it could not. */
  putAndRelease(record: LedgerRecord, dueAt?: number): Promise<boolean>;
  /**
   * Writes the first record of a key taken bare (due at its `at`) and keeps the lease; when it
   * could not (or cannot tell: a write may land and its answer be lost), forgets the key and
   * answers false, so nothing is left of it.
   */
  putFirst(record: LedgerRecord): Promise<boolean>;
  /**
   * Renews the lease now and answers whether this holder still has it: the last look before a
   * request leaves. A holder paused for longer than a lease (a stalled event loop, a stopped
   * process) may have lost its key meanwhile, and whoever took it may have closed the record
   * (settlement finds nothing at the gateway: never charged), so it must not send. Rejects when
   * the store does not answer.
   */
  confirm(): Promise<boolean>;
  /** Forgets the key: the operation left nothing to remember. */
  forget(): Promise<void>;
  /** Drops the lease, keeping the record as last written. */
  release(): Promise<void>;
}

/**
 * Renews the lease `token` holds on `key` every third of {@link LEASE_MS} until the returned
 * function is called; `onLost` is called once if the store says the lease is gone meanwhile. A
 * renewal the store fails is left to the next beat, which comes before the lease expires. The
 * one heartbeat of every lease: a ledger record's and a notice hook's.
 */
export function renewWhileHeld(store: LedgerStore, key: string, token: string, onLost: () => void): () => void {
  let held = true;
  const beat = setInterval(() => {
    store.extend(key, token, LEASE_MS).then(
      (ok) => {
        if (!ok && held) {
          stop();
          onLost();
        }
      },
      () => undefined,
    );
  }, LEASE_MS / 3);
  beat.unref?.();
  function stop(): void {
    held = false;
    clearInterval(beat);
  }
  return stop;
}

/** Holds a taken lease on `key`: heartbeat, conditional writes, release. */
export function holdLease(ctx: ClientContext, key: string, token: string, keepMs: number): Lease {
  return new HeldLease(ctx, key, token, keepMs);
}

class HeldLease implements Lease {
  readonly key: string;
  #lost = false;
  readonly #ctx: ClientContext;
  readonly #token: string;
  readonly #keepMs: number;
  readonly #stopBeat: () => void;

  constructor(ctx: ClientContext, key: string, token: string, keepMs: number) {
    this.key = key;
    this.#ctx = ctx;
    this.#token = token;
    this.#keepMs = keepMs;
    this.#stopBeat = renewWhileHeld(ctx.config.store, key, token, () => {
      this.#lost = true;
      ctx.config.logger.error(
        { key, step: 'lease' },
        'the ledger lease was lost while its work ran: that work no longer moves the record',
      );
    });
  }

  get lost(): boolean {
    return this.#lost;
  }

  put(record: LedgerRecord, dueAt?: number): Promise<boolean> {
    return this.#write(record, dueAt, false);
  }

  putAndRelease(record: LedgerRecord, dueAt?: number): Promise<boolean> {
    this.#stopBeat();
    return this.#write(record, dueAt, true);
  }

  async putFirst(record: LedgerRecord): Promise<boolean> {
    const write = new LedgerWrite(record, this.#keepMs, record.at);
    if (await this.#ctx.config.store.write(this.key, this.#token, write, false).catch(() => false)) return true;
    await this.forget();
    return false;
  }

  async confirm(): Promise<boolean> {
    if (this.#lost) return false;
    const held = await this.#ctx.config.store.extend(this.key, this.#token, LEASE_MS);
    if (!held) this.#give();
    return held;
  }

  async forget(): Promise<void> {
    this.#stopBeat();
    await this.#ctx.config.store.remove(this.key, this.#token).catch(() => undefined);
  }

  async release(): Promise<void> {
    this.#stopBeat();
    await this.#ctx.config.store.release(this.key, this.#token).catch(() => undefined);
  }

  async #write(record: LedgerRecord, dueAt: number | undefined, release: boolean): Promise<boolean> {
    if (this.#lost) return false;
    const { store, clock, logger } = this.#ctx.config;
    try {
      const write = new LedgerWrite(record, this.#keepMs, dueAt ?? clock().getTime());
      const ok = await store.write(this.key, this.#token, write, release);
      if (!ok) this.#give();
      return ok;
    } catch (err) {
      this.#give();
      logger.error(
        {
          key: this.key,
          tid: record.tid,
          moid: record.moid,
          state: record.state,
          step: 'store',
          error: (err as Error)?.message,
        },
        'the ledger record could not be written: settlement continues from the last state written',
      );
      // This holder moves the record no more: its lease is given back (after the write, on the
      // same key), so a repeat or the settler goes on from the last state written now, not once
      // the lease expires. A store that cannot take the release either leaves it to expire.
      void store.release(this.key, this.#token).catch(() => undefined);
      return false;
    }
  }

  /** Moves the record no more: the lease is lost or given up. */
  #give(): void {
    this.#lost = true;
    this.#stopBeat();
  }
}

/**
 * How a record is written: its state decides open or closed; a closed one is kept `keepMs`.
 * Its text is made when the store first reads `value` (once): a durable store reads it at once,
 * memoryStore only when the record is read back (a repeat, settlement). A record is never
 * changed once written (each move makes a new one), so the text is the same whenever it is made.
 */
export class LedgerWrite {
  readonly open: boolean;
  readonly dueAt: number;
  readonly keepMs: number;
  /**
   * Only a recorded payment guards money once closed: dropping a decline, a reversal or a
   * never-charged record lets a repeat be sent again, which still charges at most once.
   */
  readonly evictable: boolean;
  readonly #record: LedgerRecord;
  #text: string | undefined;

  constructor(record: LedgerRecord, keepMs: number, dueAt: number) {
    this.#record = record;
    this.open = !CLOSED_STATES.has(record.state);
    this.dueAt = dueAt;
    this.keepMs = keepMs;
    this.evictable = !this.open && record.state !== 'recorded';
  }

  /** The record's text, made on the first read. */
  get value(): string {
    this.#text ??= serializeRecord(this.#record);
    return this.#text;
  }
}
