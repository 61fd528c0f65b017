import { encodeForm } from '../../wire/form-codec.js';
import type { LedgerEntry } from '../ledger.js';
import { moduleSlot } from '../module-state.js';
import type { SandboxMerchant, SandboxState } from '../types.js';

/** Longest the sandbox waits for a merchant's answer to one notice (real time). */
const ANSWER_TIMEOUT_MS = 10_000;

/** A notice still to be delivered (or retried). */
interface PendingNotice {
  entry: LedgerEntry;
  kind: 'deposit' | 'cancel';
  url: string;
  body: Buffer;
  /** Deliveries made so far. */
  attempts: number;
  /** Deliveries allowed: 1 + the merchant's retry count. */
  maxAttempts: number;
  intervalMs: number;
  /** Virtual time of the next delivery. */
  dueAt: number;
  /** Delivered the next time twice at once (a duplicate). */
  duplicate: boolean;
  busy: boolean;
}

/** The notice queue of one sandbox (kept in `state.modules`). */
interface NoticeState {
  pending: PendingNotice[];
  /** Deliveries under way (a cancel's notice leaves after its answer). */
  inFlight: Set<Promise<number>>;
}

const noticeState = (state: SandboxState): NoticeState =>
  moduleSlot<NoticeState>(state, 'notify', () => ({ pending: [], inFlight: new Set() }));

/** Resolves once no delivery is under way (a cancel's notice, sent after the cancel answered). */
export async function noticesIdle(state: SandboxState): Promise<void> {
  const s = noticeState(state);
  while (s.inFlight.size > 0) await Promise.allSettled([...s.inFlight]);
}

/** How a notice is first delivered: at once, twice at once, or late (after `lateMs` of virtual time). */
export interface NoticeTiming {
  duplicate?: boolean;
  lateMs?: number;
}

/**
 * Queues a notice for the merchant's notificationUrl (none: nothing is queued) and delivers it
 * at once unless it is late. The form is EUC-KR with no charset parameter, as the gateway sends.
 */
export async function queueNotice(
  state: SandboxState,
  merchant: Required<SandboxMerchant>,
  entry: LedgerEntry,
  kind: 'deposit' | 'cancel',
  fields: Record<string, string>,
  timing: NoticeTiming = {},
): Promise<void> {
  if (!merchant.notificationUrl) return;
  const retry = merchant.notificationRetry;
  const notice: PendingNotice = {
    entry,
    kind,
    url: merchant.notificationUrl,
    body: encodeForm(fields, 'euc-kr'),
    attempts: 0,
    maxAttempts: 1 + retry.count,
    intervalMs: retry.intervalMinutes * 60_000,
    dueAt: state.clock.now().getTime() + (timing.lateMs ?? 0),
    duplicate: timing.duplicate === true,
    busy: false,
  };
  noticeState(state).pending.push(notice);
  if (!timing.lateMs) await deliver(state, notice);
}

/**
 * Delivers every notice whose time has come on the virtual clock (first deliveries that were
 * late, and retries `intervalMinutes` after an answer other than OK). Resolves once they were
 * answered; returns how many deliveries were made.
 */
export async function runDueNotices(state: SandboxState): Promise<number> {
  const now = state.clock.now().getTime();
  const due = noticeState(state).pending.filter((n) => !n.busy && n.dueAt <= now);
  const counts = await Promise.all(due.map((n) => deliver(state, n)));
  return counts.reduce((a, b) => a + b, 0);
}

/** Notices not yet answered OK and still to be retried. */
export function pendingNotices(state: SandboxState): number {
  return noticeState(state).pending.length;
}

/** One delivery, tracked so {@link noticesIdle} can wait for it. */
function deliver(state: SandboxState, n: PendingNotice): Promise<number> {
  const work = deliverOnce(state, n);
  const inFlight = noticeState(state).inFlight;
  inFlight.add(work);
  void work.finally(() => inFlight.delete(work)).catch(() => undefined);
  return work;
}

/** One delivery (two at once for a duplicate), recorded in the ledger; reschedules or retires the notice. */
async function deliverOnce(state: SandboxState, n: PendingNotice): Promise<number> {
  n.busy = true;
  const copies = n.duplicate ? 2 : 1;
  n.duplicate = false;
  const answers = await Promise.all(Array.from({ length: copies }, () => post(n.url, n.body)));
  const at = state.clock.now();
  n.attempts++;
  n.entry.notices ??= [];
  for (const a of answers) n.entry.notices.push({ kind: n.kind, attempt: n.attempts, at, ...a });
  n.busy = false;
  const list = noticeState(state).pending;
  if (answers.some((a) => a.ok) || n.attempts >= n.maxAttempts) list.splice(list.indexOf(n), 1);
  else n.dueAt = at.getTime() + n.intervalMs;
  return copies;
}

async function post(url: string, body: Buffer): Promise<{ status?: number; answer: string; ok: boolean }> {
  try {
    const res = await fetch(url, {
      method: 'POST',
      // No charset parameter: the merchant must know notices are EUC-KR (lifecycle-facts §3).
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      // A Uint8Array, not the Buffer: with the DOM lib in scope (a consumer's default lib) a
      // Buffer is not a BodyInit, and the README snippets compile this source that way.
      body: new Uint8Array(body),
      signal: AbortSignal.timeout(ANSWER_TIMEOUT_MS),
    });
    const text = await res.text();
    return { status: res.status, answer: text.slice(0, 200), ok: res.ok && text === 'OK' };
  } catch (err) {
    return { answer: `no answer: ${(err as Error).message}`, ok: false };
  }
}
