/**
 * What the ledger keeps in memory holds none of the secrets a request carried. V8 keeps a
 * substring of 13 or more characters as a view of its whole parent: a Moid cut from a key-in
 * body by a body parser, kept in a memoryStore record, would keep the body (card number, birth
 * date, password digits) in the heap for as long as the record is kept; a TxTid cut from an auth
 * return would keep its AuthToken; a field cut from a KV answer would keep the BID the record
 * leaves out. A shop on the default memoryStore runs as a child process; after each kind of
 * operation its heap snapshot is searched for every secret that passed through.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { request } from 'undici';
import { createSandbox, type Sandbox, TEST_MERCHANTS } from '../src/sandbox/index.js';
import { kstParts } from '../src/wire/kst.js';
import { waitForOutput } from './helpers/process-ready.js';

const MID = 'nictest04m';
const KEY = TEST_MERCHANTS.find((m) => m.mid === MID)!.merchantKey;
const SHOP = fileURLToPath(new URL('fixtures/heap-shop.ts', import.meta.url));
/** A test card the sandbox approves (and that appears nowhere in the library the shop loads). */
const PAN = '4000056655665556';
const EXPIRY = (() => {
  const k = kstParts(new Date());
  return `${String((k.year + 3) % 100).padStart(2, '0')}07`;
})();

describe('the heap of a shop on memoryStore holds no secret a request carried', function () {
  this.timeout(60_000);
  let sandbox: Sandbox;
  let shop: ChildProcess;
  let base: string;
  const snapshot = join(os.tmpdir(), `express-nicepay-heap-${process.pid}.heapsnapshot`);

  before(async () => {
    sandbox = createSandbox();
    const { url } = await sandbox.listen(0);
    shop = fork(SHOP, [], {
      execArgv: ['--import', 'tsx'],
      env: { ...process.env, SANDBOX_URL: url, MID, MERCHANT_KEY: KEY },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    const output = await waitForOutput(shop, 'listening', {
      notReady: 'the heap shop did not start',
      exited: 'the heap shop exited',
    });
    base = `http://127.0.0.1:${/listening (\d+)/.exec(output())![1]}`;
  });
  after(async () => {
    shop?.kill('SIGKILL');
    rmSync(snapshot, { force: true });
    await sandbox?.close();
  });

  /** Writes the shop's heap snapshot and reads its strings: every live string's text is one of them. */
  async function heapStrings(): Promise<string[]> {
    const res = await request(`${base}/heap`, {
      method: 'POST',
      body: snapshot,
      headers: { 'content-type': 'text/plain' },
    });
    expect(await res.body.text()).to.equal('written');
    const strings = (JSON.parse(readFileSync(snapshot, 'utf8')) as { strings: string[] }).strings;
    rmSync(snapshot, { force: true });
    return strings;
  }
  const holding = (strings: string[], secret: string): string[] =>
    strings.filter((s) => s.includes(secret)).map((s) => s.slice(0, 120));

  it('after key-ins posted as forms, no card number or birth date is in the heap, though their records are', async () => {
    const births: string[] = [];
    for (let i = 0; i < 5; i++) {
      // A different birth date each time, so a match cannot come from anywhere but the post.
      const birth = `${randomInt(70, 100)}${String(randomInt(1, 13)).padStart(2, '0')}${String(randomInt(1, 29)).padStart(2, '0')}`;
      births.push(birth);
      const body = new URLSearchParams({
        moid: `heap-keyin-order-${Date.now()}-${i}-1004`,
        goodsName: 'heap-test-goods-name',
        cardNumber: PAN,
        cardExpiry: EXPIRY,
        buyerAuthNum: birth,
        cardPassword2: '97',
      }).toString();
      const res = await request(`${base}/keyin`, {
        method: 'POST',
        body,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect(await res.body.text()).to.equal('approved');
    }
    const strings = await heapStrings();
    expect(holding(strings, PAN), 'the card number').to.deep.equal([]);
    for (const birth of births) expect(holding(strings, `buyerAuthNum=${birth}`), 'a birth date').to.deep.equal([]);
    // The records themselves are there: the search looks where they are kept.
    expect(strings.some((s) => s.startsWith('heap-keyin-order-'))).to.equal(true);
  });

  it('after approvals of auth returns, no AuthToken is in the heap, though their records are', async () => {
    const tokens: string[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await sandbox.authenticate({
        mid: MID,
        moid: `heap-checkout-order-${Date.now()}-${i}-2000`,
        amount: 2000,
        method: 'CARD',
        charset: 'euc-kr',
        goodsName: '힙 상품',
      });
      tokens.push(r.fields.AuthToken!);
      const res = await request(`${base}/pay/return`, {
        method: 'POST',
        body: r.body,
        headers: { 'content-type': r.contentType },
      });
      expect(await res.body.text()).to.equal('approved');
    }
    const strings = await heapStrings();
    for (const token of tokens) expect(holding(strings, token), 'an AuthToken').to.deep.equal([]);
    expect(strings.some((s) => s.startsWith('heap-checkout-order-'))).to.equal(true);
  });

  it('after billing charges answered as KV, no BID is in the heap, though their records are', async () => {
    const bids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await request(`${base}/billing`, {
        method: 'POST',
        body: JSON.stringify({ moid: `heap-billing-order-${Date.now()}-${i}-3000` }),
        headers: { 'content-type': 'application/json' },
      });
      const answer = (await res.body.json()) as { bid: string; status: string };
      expect(answer.status).to.equal('approved');
      bids.push(answer.bid);
    }
    const strings = await heapStrings();
    for (const bid of bids) expect(holding(strings, bid), 'a BID').to.deep.equal([]);
    expect(strings.some((s) => s.startsWith('heap-billing-order-'))).to.equal(true);
  });
});
