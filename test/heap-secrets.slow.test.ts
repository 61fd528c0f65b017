/**
 * What the package keeps in memory, or hands to what may keep it, holds none of the secrets a
 * request or an answer carried. V8 keeps a substring of 13 or more characters as a view of its
 * whole parent: a Moid cut from a key-in body by a body parser, kept in a memoryStore record,
 * would keep the body (card number, birth date, password digits) in the heap for as long as the
 * record is kept; a TxTid cut from an auth return would keep its AuthToken; a field cut from a KV
 * answer would keep the BID or receipt identity the record leaves out. Shops on the default
 * memoryStore run as child processes; after each kind of operation a shop's heap snapshot is
 * searched for every secret that passed through it.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { request } from 'undici';
import { createSandbox, type Sandbox, TEST_MERCHANTS } from '../src/sandbox/index.js';
import { encodeForm } from '../src/wire/form-codec.js';
import { kstParts } from '../src/wire/kst.js';
import { waitForOutput } from './helpers/process-ready.js';

const MID = 'nictest04m';
const KEY = TEST_MERCHANTS.find((m) => m.mid === MID)!.merchantKey;
const SHOP = fileURLToPath(new URL('fixtures/heap-shop.ts', import.meta.url));
/** A test card the sandbox approves (and that appears nowhere in the library the shop loads). */
const PAN = '4000056655665556';
/** Another card number, for a repeat of an order with another card (refused before it is sent). */
const OTHER_PAN = '5555555555554444';
const EXPIRY = (() => {
  const k = kstParts(new Date());
  return `${String((k.year + 3) % 100).padStart(2, '0')}07`;
})();

/**
 * A gateway in front of the sandbox whose KV answers echo what the request sent: a billing
 * charge's answer its BID, a cash receipt's its ReceiptTypeNo (the gateway may add answer fields
 * without notice; the package's records leave both out).
 */
async function echoingGateway(target: string): Promise<{ server: Server; url: string }> {
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const up = await request(new URL(req.url!, target), {
      method: 'POST',
      headers: { 'content-type': req.headers['content-type']! },
      body,
    });
    let answer = Buffer.from(await up.body.arrayBuffer());
    const form = new URLSearchParams(body.toString('latin1'));
    const kv = !answer.toString('latin1').trimStart().startsWith('{');
    for (const name of ['BID', 'ReceiptTypeNo']) {
      const sent = form.get(name);
      if (kv && sent) answer = Buffer.concat([answer, Buffer.from(`&${name}=${sent}`)]);
    }
    res.writeHead(up.statusCode, { 'content-type': String(up.headers['content-type']) });
    res.end(answer);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** A gateway in front of the sandbox that drops the connection of every billing-key registration once it is sent. */
async function droppingGateway(target: string): Promise<{ server: Server; url: string }> {
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (req.url?.includes('billing_regist')) {
      req.socket.destroy();
      return;
    }
    const up = await request(new URL(req.url!, target), {
      method: 'POST',
      headers: { 'content-type': req.headers['content-type']! },
      body: Buffer.concat(chunks),
    });
    res.writeHead(up.statusCode, { 'content-type': String(up.headers['content-type']) });
    res.end(Buffer.from(await up.body.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

describe('the heap of a shop on memoryStore holds no secret a request or an answer carried', function () {
  this.timeout(60_000);
  let sandbox: Sandbox;
  let sandboxUrl: string;
  const children: ChildProcess[] = [];
  const snapshot = join(os.tmpdir(), `express-nicepay-heap-${process.pid}.heapsnapshot`);

  before(async () => {
    // An "already processed" refusal names the order, so a second instance recovers an approval.
    sandbox = createSandbox({ processedNamesOrder: true });
    sandboxUrl = (await sandbox.listen(0)).url;
  });
  after(async () => {
    for (const child of children) child.kill('SIGKILL');
    rmSync(snapshot, { force: true });
    await sandbox?.close();
  });

  /** Starts a shop against `gateway` with `env` added; resolves to its base URL. */
  async function startShop(gateway: string, env: Record<string, string> = {}): Promise<string> {
    const child = fork(SHOP, [], {
      execArgv: ['--import', 'tsx'],
      env: { ...process.env, SANDBOX_URL: gateway, MID, MERCHANT_KEY: KEY, ...env },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    children.push(child);
    const output = await waitForOutput(child, 'listening', {
      notReady: 'the heap shop did not start',
      exited: 'the heap shop exited',
    });
    return `http://127.0.0.1:${/listening (\d+)/.exec(output())![1]}`;
  }

  /**
   * Writes the shop's heap snapshot (its answer matching `kept`) and reads its strings: every
   * live string's text is one of them.
   */
  async function heapStrings(shop: string, kept: RegExp = /^written/): Promise<string[]> {
    const res = await request(`${shop}/heap`, {
      method: 'POST',
      body: snapshot,
      headers: { 'content-type': 'text/plain' },
    });
    expect(await res.body.text()).to.match(kept);
    const strings = (JSON.parse(readFileSync(snapshot, 'utf8')) as { strings: string[] }).strings;
    rmSync(snapshot, { force: true });
    return strings;
  }
  const holding = (strings: string[], secret: string): string[] =>
    strings.filter((s) => s.includes(secret)).map((s) => s.slice(0, 120));

  /** A birth date (YYMMDD), a different one each time. */
  const birthDate = (): string =>
    `${randomInt(70, 100)}${String(randomInt(1, 13)).padStart(2, '0')}${String(randomInt(1, 29)).padStart(2, '0')}`;

  /** Posts one key-in as a form to `path` and expects `status` in the answer. */
  async function keyin(
    shop: string,
    path: string,
    moid: string,
    card: string,
    birth: string,
    status: string,
    more: Record<string, string> = {},
  ) {
    const body = new URLSearchParams({
      moid,
      goodsName: 'heap-test-goods-name',
      cardNumber: card,
      cardExpiry: EXPIRY,
      buyerAuthNum: birth,
      cardPassword2: '97',
      ...more,
    }).toString();
    const res = await request(`${shop}${path}`, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(await res.body.text()).to.include(status);
  }

  /**
   * Posts 5 key-ins as forms to `path`, each answered `status`; resolves to the birth dates
   * posted (a different one each time).
   */
  async function keyins(shop: string, path = '/keyin', status = 'approved'): Promise<string[]> {
    const births: string[] = [];
    for (let i = 0; i < 5; i++) {
      const birth = birthDate();
      births.push(birth);
      await keyin(shop, path, `heap-keyin-order-${Date.now()}-${i}-1004`, PAN, birth, status);
    }
    return births;
  }

  /**
   * Posts 3 key-ins as forms to `path` of a shop that keeps every error, each refused with
   * `status`, and checks that its heap then holds no card number or birth date they carried.
   */
  async function expectKeptRefusalsClean(path: string, status: string, more: Record<string, string> = {}) {
    const shop = await startShop(sandboxUrl, { KEEP_ERRORS: '1' });
    const births: string[] = [];
    for (let i = 0; i < 3; i++) {
      const birth = birthDate();
      births.push(birth);
      await keyin(shop, path, `heap-keyin-order-${Date.now()}-${i}-1004`, PAN, birth, status, more);
    }
    const strings = await heapStrings(shop, /^written, 0 spans, 3 errors, 0 hook arguments and 0 log lines kept$/);
    expect(holding(strings, PAN), 'the card number').to.deep.equal([]);
    for (const birth of births) expect(holding(strings, `buyerAuthNum=${birth}`), 'a birth date').to.deep.equal([]);
  }

  it('after key-ins posted as forms, no card number or birth date is in the heap, though their records are', async () => {
    const shop = await startShop(sandboxUrl);
    const births = await keyins(shop);
    const strings = await heapStrings(shop);
    expect(holding(strings, PAN), 'the card number').to.deep.equal([]);
    for (const birth of births) expect(holding(strings, `buyerAuthNum=${birth}`), 'a birth date').to.deep.equal([]);
    // The records themselves are there: the search looks where they are kept.
    expect(strings.some((s) => s.startsWith('heap-keyin-order-'))).to.equal(true);
  });

  it('with a subscriber that keeps every gateway call’s context, key-ins leave no card number in the heap', async () => {
    const shop = await startShop(sandboxUrl, { KEEP_SPANS: '1' });
    await keyins(shop);
    const strings = await heapStrings(shop);
    expect(holding(strings, PAN), 'the card number').to.deep.equal([]);
    expect(strings.some((s) => s.startsWith('heap-keyin-order-'))).to.equal(true);
  });

  it('after key-ins whose onApproved failed with a message naming posted text, no card number is in the heap', async () => {
    const shop = await startShop(sandboxUrl);
    await keyins(shop, '/keyin-out-of-stock', 'NICEPAY_HOOK_FAILED');
    const strings = await heapStrings(shop);
    expect(holding(strings, PAN), 'the card number').to.deep.equal([]);
    // The records keep the hook's message: the search looks where it is kept.
    expect(strings.some((s) => s.includes('out of stock: heap-test-goods-name'))).to.equal(true);
  });

  it('a shop that keeps the refusals of key-ins repeated with another card keeps no card number or birth date', async () => {
    const shop = await startShop(sandboxUrl, { KEEP_ERRORS: '1' });
    const births: string[] = [];
    for (let i = 0; i < 3; i++) {
      const moid = `heap-keyin-order-${Date.now()}-${i}-1004`;
      await keyin(shop, '/keyin', moid, PAN, birthDate(), 'approved');
      // The same order again with another card: refused before anything is sent.
      const birth = birthDate();
      births.push(birth);
      await keyin(shop, '/keyin', moid, OTHER_PAN, birth, 'NICEPAY_DUPLICATE_MISMATCH');
    }
    // The shop kept the three refusals: the search looks where they are.
    const strings = await heapStrings(shop, /^written, 0 spans, 3 errors, 0 hook arguments and 0 log lines kept$/);
    expect(holding(strings, OTHER_PAN), 'the second card number').to.deep.equal([]);
    for (const birth of births) expect(holding(strings, `buyerAuthNum=${birth}`), 'a birth date').to.deep.equal([]);
  });

  it('a shop that keeps the refusals of key-ins whose text cannot go in a KV answer keeps no card number or birth date', async () => {
    await expectKeptRefusalsClean('/keyin-direct', 'NICEPAY_FIELD_INVALID', { buyerName: 'Hong&Co', ediType: 'KV' });
  });

  it('a shop that keeps the refusals of key-ins with a mistyped card number or an unknown order keeps no card data', async () => {
    const shop = await startShop(sandboxUrl, { KEEP_ERRORS: '1' });
    const mistyped = `${PAN.slice(0, -1)}${(Number(PAN.at(-1)) + 1) % 10}`;
    const births: string[] = [];
    for (let i = 0; i < 2; i++) {
      const birth = birthDate();
      births.push(birth);
      await keyin(shop, '/keyin', `heap-keyin-order-${Date.now()}-${i}-1004`, mistyped, birth, 'NICEPAY_FIELD_INVALID');
      // The shop knows no amount for this order: its refusal names the Moid.
      const other = birthDate();
      births.push(other);
      await keyin(
        shop,
        '/keyin',
        `heap-keyin-order-${Date.now()}-${i}-none`,
        PAN,
        other,
        'NICEPAY_HOOK_RESULT_INVALID',
      );
    }
    const strings = await heapStrings(shop, /^written, 0 spans, 4 errors, 0 hook arguments and 0 log lines kept$/);
    expect(holding(strings, mistyped), 'the mistyped card number').to.deep.equal([]);
    expect(holding(strings, PAN), 'the card number').to.deep.equal([]);
    for (const birth of births) expect(holding(strings, `buyerAuthNum=${birth}`), 'a birth date').to.deep.equal([]);
  });

  it('a shop that keeps the refusal of a return whose order it cannot price keeps no AuthToken', async () => {
    const shop = await startShop(sandboxUrl, { KEEP_ERRORS: '1' });
    const tokens: string[] = [];
    for (let i = 0; i < 3; i++) {
      // The shop's expectedAmount answers NaN for this Moid: its refusal names the order.
      const r = await sandbox.authenticate({
        mid: MID,
        moid: `heap-checkout-order-${Date.now()}-${i}-unpriced`,
        amount: 2000,
        method: 'CARD',
        charset: 'euc-kr',
      });
      tokens.push(r.fields.AuthToken!);
      const res = await request(`${shop}/pay/return`, {
        method: 'POST',
        body: r.body,
        headers: { 'content-type': r.contentType },
      });
      expect(await res.body.text()).to.include('NICEPAY_HOOK_RESULT_INVALID');
    }
    const strings = await heapStrings(shop, /^written, 0 spans, 3 errors, 0 hook arguments and 0 log lines kept$/);
    for (const token of tokens) expect(holding(strings, token), 'an AuthToken').to.deep.equal([]);
  });

  it('a shop that keeps the errors of billing-key registrations posted as forms whose answer was lost keeps no card number', async () => {
    const gateway = await droppingGateway(sandboxUrl);
    try {
      const shop = await startShop(gateway.url, { KEEP_ERRORS: '1' });
      for (let i = 0; i < 3; i++) {
        const res = await request(`${shop}/billing-register`, {
          method: 'POST',
          body: new URLSearchParams({ moid: `heap-register-order-${Date.now()}-${i}`, number: OTHER_PAN }).toString(),
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
        });
        expect(await res.body.text()).to.include('NICEPAY_OUTCOME_UNKNOWN');
      }
      const strings = await heapStrings(shop, /^written, 0 spans, 3 errors, 0 hook arguments and 0 log lines kept$/);
      expect(holding(strings, OTHER_PAN), 'the card number').to.deep.equal([]);
    } finally {
      gateway.server.close();
    }
  });

  it('a shop that keeps the refusals of nicepay.keyin() for a posted form keeps no card data', async () => {
    // An expiry in the past: refused before anything is sent.
    await expectKeptRefusalsClean('/keyin-direct', 'NICEPAY_FIELD_INVALID', { cardExpiry: '2001' });
  });

  it('a shop that keeps the errors its own expectedAmount throws on the key-in route keeps no card data', async () => {
    await expectKeptRefusalsClean('/keyin-lookup', 'no such order');
  });

  it('a shop that keeps the key-ins refused because its store is full keeps no card data', async () => {
    const shop = await startShop(sandboxUrl, { KEEP_ERRORS: '1', STORE_MAX: '2' });
    const births: string[] = [];
    for (let i = 0; i < 4; i++) {
      const birth = birthDate();
      births.push(birth);
      // Two approved key-ins fill the store: the next two are refused before anything is sent.
      await keyin(
        shop,
        '/keyin',
        `heap-keyin-order-${Date.now()}-${i}-1004`,
        PAN,
        birth,
        i < 2 ? 'approved' : 'NICEPAY_STORE_FULL',
      );
    }
    const strings = await heapStrings(shop, /^written, 0 spans, 2 errors, 0 hook arguments and 0 log lines kept$/);
    expect(holding(strings, PAN), 'the card number').to.deep.equal([]);
    for (const birth of births) expect(holding(strings, `buyerAuthNum=${birth}`), 'a birth date').to.deep.equal([]);
  });

  it('a deposit notice the shop keeps, or logs to a logger that keeps its lines, keeps nothing the notice leaves out', async () => {
    const shop = await startShop(sandboxUrl, { KEEP_LOGS: '1' });
    // A field some captured notices carry and the package never passes on (docs/lifecycle.md).
    const dropped = `MerchantKey=heap-notice-secret-${randomInt(1e9, 1e10)}`;
    for (let i = 0; i < 2; i++) {
      const moid = `heap-vbank-order-${Date.now()}-${i}-25000`;
      const body = Buffer.concat([
        encodeForm(
          {
            PayMethod: 'VBANK',
            ResultCode: '4110',
            ResultMsg: '입금 통보',
            TID: `${MID}03012611${String(Date.now()).slice(-11)}${i}`,
            MID,
            MOID: moid,
            Amt: '25000',
            AuthDate: '261124093000',
            VbankNum: '91234567890123',
            VbankName: '우리은행',
            VbankInputName: '홍길동',
            StateCd: '0',
          },
          'euc-kr',
        ),
        Buffer.from(`&${dropped}`),
      ]);
      const res = await request(`${shop}/notice`, {
        method: 'POST',
        body,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect(await res.body.text()).to.equal('OK');
    }
    const strings = await heapStrings(
      shop,
      /^written, 0 spans, 0 errors, 2 hook arguments and [1-9]\d* log lines kept$/,
    );
    expect(holding(strings, dropped), 'the field never passed on').to.deep.equal([]);
    expect(strings.some((s) => s.startsWith('heap-vbank-order-'))).to.equal(true);
  });

  it('after approvals, and the same returns recovered by a second instance that keeps its log lines, no AuthToken is in either heap', async () => {
    const first = await startShop(sandboxUrl);
    // The second instance logs the recovery, to a logger that keeps its lines.
    const second = await startShop(sandboxUrl, { KEEP_LOGS: '1' });
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
      // The first instance approves it; the buyer's retry reaches the second, whose store never
      // saw it: the gateway answers "already processed", and the approval is recovered.
      for (const shop of [first, second]) {
        const res = await request(`${shop}/pay/return`, {
          method: 'POST',
          body: r.body,
          headers: { 'content-type': r.contentType },
        });
        expect(await res.body.text()).to.equal('approved');
      }
    }
    for (const shop of [first, second]) {
      const strings = await heapStrings(shop);
      for (const token of tokens) expect(holding(strings, token), 'an AuthToken').to.deep.equal([]);
      expect(strings.some((s) => s.startsWith('heap-checkout-order-'))).to.equal(true);
    }
  });

  it('after billing charges and cash receipts whose KV answers echo the BID and the identity, neither is in the heap', async () => {
    const gateway = await echoingGateway(sandboxUrl);
    try {
      const shop = await startShop(gateway.url);
      const bids: string[] = [];
      for (let i = 0; i < 3; i++) {
        const res = await request(`${shop}/billing`, {
          method: 'POST',
          body: JSON.stringify({ moid: `heap-billing-order-${Date.now()}-${i}-3000` }),
          headers: { 'content-type': 'application/json' },
        });
        const answer = (await res.body.json()) as { bid: string; status: string };
        expect(answer.status).to.equal('approved');
        bids.push(answer.bid);
      }
      const identities: string[] = [];
      for (let i = 0; i < 3; i++) {
        const identity = `010${randomInt(10_000_000, 100_000_000)}`;
        identities.push(identity);
        const res = await request(`${shop}/receipt`, {
          method: 'POST',
          body: JSON.stringify({ moid: `heap-receipt-order-${Date.now()}-${i}`, identity }),
          headers: { 'content-type': 'application/json' },
        });
        expect(await res.body.text()).to.equal('issued');
      }
      const strings = await heapStrings(shop);
      for (const bid of bids) expect(holding(strings, bid), 'a BID').to.deep.equal([]);
      for (const identity of identities) expect(holding(strings, identity), 'a receipt identity').to.deep.equal([]);
      expect(strings.some((s) => s.startsWith('heap-billing-order-'))).to.equal(true);
      expect(strings.some((s) => s.startsWith('heap-receipt-order-'))).to.equal(true);
    } finally {
      gateway.server.close();
    }
  });
});
