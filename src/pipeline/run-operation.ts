import type { ClientContext } from '../context.js';
import { NicepayRequestError, NicepayServiceError } from '../errors/index.js';
import { withStackText } from '../errors/stack-text.js';
import { ownCopy } from '../own-copy.js';
import { digestEquals } from '../util/secret-digest.js';
import { admit } from './gateway-call.js';
import { LEASE_MS, type Lease } from './lease.js';
import { storeError, takeKey } from './ledger.js';
import type { LedgerRecord } from './ledger-record.js';
import type { OperationCall, OwnTidOperation } from './operation.js';
import { markOperation } from './operation-marks.js';
import { outcomeError } from './outcome-error.js';
import { hookOf, settleRecord } from './settle.js';
import { appendToTally, MAX_TALLY_ENTRIES } from './tally.js';
import { claimTid } from './tid-claim.js';
import { send } from './send.js';
import { type Step, walk } from './walk.js';

/**
 * How long a repeat waits behind the request holding its key before it is told 409
 * NICEPAY_IN_PROGRESS: the call and a reversal each take at most connect + response, and a hook
 * gets its timeout twice (its signal aborts at the first; it is hung at the second).
 */
function waitMs(ctx: ClientContext, hookTimeoutMs: number | undefined): number {
  const { connectMs, responseMs } = ctx.config;
  return 2 * (connectMs + responseMs) + 2 * (hookTimeoutMs ?? 0) + LEASE_MS / 6;
}

/**
 * The one path of every money operation (approval, key-in, billing charge, cash receipt,
 * cancel): refused after close() and tracked; its ledger record written before the request
 * leaves, under a lease that is renewed while the work runs; a repeat answered from the record
 * (the same request only: a repeat presenting another token, card or amount is refused);
 * then the call, and every move after it (hook, reversal, what to tell) looked up in the state
 * machine (state-machine.ts) by {@link walk}. Resolves to the caller's result or rejects with
 * the error the record's state means.
 */
export function runOperation<R>(ctx: ClientContext, call: OperationCall<R>): Promise<R> {
  return admit(ctx, call.kind.what, () => drive(ctx, call));
}

/**
 * {@link runOperation} of an operation whose TID the shop issues: on a store other processes
 * may share, a new record's TID is claimed there before the record is written.
 */
export function runOwnTidOperation<R>(ctx: ClientContext, operation: OwnTidOperation<R>): Promise<R> {
  return admit(ctx, operation.kind.what, () => drive(ctx, operation.call(operation.drawTid()), operation));
}

async function drive<R>(ctx: ClientContext, first: OperationCall<R>, ownTid?: OwnTidOperation<R>): Promise<R> {
  // A declaration that binds its record to its request says how a mismatched repeat is refused.
  if (first.start.binding !== '' && !first.mismatch)
    throw new Error(`the ${first.kind.what} declaration binds its record but declares no mismatch`);
  let call = withOwnStart(first);
  const { kind, start } = call;
  let initial = startRecord(ctx, call);
  // Tallied before its record is taken and its request leaves: whatever the gateway says of it
  // may come back first, and settlement tells same-amount operations apart by the tally, so none
  // is sent without its entry, and a failed entry leaves no record behind (an entry without a
  // record is read as nothing; a repeat finds its own entry there already).
  const tally = kind.tally?.(initial);
  const added = tally ? await appendToTally(ctx, tally, call.key) : undefined;
  if (added?.state === 'store-failed') throw storeError(added.error);
  if (added?.state === 'full') {
    throw new NicepayServiceError(
      'NICEPAY_STORE_FULL',
      `the ${kind.what} was not sent: its tally in the ledger (a TID's cancels, a sub-merchant's payouts of one day) holds ${MAX_TALLY_ENTRIES} entries, the most one keeps`,
    );
  }
  // A TID the shop issues is claimed before its record is written (on a store other processes
  // may share): the key is taken bare first, so a repeat answered from its record claims nothing.
  const claims = ownTid !== undefined && !ctx.config.store.local;
  const keepMs = call.keepMs ?? kind.keepMs;
  const taken = await takeKey(ctx, call.key, claims ? undefined : initial, keepMs, waitMs(ctx, call.hook?.timeoutMs));
  if (taken.state === 'closed' || taken.state === 'hung') {
    if (!digestEquals(taken.record.binding, start.binding)) throw mismatchError(call);
    return answer(call, taken.record, true);
  }
  const { lease, record: existing } = taken;
  if (existing) return resume(ctx, call, lease, existing, taken.dueAt);
  if (claims) {
    try {
      ({ call, initial } = await recordWithClaimedTid(ctx, ownTid, call, lease));
    } catch (err) {
      await lease.forget();
      throw err;
    }
  }
  await confirmBeforeSending(ctx, call, lease, initial, keepMs);
  let step: Step;
  try {
    step = await send(ctx, call);
  } catch (err) {
    // Nothing left (a request refused before sending, a bug): nothing to remember. An error not
    // of the package's classes (a bug's) has its stack made text here, as theirs is when made.
    await lease.forget();
    throw withStackText(err);
  }
  const final = await walk(ctx, kind, lease, initial, step, { hook: call.hook, reverseNow: call.reverseNow });
  if (!final.forgotten) return answer(call, final.record, false);
  // A refusal that is not kept is still the caller's result; every other forgetting is an error.
  if (final.step.event === 'refused') return kind.result({ ...final.record, state: 'declined' }, false);
  throw final.step.error ?? new Error(`the ledger forgot ${kind.what} ${call.start.tid} without an answer`);
}

/**
 * The last look at the lease before the request leaves: a holder that lost its key meanwhile
 * (paused longer than a lease, so another process's settler may have closed the record as never
 * charged) sends nothing, leaving the record to whoever holds it now; one whose store does not
 * answer sends nothing either and forgets the record if it can (else settlement finds nothing
 * sent), so a repeat starts afresh.
 */
async function confirmBeforeSending(
  ctx: ClientContext,
  call: OperationCall<unknown>,
  lease: Lease,
  record: LedgerRecord,
  keepMs: number,
): Promise<void> {
  let held: boolean;
  try {
    held = await lease.confirm();
  } catch (err) {
    await lease.forget();
    throw storeError(err);
  }
  if (!held) {
    // Whoever holds the record now cannot know this request never left: a mark tells its
    // settlement (an operation the gateway cannot be asked about again needs it).
    await markOperation(ctx, 'unsent', lease.key, record, keepMs).catch(() => undefined);
    throw new NicepayRequestError(
      'NICEPAY_IN_PROGRESS',
      `the ${call.kind.what} was not sent: this request paused for longer than its ledger lease, and another process took the operation over; repeat it for its outcome`,
    );
  }
}

/**
 * The call with its own copies of what it starts a record with (ownCopy): the record keeps them
 * for days, and the errors and log lines made of them may be kept too, so none is a view of a
 * posted body (a key-in form with its card data, an auth return with its AuthToken).
 */
function withOwnStart<R>(call: OperationCall<R>): OperationCall<R> {
  const { start } = call;
  const data = start.data && Object.fromEntries(Object.entries(start.data).map(([k, v]) => [k, ownCopy(v)]));
  return {
    ...call,
    start: { ...start, tid: ownCopy(start.tid), moid: ownCopy(start.moid), ...(data ? { data } : {}) },
  };
}

/** The record a call starts: sending, before its request leaves. */
function startRecord<R>(ctx: ClientContext, call: OperationCall<R>): LedgerRecord {
  const { start } = call;
  return {
    v: 1,
    op: call.kind.op,
    state: 'sending',
    mid: ctx.config.mid,
    tid: start.tid,
    moid: start.moid,
    amount: start.amount,
    binding: start.binding,
    hook: call.hook ? 'pending' : 'none',
    ...(call.hook?.name === undefined ? {} : { hookName: call.hook.name }),
    data: start.data ?? {},
    at: ctx.config.clock().getTime(),
    attempts: 0,
  };
}

/**
 * Under the bare lease of a new key: claims a TID for it (the one drawn, or while another
 * instance holds that, a new draw, with the call made again around it), then writes its first
 * record. Every record's TID is its own from its first write, so a record a crash leaves names
 * no other order's TID; a crash before the write leaves only a bare lease, which expires.
 */
async function recordWithClaimedTid<R>(
  ctx: ClientContext,
  ownTid: OwnTidOperation<R>,
  drawn: OperationCall<R>,
  lease: Lease,
): Promise<{ call: OperationCall<R>; initial: LedgerRecord }> {
  const tid = await claimTid(ctx, drawn.key, drawn.start.tid, () => ownTid.drawTid());
  const call = tid === drawn.start.tid ? drawn : withOwnStart(ownTid.call(tid));
  const initial = startRecord(ctx, call);
  if (!(await lease.putFirst(initial))) throw storeError(new Error(`the record ${call.key} was not written`));
  return { call, initial };
}

/**
 * A repeat that finds its record open (its process died, or it is being settled): the same
 * request only. When the record is due, the repeat runs the settlement step itself, with its own
 * hook (a buyer's retry settles their payment at once; a resubmission runs a hook that never
 * resolved); otherwise it is answered with the state's error, and settlement goes on.
 */
async function resume<R>(
  ctx: ClientContext,
  call: OperationCall<R>,
  lease: Lease,
  record: LedgerRecord,
  dueAt: number,
): Promise<R> {
  if (!digestEquals(record.binding, call.start.binding)) {
    await lease.release();
    throw mismatchError(call);
  }
  const hook = call.hook ?? hookOf<R>(ctx, record);
  if ((record.state === 'committed' && call.hook) || dueAt <= ctx.config.clock().getTime()) {
    const final = await settleRecord(ctx, call.kind, lease, record, hook);
    if (final.forgotten) throw outcomeError(call.kind.what, { ...final.record, state: 'never-charged' }, true);
    return answer(call, final.record, true);
  }
  await lease.release();
  throw outcomeError(call.kind.what, record, true);
}

/**
 * The refusal of a repeat that presents another binding (token, card, amount), made of the
 * call's own copies: a message made of the caller's strings would keep what they were cut from
 * (a key-in form with its card data) for as long as the shop keeps the error.
 */
function mismatchError(call: OperationCall<unknown>): NicepayRequestError {
  // drive() refused a bound call without one; an unbound one (binding '') never differs.
  const { field, message } = call.mismatch!;
  return new NicepayRequestError('NICEPAY_DUPLICATE_MISMATCH', message(call.start), field);
}

/** The caller's answer of a record: its result when its state has one, else its state's error. */
function answer<R>(call: OperationCall<R>, record: LedgerRecord, duplicate: boolean): R {
  if (record.state === 'recorded' || record.state === 'declined') return call.kind.result(record, duplicate);
  throw outcomeError(call.kind.what, record, duplicate);
}
