/**
 * The steps a buyer or the shop takes: authenticate and post returns (plain, replayed,
 * concurrent, forged), key-ins, billing, cash receipts and refunds. Each one records what the
 * shop records and notes every answer for the checks.
 */
import { request } from 'undici';
import { CANCEL_RESULT_TTL_MS } from '../../src/cancel/operation.js';
import { NicepayGatewayError } from '../../src/index.js';
import { encodeForm } from '../../src/wire/form-codec.js';
import type { AuthReturn } from '../../src/sandbox/index.js';
import type { Instance } from './instance.js';
import { HOOK_TIMEOUT_MS } from './shop-books.js';
import { amountOf, ORDERS, type Step } from './steps.js';
import type { World } from './world.js';

/** The reason of every refund the shop asks for: any other cancel of a recorded payment is a reversal. */
export const SHOP_CANCEL_REASON = '고객 요청 환불';
/** The receipt identity the shop sends: a secret no log line, error or result may show. */
export const RECEIPT_IDENTITY = '01099887766';
const APPROVED_CARD = '4111111111111111';
const DECLINING_CARD = '4000000000009995';
const REFUND_ACCOUNT = { number: '110222333444', bankCode: '004', holder: '홍길동' };

/** Notes what a call resolved to or rejected with, for the secret scan. */
export function seen(world: World, what: unknown): void {
  world.notes.seen.push(
    what instanceof Error ? `${what.message}\n${what.stack ?? ''}\n${JSON.stringify(what)}` : JSON.stringify(what),
  );
}

/** A key-in of order `order` on `i`, with the model's onApproved or without (then the caller records). */
export function keyinCall(world: World, i: Instance, order: number, declined: boolean, hook: boolean): Promise<void> {
  const { books, notes } = world;
  const moid = `k${order}`;
  const amount = amountOf(order);
  const onApproved = (r: { tid: string; moid: string; amount: number }): Promise<void> =>
    books.runHook('keyin', `keyin:${r.tid}`, i.name, false, () =>
      books.recordCharge(r.tid, { op: 'keyin', moid: r.moid, amount: r.amount }),
    );
  return i.nicepay
    .keyin({
      moid,
      amount,
      goodsName: '모델 상품',
      card: { number: declined ? DECLINING_CARD : APPROVED_CARD, expiry: '2912' },
      ...(hook ? { onApproved, hookTimeoutMs: HOOK_TIMEOUT_MS } : {}),
    })
    .then(
      (r) => {
        seen(world, r);
        if (r.status === 'approved' && !hook)
          books.recordCharge(r.tid, { op: 'keyin', moid: r.moid, amount: r.amount });
        notes.answers.push({ op: 'keyin', tid: r.tid, moid: r.moid, status: r.status });
      },
      (err: unknown) => seen(world, err),
    );
}

/** A billing charge of order `order` on `bid`, with the model's onApproved or without. */
export function chargeCall(world: World, i: Instance, bid: string, order: number, hook: boolean): Promise<void> {
  const { books, notes } = world;
  const moid = `b${order}`;
  const amount = amountOf(order);
  if (!notes.charges.has(moid)) notes.charges.set(moid, { bid, amount });
  const onApproved = (r: { tid: string; moid: string; amount: number }): Promise<void> =>
    books.runHook('billing', `billing:${r.tid}`, i.name, false, () =>
      books.recordCharge(r.tid, { op: 'billing.charge', moid: r.moid, amount: r.amount }),
    );
  return i.nicepay.billing
    .charge({
      bid,
      moid,
      amount,
      goodsName: '모델 구독',
      ...(hook ? { onApproved, hookTimeoutMs: HOOK_TIMEOUT_MS } : {}),
    })
    .then(
      (r) => {
        seen(world, r);
        if (r.status === 'approved' && !hook)
          books.recordCharge(r.tid, { op: 'billing.charge', moid: r.moid, amount: r.amount });
        notes.answers.push({ op: 'billing.charge', tid: r.tid, moid: r.moid, status: r.status });
      },
      (err: unknown) => seen(world, err),
    );
}

/** Posts an auth return's fields to instance `slot`'s return route, as the buyer's browser does. */
export async function postReturn(
  world: World,
  slot: number,
  auth: AuthReturn,
  fields: Record<string, string>,
  signal?: AbortSignal,
): Promise<void> {
  const res = await request(`${world.shopUrl}/i/${slot}/pay/return`, {
    method: 'POST',
    headers: { 'content-type': auth.contentType },
    body: encodeForm(fields, 'euc-kr'),
    ...(signal ? { signal } : {}),
  });
  const text = await res.body.text();
  world.notes.seen.push(text);
  const tid = fields.TxTid!;
  if (res.statusCode === 502 && world.notes.forgotten.has(tid)) {
    // Documented (docs/reliability.md): the restart forgot the TID, and a lost answer cannot be
    // told from a fresh approval; its reversal may cancel the payment recorded before.
    world.notes.excluded.set(tid, 'a memoryStore restart forgot it, and a later return of it met an unknown outcome');
  }
  if (res.statusCode !== 200) return;
  const result = JSON.parse(text) as { status: string; tid?: string; moid: string };
  if (result.tid && ['approved', 'awaiting-deposit', 'declined'].includes(result.status)) {
    world.notes.answers.push({ op: 'approval', tid: result.tid, moid: result.moid, status: result.status });
  }
}

/** The return step: plain, with another order's Moid, or a stranger's token; once or to both instances at once. */
export async function returnStep(world: World, step: Extract<Step, { t: 'return' }>): Promise<void> {
  const auth = world.auths[step.auth % world.auths.length];
  if (!auth) return;
  let fields = { ...auth.fields };
  if (step.forge === 'other-moid') fields.Moid = `w${(Number(auth.fields.Moid!.slice(1)) + 2) % ORDERS}`;
  if (step.forge === 'other-method') fields.PayMethod = auth.fields.PayMethod === 'CARD' ? 'BANK' : 'CARD';
  if (step.forge === 'stranger') {
    const stranger = world.auths[(step.auth + 1) % world.auths.length]!;
    if (stranger === auth) return;
    fields = { ...stranger.fields, TxTid: auth.fields.TxTid!, Moid: auth.fields.Moid! };
  }
  const slots = step.twice ? [step.inst, 1 - step.inst] : [step.inst];
  await Promise.all(slots.map((slot) => postReturn(world, slot, auth, fields)));
}

/** Returns with made-up TxTids of the merchant's shape, each signed with a genuine token. */
export async function floodStep(world: World, step: Extract<Step, { t: 'flood' }>): Promise<void> {
  const auth = world.auths[step.auth % world.auths.length];
  if (!auth) return;
  for (let n = 0; n < 12; n++) {
    await postReturn(world, step.inst, auth, {
      ...auth.fields,
      TxTid: `nicepay00m0101260302${String(n).padStart(10, '0')}`,
    });
  }
}

/** A refund of one of the shop's recorded payments, as the shop knows what is left of it. */
export async function cancelStep(world: World, step: Extract<Step, { t: 'cancel' }>): Promise<void> {
  const { books } = world;
  const tids = [...books.charges.keys()];
  const tid = tids[step.pick % Math.max(tids.length, 1)];
  if (!tid) return;
  const left = books.held(tid);
  if (left <= 0) return;
  const amount = step.partial ? Math.min(300, left) : left;
  const request = `${tid} ${amount} ${step.key}`;
  const sent = world.notes.refundsSent.get(request);
  const now = world.sandbox.clock.now().getTime();
  // The same refund again is a double click, answered from its record while the record is kept;
  // once a memoryStore restart or its day forgot it, a shop does not send it again (documented).
  if (sent && (sent.epoch !== world.notes.memoryRestarts || now - sent.at >= CANCEL_RESULT_TTL_MS)) return;
  const note = (): void =>
    void world.notes.refundsSent.set(request, sent ?? { at: now, epoch: world.notes.memoryRestarts });
  await world.instances[step.inst]!.nicepay.cancel({
    tid,
    moid: books.charges.get(tid)!.moid,
    amount,
    reason: SHOP_CANCEL_REASON,
    partial: step.partial,
    idempotencyKey: `refund-${step.key}`,
    ...(books.deposits.has(tid) ? { refundAccount: REFUND_ACCOUNT } : {}),
  }).then(
    (r) => {
      seen(world, r);
      if (r.status === 'refused') return;
      books.recordRefund(r.tid, r.cancelMoid, r.cancelledAmount);
      note();
    },
    (err: unknown) => {
      seen(world, err);
      if (err instanceof NicepayGatewayError && err.settlement === 'pending') note();
    },
  );
}

/** A cash receipt for order `order` (cash the shop took), recorded from its result. */
export async function receiptStep(world: World, step: Extract<Step, { t: 'receipt' }>): Promise<void> {
  const moid = `r${step.order}`;
  const amount = amountOf(step.order);
  world.notes.identities.add(RECEIPT_IDENTITY);
  await world.instances[step.inst]!.nicepay.cashReceipt.issue({
    moid,
    amount,
    goodsName: '모델 현금',
    type: 'income-deduction',
    identity: RECEIPT_IDENTITY,
    supply: (amount * 10) / 11,
    vat: amount / 11,
  }).then(
    (r) => {
      seen(world, r);
      if (r.status === 'issued')
        world.books.recordCharge(r.tid, { op: 'cash-receipt', moid: r.moid, amount: r.amount });
      world.notes.answers.push({ op: 'cash-receipt', tid: r.tid, moid: r.moid, status: r.status });
    },
    (err: unknown) => seen(world, err),
  );
}

/** Registers the test card; its BID is kept for charges and removals. */
export async function registerStep(world: World, step: Extract<Step, { t: 'register' }>): Promise<void> {
  const moid = `g${world.notes.registrations++}`;
  await world.instances[step.inst]!.nicepay.billing.register({
    moid,
    card: { number: APPROVED_CARD, expYear: '29', expMonth: '12' },
  }).then(
    (r) => {
      seen(world, r);
      if (r.status === 'registered') world.bids.push(r.bid);
    },
    (err: unknown) => seen(world, err),
  );
}

/** Removes one of the BIDs. */
export async function removeStep(world: World, step: Extract<Step, { t: 'remove' }>): Promise<void> {
  const bid = world.bids[step.bid % Math.max(world.bids.length, 1)];
  if (!bid) return;
  await world.instances[step.inst]!.nicepay.billing.remove({ bid, moid: `x${world.notes.registrations++}` }).then(
    (r) => seen(world, r),
    (err: unknown) => seen(world, err),
  );
}
