/**
 * The money operations of the restart tests, as the shop of test/fixtures/sqlite-shop.ts is
 * asked for them: how each starts, how the buyer or back office repeats it (the same request
 * every time), and how a repeat is driven on a shop process until it is final or the process dies.
 */
import { expect } from 'chai';
import type { SettledItem } from '../../src/index.js';
import type { Sandbox } from '../../src/sandbox/index.js';
import type { ShopAnswer, ShopProcess } from './sqlite-shop-process.js';

/** A ledger operation the shop runs, by its gateway-call name. */
export type Op = 'approval' | 'keyin' | 'billing.charge' | 'cash-receipt';

/** One operation of the shop. */
export interface Operation {
  op: Op;
  label: string;
  /** It runs the shop's onApproved (a cash receipt has none: the route records it). */
  hook: boolean;
  /** Settlement runs the route's own hook again (checkoutReturn and keyinRouter register theirs). */
  routeHook: boolean;
  /**
   * Prepares it on the first shop (a billing key for customer `c<n>`) and answers the request
   * that starts it, which every repeat sends again unchanged.
   */
  begin(
    sandbox: Sandbox,
    shop: ShopProcess,
    moid: string,
    amount: number,
    n: number,
  ): Promise<(shop: ShopProcess) => Promise<ShopAnswer>>;
}

/** Checkout, key-in, billing charge and cash receipt. */
export const OPERATIONS: readonly Operation[] = [
  {
    op: 'approval',
    label: 'checkout',
    hook: true,
    routeHook: true,
    async begin(sandbox, _shop, moid, amount) {
      const auth = await sandbox.authenticate({ moid, amount, method: 'CARD' });
      return (shop) => shop.post('/pay/return', auth.body, auth.contentType);
    },
  },
  {
    op: 'keyin',
    label: 'key-in',
    hook: true,
    routeHook: true,
    begin: async (_sandbox, _shop, moid) => (shop) =>
      shop.post('/keyin', { moid, goodsName: '키인 주문', cardNumber: '4111111111111111', cardExpiry: '3012' }),
  },
  {
    op: 'billing.charge',
    label: 'billing charge',
    hook: true,
    routeHook: false,
    async begin(_sandbox, shop, moid, _amount, n) {
      const customer = `c${n}`;
      const reg = await shop.post('/billing/register', { customer });
      expect(reg.body.status, 'the card is registered before the charge').to.equal('registered');
      return (s) => s.post('/billing/charge', { customer, moid });
    },
  },
  {
    op: 'cash-receipt',
    label: 'cash receipt',
    hook: false,
    routeHook: false,
    begin: async (_sandbox, _shop, moid) => (shop) => shop.post('/receipt', { moid }),
  },
];

/** The operation named `op`. */
export function operation(op: Op): Operation {
  return OPERATIONS.find((o) => o.op === op)!;
}

/** An answer that is final: a result, or an error whose settlement is done. */
export const isFinal = (a: ShopAnswer): boolean =>
  a.statusCode === 200 || (a.body.settlement !== undefined && a.body.settlement !== 'pending');

/** What {@link drive} saw: the last answer, and what the passes it ran settled. */
export interface Drive {
  answer: ShopAnswer;
  settled: SettledItem[];
}

/**
 * Repeats an operation on `shop` as a buyer or back office would (`first`: a repeat already
 * sent), with a settle() pass between repeats, until the answer is final (at most 3 passes), then settles until nothing is open (at
 * most 3 more). Stops early, without failing, when the shop dies (a KILL_AT of its own).
 */
export async function drive(
  shop: ShopProcess,
  send: (shop: ShopProcess) => Promise<ShopAnswer>,
  first: Promise<ShopAnswer> = send(shop),
): Promise<Drive> {
  const settled: SettledItem[] = [];
  /** One settle pass; false when the shop died in it. */
  const settle = async (): Promise<boolean> => {
    try {
      settled.push(...(await shop.settle()).settled);
      return true;
    } catch (err) {
      if (shop.dead) return false;
      throw err;
    }
  };
  let answer = await first;
  for (let round = 0; round < 3 && answer.statusCode !== 0 && !isFinal(answer); round++) {
    if (!(await settle())) return { answer, settled };
    answer = await send(shop);
  }
  for (let pass = 0; pass < 3 && answer.statusCode !== 0 && !shop.dead; pass++) {
    const open = await shop.unsettled().catch((err: unknown) => {
      if (shop.dead) return [];
      throw err;
    });
    if (open.length === 0 || !(await settle())) break;
  }
  return { answer, settled };
}
