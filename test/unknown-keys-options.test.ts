/**
 * Options set once (a route, a charger, createNicepay and its sub-options) refuse a key their
 * type does not declare when the factory is called, with a NicepayConfigError naming the
 * factory and the nearest known name; and every list of known names is written against its
 * type, so the compiler holds it to the type (an option added to one and not the other does not
 * type-check).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { expect } from 'chai';
import { createNicepay } from '../src/index.js';
import { type KeyList, knownKeys, unknownKeyOf } from '../src/validation/known-keys.js';
import { MERCHANT_KEY, MID } from './helpers/shop.js';
import { expectUnknownOption } from './helpers/unknown-key.js';

const SRC = resolve(import.meta.dirname, '../src');

/** Lets a test pass what a JavaScript caller could: any object where options are typed. */
// biome-ignore lint/suspicious/noExplicitAny: the point is an option the type would refuse
const loose = (o: object): any => o;

describe('route and charger options refuse an unknown key when created', () => {
  const nicepay = createNicepay({ mid: MID, merchantKey: MERCHANT_KEY, baseUrl: 'http://127.0.0.1:9', settle: false });
  after(() => nicepay.close());
  const hook = () => undefined;

  it('checkoutReturn(), keyinRouter() and notifications() name themselves and the option', () => {
    expectUnknownOption(() => nicepay.checkoutReturn(loose({ expectedAmount: () => 1, resultTTLms: 1 })), {
      field: 'resultTTLms',
      caller: 'checkoutReturn()',
      hint: 'resultTtlMs',
    });
    expectUnknownOption(() => nicepay.keyinRouter(loose({ expectedAmount: () => 1, onApprove: hook })), {
      field: 'onApprove',
      caller: 'keyinRouter()',
      hint: 'onApproved',
    });
    expectUnknownOption(
      () => nicepay.notifications(loose({ expectedAmount: () => 1, onDeposit: hook, allowedIP: ['127.0.0.1'] })),
      { field: 'notifications.allowedIP', caller: 'notifications()', hint: 'notifications.allowedIps' },
    );
  });

  it('keyinCharger() and billing.charger() refuse a misspelt option before registering their hook', () => {
    expectUnknownOption(() => nicepay.keyinCharger(loose({ name: 'a', onApproved: hook, hookTimeout: 5 })), {
      field: 'hookTimeout',
      caller: 'keyinCharger()',
      hint: 'hookTimeoutMs',
    });
    expectUnknownOption(() => nicepay.billing.charger(loose({ name: 'b', onApproved: hook, onDeclined: hook })), {
      field: 'onDeclined',
      caller: 'billing.charger()',
    });
    // Nothing was registered under those names: the corrected chargers are created.
    expect(nicepay.keyinCharger({ name: 'a', onApproved: hook })).to.be.a('function');
    expect(nicepay.billing.charger({ name: 'b', onApproved: hook })).to.be.a('function');
  });

  it("createNicepay()'s settle.reconciliation login is checked like its other sub-options", () => {
    expectUnknownOption(
      () =>
        createNicepay({
          mid: MID,
          merchantKey: MERCHANT_KEY,
          baseUrl: 'http://127.0.0.1:9',
          settle: { intervalMs: false, reconciliation: loose({ usrId: 'admin', searchId: MID }) },
        }),
      { field: 'settle.reconciliation.searchId', caller: 'createNicepay()', hint: 'settle.reconciliation.searchID' },
    );
  });
});

describe('lists of known option names', () => {
  it('a hint is given for a misspelling (case or a letter or two), none for an unrelated name', () => {
    const known = knownKeys<{ idempotencyKey?: string; amount: number }>({ idempotencyKey: true, amount: true });
    expect(known).to.deep.equal(['idempotencyKey', 'amount']);
    expect(unknownKeyOf({ amount: 1, idempotencykey: 'k' }, known)).to.deep.equal({
      key: 'idempotencykey',
      near: 'idempotencyKey',
    });
    expect(unknownKeyOf({ amout: 1 }, known)).to.deep.equal({ key: 'amout', near: 'amount' });
    expect(unknownKeyOf({ colour: 'red' }, known)).to.deep.equal({ key: 'colour', near: undefined });
    expect(unknownKeyOf({ amount: 1, idempotencyKey: 'k' }, known)).to.equal(undefined);
  });

  it('every list a refusal reads in src is written with knownKeys<T>, which the compiler holds to T', () => {
    const files = (readdirSync(SRC, { recursive: true }) as string[])
      .filter((f) => f.endsWith('.ts') && !f.startsWith('sandbox'))
      .map((f) => join(SRC, f));
    const text = files.map((f) => readFileSync(f, 'utf8')).join('\n');
    const used = new Set<string>();
    for (const f of files) {
      const source = readFileSync(f, 'utf8');
      for (const m of source.matchAll(/\b(?:refuseUnknown|refuseUnknownInput|wireBuyer|object)\([^,()]+, ([A-Z_]+),/g))
        used.add(`${m[1]} (${relative(SRC, f)})`);
    }
    expect(used.size, 'lists found').to.be.greaterThan(20);
    const plain = [...used].filter((u) => !new RegExp(`const ${u.split(' ')[0]} = knownKeys<`).test(text));
    expect(plain, 'lists not written with knownKeys<T>').to.deep.equal([]);
  });
});

/**
 * Type-level checks, run by `tsc --noEmit` (this file is in the project): a list that misses
 * a key of its type, or names one the type does not have, does not compile. If KeyList ever
 * stopped refusing either, the unused @ts-expect-error would fail the type check.
 */
function listsDriftingFromTheirTypeDoNotCompile(): KeyList<{ a: number; b?: string }>[] {
  // @ts-expect-error: 'b' (optional) is missing from the list
  const missing = knownKeys<{ a: number; b?: string }>({ a: true });
  // @ts-expect-error: 'c' is not a key of the type
  const extra = knownKeys<{ a: number; b?: string }>({ a: true, b: true, c: true });
  void missing;
  void extra;
  return [{ a: true, b: true }];
}
void listsDriftingFromTheirTypeDoNotCompile;
