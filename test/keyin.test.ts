import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import {
  createNicepay,
  memoryStore,
  NicepayError,
  type KeyinInput,
  type KeyinResult,
  type Nicepay,
  type NicepayOptions,
} from '../src/index.js';
import { issueKeyinTid } from '../src/keyin/tid.js';
import {
  createSandbox,
  KEYIN_DECLINES,
  SANDBOX_TEST_CARDS,
  TEST_MERCHANTS,
  type Sandbox,
} from '../src/sandbox/index.js';
import { encryptEncData } from '../src/wire/enc-data.js';
import { encodeForm } from '../src/wire/form-codec.js';
import { keyinEncPlaintext } from '../src/wire/keyin-fields.js';
import { fromKst, kstParts, kstTimestamp12, kstTimestamp14 } from '../src/wire/kst.js';
import { keyinSignData } from '../src/wire/signatures.js';
import { captureLogger } from './helpers/capture.js';
import { rejectedWith } from './helpers/rejected.js';
import { pastClientDeadline } from './helpers/fake-deadline.js';

const MID = 'nictest04m';
const KEY = TEST_MERCHANTS.find((m) => m.mid === MID)!.merchantKey;
/** A merchant whose contract requires BuyerAuthNum and CardPwd. */
const STRICT_MID = 'nictest09m';
const STRICT_KEY = 'StrictKeyinMerchantKey0123456789abcdef==';
const TID_RE = /^nictest04m0101\d{12}[0-9A-Za-z]{4}$/;
const vectors = JSON.parse(readFileSync(new URL('./fixtures/vectors.json', import.meta.url), 'utf8')) as {
  vectors: Array<{ name: string; input: Record<string, string>; expect: string }>;
};

/** An expiry (YYMM) three years ahead of now in KST. */
const FUTURE = (() => {
  const k = kstParts(new Date());
  return `${String((k.year + 3) % 100).padStart(2, '0')}07`;
})();
let seq = 0;
/** A sandbox delay no client deadline of these tests waits for: the delay cases jump past the deadline. */
const LATE_MS = 600_000;
const moid = (tag: string): string => `k-${tag}-${++seq}-${Date.now()}`;
const input = (over: Partial<KeyinInput> = {}, card: Partial<KeyinInput['card']> = {}): KeyinInput => ({
  moid: moid('t'),
  amount: 1004,
  goodsName: '테스트 상품',
  ...over,
  card: { number: '4111111111111111', expiry: FUTURE, ...card },
});

function approved(r: KeyinResult): Extract<KeyinResult, { status: 'approved' }> {
  if (r.status !== 'approved') throw new Error(`expected approved, got ${r.status} ${r.code} ${r.message}`);
  return r;
}

const rejection = (p: Promise<unknown>): Promise<NicepayError> => rejectedWith(p, NicepayError);

describe('card key-in (interface B) through createNicepay and the sandbox', () => {
  let sandbox: Sandbox;
  let url: string;
  let nicepay: Nicepay;
  const captured = captureLogger();
  const make = (over: Partial<NicepayOptions> = {}): Nicepay =>
    createNicepay({
      mid: MID,
      merchantKey: KEY,
      baseUrl: url,
      logger: captured.logger,
      timeouts: { connectMs: 1_000, responseMs: 3_000 },
      ...over,
    });
  const approvalsOf = (m: string) => sandbox.ledger.entries().filter((e) => e.moid === m && e.status === 'approved');

  before(async () => {
    sandbox = createSandbox({
      merchants: [
        ...TEST_MERCHANTS,
        { mid: STRICT_MID, merchantKey: STRICT_KEY, keyinRequiresAuthNum: true, keyinRequiresPassword: true },
      ],
    });
    ({ url } = await sandbox.listen(0));
    nicepay = make();
  });
  afterEach(() => {
    sandbox.faults.clear();
    sandbox.clock.set(new Date());
  });
  after(async () => {
    await nicepay.close();
    await sandbox.close();
    const text = captured.text();
    expect(text).to.not.include(KEY);
    expect(text).to.not.include('4111111111111111');
  });

  it('approves a test card and returns a typed card payment', async () => {
    const req = input({
      buyer: { name: '김똠햏', email: 'a@b.kr' },
      mallReserved: 'x=1&y=2',
      quota: 3,
      interestFree: true,
    });
    const r = approved(await nicepay.keyin(req));
    expect(r.duplicate).to.equal(false);
    expect(r.tid).to.match(TID_RE);
    expect(r.amount).to.equal(1004);
    const p = r.payment;
    expect(p.method).to.equal('CARD');
    expect(p.tid).to.equal(r.tid);
    expect(p.mid).to.equal(MID);
    expect(p.moid).to.equal(req.moid);
    expect(p.amount).to.equal(1004);
    expect(p.resultCode).to.equal('3001');
    expect(p.approvedAt).to.be.instanceOf(Date);
    expect(p.authCode).to.match(/^\d{8}$/);
    expect(p.goodsName).to.equal('테스트 상품');
    expect(p.buyerName).to.equal('김똠햏');
    expect(p.mallReserved).to.equal('x=1&y=2');
    expect(p.card.name).to.equal(SANDBOX_TEST_CARDS['4111111111111111']!.cardName);
    expect(p.card.installmentMonths).to.equal(3);
    expect(p.card.interestFree).to.equal(true);
    expect(p.card.maskedNumber).to.equal('411111******1111');
    expect(p.raw.MsgSource).to.equal('SANDBOX'); // an unlisted field is kept, not fatal
    const entry = sandbox.ledger.get(r.tid)!;
    expect(entry).to.include({
      source: 'keyin',
      method: 'CARD',
      status: 'approved',
      amount: 1004,
      moid: req.moid,
      buyerName: '김똠햏',
    });
  });

  for (const [charset, ediType] of [
    ['utf-8', 'KV'],
    ['euc-kr', 'KV'],
    ['utf-8', 'JSON'],
  ] as const) {
    it(`reads a ${ediType} answer in ${charset} (the Content-Type is ignored)`, async () => {
      const r = approved(await nicepay.keyin(input({ charset, ediType }, { number: '5555555555554444' })));
      expect(r.payment.card.name).to.equal('현대');
      expect(r.payment.card.acquirerName).to.equal('현대카드');
      expect(r.payment.raw.MID).to.equal(MID);
    });
  }

  it('accepts a 40-byte goods name (20 Hangul) and refuses 42 bytes before sending', async () => {
    approved(await nicepay.keyin(input({ goodsName: '가'.repeat(20) })));
    const before = sandbox.ledger.entries().length;
    const err = await rejection(nicepay.keyin(input({ goodsName: '가'.repeat(21) })));
    expect(err).to.include({ code: 'NICEPAY_FIELD_INVALID', status: 400, field: 'goodsName' });
    expect(err.message).to.include('42 bytes');
    expect(sandbox.ledger.entries().length).to.equal(before);
  });

  for (const [number, card] of Object.entries(SANDBOX_TEST_CARDS).filter(([, c]) => c.outcome !== 'approved')) {
    it(`passes the issuer's message through for a ${card.outcome} card`, async () => {
      const req = input({}, { number });
      const r = await nicepay.keyin(req);
      if (r.status !== 'declined') throw new Error('expected a decline');
      const decline = KEYIN_DECLINES[card.outcome as Exclude<typeof card.outcome, 'approved'>];
      expect(r.code).to.equal(decline.code).and.not.equal('3001');
      expect(r.message).to.equal(decline.message);
      expect(r).to.include({ tid: r.tid, moid: req.moid, duplicate: false });
      expect(r.tid).to.match(TID_RE);
      expect(approvalsOf(req.moid)).to.have.length(0);
    });
  }

  it('answers expired for a card whose expiry has passed on the gateway clock', async () => {
    // The client's clock is still in the expiry month (23:55 KST on its last day); the
    // gateway's is 8 minutes later, in the next month: within the timestamp tolerance, so
    // the request is taken, and the card has expired there.
    const year = 2000 + Number(FUTURE.slice(0, 2));
    const client = make({ clock: () => fromKst(year, 7, 31, 23, 55) });
    sandbox.clock.set(fromKst(year, 8, 1, 0, 3));
    try {
      const r = await client.keyin(input());
      expect(r).to.include({
        status: 'declined',
        code: KEYIN_DECLINES.expired.code,
        message: '유효기간이 만료된 카드입니다',
      });
    } finally {
      await client.close();
    }
  });

  it('gives 50 concurrent key-ins 50 distinct TIDs', async () => {
    const results = await Promise.all(Array.from({ length: 50 }, () => nicepay.keyin(input())));
    const tids = new Set(results.map((r) => approved(r).tid));
    expect(tids.size).to.equal(50);
    for (const tid of tids) expect(sandbox.ledger.get(tid)?.status).to.equal('approved');
  });

  it('keeps TIDs unique under a frozen clock, redrawing a suffix already issued in that second', async () => {
    const frozen = new Date('2026-11-21T01:30:00Z');
    const fixed = make({ clock: () => frozen });
    sandbox.clock.set(frozen); // the gateway refuses an EdiDate or TID time off its own clock
    try {
      const results = await Promise.all(Array.from({ length: 50 }, () => fixed.keyin(input())));
      const tids = results.map((r) => approved(r).tid);
      expect(new Set(tids).size).to.equal(50);
      for (const tid of tids) expect(tid.slice(14, 26)).to.equal(kstTimestamp12(frozen));
    } finally {
      await fixed.close();
    }
    // A random source that repeats itself: the second TID must not reuse the first suffix.
    const draws = [0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4];
    const rnd = (): number => draws.shift()!;
    const at = new Date('2020-01-01T00:00:00Z');
    const a = issueKeyinTid('nictest77m', at, rnd);
    const b = issueKeyinTid('nictest77m', at, rnd);
    expect(a).to.equal('nictest77m0101200101090000' + '0000');
    expect(b).to.equal('nictest77m0101200101090000' + '1234');
  });

  it('builds EncData exactly as the published vector, and the sandbox decrypts it (either hex case)', async () => {
    const v = vectors.vectors.find((x) => x.name === 'card key-in EncData')!;
    const plaintext = keyinEncPlaintext({
      number: '4111111111111111',
      expiry: '2912',
      buyerAuthNum: '800101',
      password2: '12',
    });
    expect(plaintext).to.equal(v.input.plaintext);
    expect(encryptEncData(plaintext, KEY)).to.equal(v.expect);
    // Without a birth date or password the keys are still sent, empty (the spec's plaintext).
    expect(keyinEncPlaintext({ number: '4111111111111111', expiry: '2912' })).to.equal(
      'CardNo=4111111111111111&CardExpire=2912&BuyerAuthNum=&CardPwd=',
    );
    const sv = vectors.vectors.find((x) => x.name === 'card key-in SignData')!;
    expect(keyinSignData(MID, sv.input.Amt!, sv.input.EdiDate!, sv.input.Moid!, KEY)).to.equal(sv.expect);

    // Post the vector's EncData (upper-case, as the Java samples emit it) straight to the sandbox.
    const now = new Date(Date.UTC(2029, 5, 1));
    sandbox.clock.set(now);
    const ediDate = kstTimestamp14(now);
    const tid = `${MID}0101${kstTimestamp12(now)}Vec1`;
    const m = moid('vector');
    const body = encodeForm(
      {
        TID: tid,
        MID,
        EdiDate: ediDate,
        Moid: m,
        Amt: '1004',
        GoodsName: '벡터',
        EncData: v.expect.toUpperCase(),
        CardInterest: '0',
        CardQuota: '00',
        SignData: keyinSignData(MID, '1004', ediDate, m, KEY),
        CharSet: 'utf-8',
      },
      'euc-kr',
    );
    const res = await fetch(`${url}/webapi/card_keyin.jsp`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body,
    });
    const json = JSON.parse(await res.text()) as Record<string, string>;
    expect(json).to.include({ ResultCode: '3001', TID: tid, Amt: '000000001004', CardNo: '411111******1111' });
  });

  it('charges a resubmitted Moid once and returns the first result as a duplicate to the same card', async () => {
    const req = input();
    const first = approved(await nicepay.keyin(req));
    // The same card, typed with separators this time: the same card for the digest.
    const spaced = req.card.number.replace(/(\d{4})(?=\d)/g, '$1 ');
    const second = approved(await nicepay.keyin({ ...req, card: { ...req.card, number: spaced } }));
    expect(second.duplicate).to.equal(true);
    expect(second.tid).to.equal(first.tid);
    expect(second.payment.card.name).to.equal(first.payment.card.name);
    expect(approvalsOf(req.moid)).to.have.length(1);
  });

  it("never shows a paid Moid's result to another card: 409 NICEPAY_DUPLICATE_MISMATCH, nothing sent", async () => {
    const req = input();
    const first = approved(await nicepay.keyin(req));
    for (const card of [
      { ...req.card, number: '5555555555554444' },
      { ...req.card, expiry: String(Number(req.card.expiry) + 100) },
    ]) {
      const err = await rejection(nicepay.keyin({ ...req, card }));
      expect(err).to.include({ code: 'NICEPAY_DUPLICATE_MISMATCH', status: 409 });
      expect(JSON.stringify(err)).to.not.include(first.tid);
      expect(JSON.stringify(err)).to.not.include(first.payment.card.maskedNumber);
    }
    expect(approvalsOf(req.moid)).to.have.length(1);
  });

  it('makes concurrent duplicates wait for the first call, across instances sharing a store', async () => {
    const store = memoryStore();
    const a = make({ store });
    const b = make({ store });
    try {
      const req = input();
      sandbox.faults.inject({ target: 'keyin', kind: 'delay', delayMs: 300 });
      const results = await Promise.all([a.keyin(req), b.keyin(req), a.keyin(req), b.keyin(req), a.keyin(req)]);
      const fresh = results.filter((r) => !r.duplicate);
      expect(fresh).to.have.length(1);
      expect(new Set(results.map((r) => approved(r).tid)).size).to.equal(1);
      expect(approvalsOf(req.moid)).to.have.length(1);
      expect(sandbox.ledger.entries().filter((e) => e.moid === req.moid)).to.have.length(1);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('a card-company timeout (1620) is an unknown outcome, never a decline: reversed, and the gateway never had it', async () => {
    const req = input();
    sandbox.faults.inject({
      target: 'keyin',
      kind: 'decline',
      resultCode: '1620',
      resultMsg: '카드사 응답 지연입니다',
    });
    const err = await rejection(nicepay.keyin(req));
    expect(err).to.include({ code: 'NICEPAY_OUTCOME_UNKNOWN' });
    expect(err).to.have.property('settlement').that.is.oneOf(['never-charged', 'reversed']);
    expect(approvalsOf(req.moid)).to.have.length(0);
  });

  it('keeps no decline: the Moid declined may be paid with another card, and nobody can lock its buyer out with a failing card', async () => {
    const req = input({}, { number: '4000000000009995' });
    const first = await nicepay.keyin(req);
    expect(first).to.include({ status: 'declined', duplicate: false });
    // The same failing card again is sent again (a new TID), and declined again.
    const again = await nicepay.keyin(req);
    expect(again).to.include({ status: 'declined', duplicate: false, message: '한도가 초과되었습니다' });
    expect(again.tid).to.not.equal(first.tid);
    // Another card pays the same Moid, once; its repeat is answered from the record.
    const paid = approved(await nicepay.keyin({ ...req, card: { ...req.card, number: '4111111111111111' } }));
    const repeat = await nicepay.keyin({ ...req, card: { ...req.card, number: '4111111111111111' } });
    expect(repeat).to.include({ status: 'approved', duplicate: true, tid: paid.tid });
    expect(approvalsOf(req.moid)).to.have.length(1);
  });

  it('a Moid the gateway charged before, which this store does not hold, rejects 409 NICEPAY_MOID_CHARGED_BEFORE naming it: nothing charged, never a decline', async () => {
    const req = input();
    const paid = approved(await nicepay.keyin(req));
    // Another instance with a store of its own (or this one after its records expired).
    const forgetful = make({ store: memoryStore() });
    try {
      const err = await rejection(forgetful.keyin(req));
      expect(err).to.include({ code: 'NICEPAY_MOID_CHARGED_BEFORE', status: 409, moid: req.moid, resultCode: '1681' });
      expect(approvalsOf(req.moid).map((e) => e.tid)).to.deep.equal([paid.tid]);
    } finally {
      await forgetful.close();
    }
  });

  it('refuses a resubmitted Moid with another amount (409) instead of reporting the old charge', async () => {
    const req = input();
    approved(await nicepay.keyin(req));
    const err = await rejection(nicepay.keyin({ ...req, amount: 2000 }));
    expect(err).to.include({ code: 'NICEPAY_DUPLICATE_MISMATCH', status: 409, field: 'moid' });
    expect(approvalsOf(req.moid)).to.have.length(1);
  });

  describe('validation before sending', () => {
    const bad: Array<{ name: string; field: string; make: () => KeyinInput; secret?: string }> = [
      {
        name: 'card number too short',
        field: 'card.number',
        make: () => input({}, { number: '411111111111' }),
        secret: '411111111111',
      },
      {
        name: 'card number too long',
        field: 'card.number',
        make: () => input({}, { number: '41111111111111111111' }),
        secret: '41111111111111111111',
      },
      {
        name: 'card number with letters',
        field: 'card.number',
        make: () => input({}, { number: '4111x11111111111' }),
        secret: '4111x11111111111',
      },
      {
        name: 'card number failing Luhn',
        field: 'card.number',
        make: () => input({}, { number: '4111111111111112' }),
        secret: '4111111111111112',
      },
      { name: 'expiry month 13', field: 'card.expiry', make: () => input({}, { expiry: '3913' }), secret: '3913' },
      { name: 'expiry in the past', field: 'card.expiry', make: () => input({}, { expiry: '2001' }), secret: '2001' },
      { name: 'expiry as MM/YY', field: 'card.expiry', make: () => input({}, { expiry: '07/39' }), secret: '07/39' },
      {
        name: 'buyerAuthNum of 5 digits',
        field: 'card.buyerAuthNum',
        make: () => input({}, { buyerAuthNum: '86071' }),
        secret: '86071',
      },
      {
        name: 'buyerAuthNum of 7 digits',
        field: 'card.buyerAuthNum',
        make: () => input({}, { buyerAuthNum: '8607199' }),
        secret: '8607199',
      },
      { name: 'password2 of 1 digit', field: 'card.password2', make: () => input({}, { password2: '7' }) },
      {
        name: 'password2 of 3 digits',
        field: 'card.password2',
        make: () => input({}, { password2: '739' }),
        secret: '739',
      },
      { name: 'quota 1', field: 'quota', make: () => input({ quota: 1 }) },
      { name: 'quota 100', field: 'quota', make: () => input({ quota: 100 }), secret: '100' },
      { name: 'quota not digits', field: 'quota', make: () => input({ quota: 'ab' }) },
      { name: 'amount 0', field: 'amount', make: () => input({ amount: 0 }) },
      { name: 'amount negative', field: 'amount', make: () => input({ amount: -5 }) },
      { name: 'amount fractional', field: 'amount', make: () => input({ amount: 10.5 }), secret: '10.5' },
      {
        name: 'amount of 13 digits',
        field: 'amount',
        make: () => input({ amount: 1234567890123 }),
        secret: '1234567890123',
      },
      { name: 'empty moid', field: 'moid', make: () => input({ moid: '' }) },
      { name: 'moid of 65 bytes', field: 'moid', make: () => input({ moid: 'm'.repeat(65) }), secret: 'm'.repeat(65) },
      {
        name: 'moid of 33 Hangul (66 bytes)',
        field: 'moid',
        make: () => input({ moid: '주'.repeat(33) }),
        secret: '주'.repeat(33),
      },
      {
        name: 'goods name with an emoji',
        field: 'goodsName',
        make: () => input({ goodsName: '상품😀' }),
        secret: '상품😀',
      },
      {
        name: 'buyer name of 32 bytes',
        field: 'buyer.name',
        make: () => input({ buyer: { name: '김'.repeat(16) } }),
        secret: '김'.repeat(16),
      },
    ];
    for (const c of bad) {
      it(`refuses ${c.name} (field ${c.field}, value not echoed, nothing sent)`, async () => {
        const before = sandbox.ledger.entries().length;
        const err = await rejection(nicepay.keyin(c.make()));
        expect(err).to.include({ code: 'NICEPAY_FIELD_INVALID', status: 400, field: c.field, expose: true });
        expect(err.message).to.include(c.field);
        if (c.secret) {
          expect(err.message).to.not.include(c.secret);
          expect(JSON.stringify(err)).to.not.include(c.secret);
          // The stack's text, not its frames: a frame's line number may be any digits (quota 100).
          expect(String(err.stack).split('\n    at ')[0]).to.not.include(c.secret);
        }
        expect(sandbox.ledger.entries().length).to.equal(before);
      });
    }
  });

  describe('a contract that requires BuyerAuthNum and the card password', () => {
    let strict: Nicepay;
    before(() => {
      strict = createNicepay({ mid: STRICT_MID, merchantKey: STRICT_KEY, baseUrl: url });
    });
    after(() => strict.close());

    it('is declined without BuyerAuthNum, and without CardPwd', async () => {
      const noAuth = await strict.keyin(input({}, { password2: '12' }));
      expect(noAuth).to.include({
        status: 'declined',
        code: KEYIN_DECLINES.authNumRequired.code,
        message: KEYIN_DECLINES.authNumRequired.message,
      });
      const noPwd = await strict.keyin(input({}, { buyerAuthNum: '800101' }));
      expect(noPwd).to.include({ status: 'declined', code: KEYIN_DECLINES.passwordRequired.code });
    });

    it('is approved with a birth date or a business number and the password digits', async () => {
      approved(await strict.keyin(input({}, { buyerAuthNum: '800101', password2: '12' })));
      approved(await strict.keyin(input({}, { buyerAuthNum: '1234567890', password2: '12' })));
    });
  });

  describe('an outcome the client cannot know', () => {
    let quick: Nicepay;
    // Deadlines a loaded machine meets; the delay cases jump past them (pastClientDeadline) and
    // the sandbox's stalled answer (LATE_MS) never comes within the jump.
    // No automatic settler: a test settles when it says so.
    before(() => {
      quick = make({ settle: false, timeouts: { connectMs: 5_000, responseMs: 5_000 } });
    });
    after(() => quick.close());

    it('a timeout after the gateway committed is NICEPAY_OUTCOME_UNKNOWN with tid and moid, net-cancelled at once; a retry charges nothing', async () => {
      const req = input();
      sandbox.faults.inject({ target: 'keyin', kind: 'delay', delayMs: LATE_MS });
      const err = await pastClientDeadline(sandbox, () => rejection(quick.keyin(req)));
      expect(err).to.include({
        name: 'NicepayGatewayError',
        code: 'NICEPAY_OUTCOME_UNKNOWN',
        moid: req.moid,
        netCancel: 'succeeded',
        settlement: 'reversed',
        outcomeUnknown: false,
      });
      const tid = (err as NicepayError & { tid: string }).tid;
      expect(tid).to.match(TID_RE);
      // It did happen, and the net cancel (the cancel form with NetCancel=1) reversed it.
      expect(sandbox.ledger.get(tid)?.status).to.equal('net-cancelled');
      const again = await rejection(quick.keyin(req));
      expect(again).to.include({ code: 'NICEPAY_OUTCOME_UNKNOWN', tid, settlement: 'reversed' });
      expect(sandbox.ledger.entries().filter((e) => e.moid === req.moid)).to.have.length(1);
      expect(approvalsOf(req.moid)).to.have.length(0);
    });

    const unusable = [
      { kind: 'status-500', code: 'NICEPAY_OUTCOME_UNKNOWN' },
      { kind: 'html', code: 'NICEPAY_OUTCOME_UNKNOWN' },
      { kind: 'bad-signature', code: 'NICEPAY_OUTCOME_UNKNOWN' },
      { kind: 'drop', code: 'NICEPAY_OUTCOME_UNKNOWN' },
      { kind: 'truncate', code: 'NICEPAY_OUTCOME_UNKNOWN' },
      { kind: 'alter-amount', code: 'NICEPAY_ANSWER_AMOUNT_MISMATCH' },
    ] as const;
    for (const { kind, code } of unusable) {
      it(`${kind}: is ${code}, never a decline, and the charge is net-cancelled`, async () => {
        const req = input();
        sandbox.faults.inject({ target: 'keyin', kind });
        const err = await rejection(quick.keyin(req));
        expect(err).to.include({
          code,
          moid: req.moid,
          netCancel: 'succeeded',
          settlement: 'reversed',
          outcomeUnknown: false,
        });
        const tid = (err as NicepayError & { tid?: string }).tid;
        expect(tid).to.match(TID_RE);
        expect(sandbox.ledger.get(tid!)?.status).to.equal('net-cancelled');
      });
    }

    it('a delay that does not commit is unknown, and the net cancel finds no such transaction: never charged at once, nothing left to settle', async () => {
      const req = input();
      sandbox.faults.inject({ target: 'keyin', kind: 'delay', delayMs: LATE_MS, commit: false });
      const err = await pastClientDeadline(sandbox, () => rejection(quick.keyin(req)));
      expect(err).to.include({
        code: 'NICEPAY_OUTCOME_UNKNOWN',
        moid: req.moid,
        settlement: 'never-charged',
        outcomeUnknown: false,
      });
      const tid = (err as NicepayError & { tid: string }).tid;
      expect(sandbox.ledger.entries().filter((e) => e.moid === req.moid)).to.have.length(0);
      const report = await quick.settle();
      expect(report.settled.filter((s) => s.tid === tid)).to.deep.equal([]);
      expect(report.unsettled.filter((u) => u.tid === tid)).to.deep.equal([]);
      // The Moid's record answers repeats with what settlement learned; nothing is sent.
      const again = await rejection(quick.keyin(req));
      expect(again).to.include({
        code: 'NICEPAY_OUTCOME_UNKNOWN',
        tid,
        settlement: 'never-charged',
        outcomeUnknown: false,
      });
      expect(sandbox.ledger.entries().filter((e) => e.moid === req.moid)).to.have.length(0);
    });
  });

  it("bad per-call hook options are the call's bad input (400 NICEPAY_FIELD_INVALID naming the option), never a configuration error, and nothing is sent", async () => {
    const req = input();
    for (const [field, bad] of [
      ['onApproved', { onApproved: 'record it' }],
      ['onApproved', { onApproved: {} }],
      ['hookTimeoutMs', { hookTimeoutMs: 0 }],
      ['hookTimeoutMs', { hookTimeoutMs: Number.NaN }],
    ] as const) {
      const err = await rejection(nicepay.keyin({ ...req, ...bad } as never));
      expect(err, field).to.include({ code: 'NICEPAY_FIELD_INVALID', status: 400, field, expose: true });
    }
    expect(sandbox.ledger.entries().filter((e) => e.moid === req.moid)).to.have.length(0);
    approved(await nicepay.keyin({ ...req, hookTimeoutMs: 5_000 }));
  });

  it('a gateway that cannot be reached is NICEPAY_GATEWAY_UNREACHABLE and the Moid stays retryable', async () => {
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const down = make({ baseUrl: `http://127.0.0.1:${port}` });
    try {
      const req = input();
      const err = await rejection(down.keyin(req));
      expect(err).to.include({ code: 'NICEPAY_GATEWAY_UNREACHABLE', status: 503, moid: req.moid });
      const again = await rejection(down.keyin(req));
      expect(again.code).to.equal('NICEPAY_GATEWAY_UNREACHABLE'); // not cached as unknown
    } finally {
      await down.close();
    }
  });

  it('refuses new key-ins with NICEPAY_SHUTTING_DOWN once close() was called, after finishing the one in flight', async () => {
    const closing = make();
    sandbox.faults.inject({ target: 'keyin', kind: 'delay', delayMs: 200 });
    const inFlight = closing.keyin(input());
    const closed = closing.close();
    const err = await rejection(closing.keyin(input()));
    expect(err.code).to.equal('NICEPAY_SHUTTING_DOWN');
    approved(await inFlight);
    await closed;
  });

  it('never writes card data to the log, errors or results', async () => {
    const log = captureLogger();
    const np = make({ logger: log.logger, timeouts: { connectMs: 5_000, responseMs: 5_000 } });
    const card = { number: '5555555555554444', expiry: FUTURE, buyerAuthNum: '860719', password2: '97' };
    const texts: string[] = [];
    try {
      texts.push(JSON.stringify(await np.keyin(input({}, card))));
      texts.push(JSON.stringify(await np.keyin(input({}, { ...card, number: '4000000000000002' }))));
      sandbox.faults.inject({ target: 'keyin', kind: 'delay', delayMs: LATE_MS });
      for (const make of [
        () => np.keyin(input({}, card)),
        () => np.keyin(input({}, { ...card, number: '5555555555554445' })),
        () => np.keyin(input({}, { ...card, password2: '978' })),
      ]) {
        const err = await pastClientDeadline(sandbox, () => rejection(make()));
        log.record(err);
      }
    } finally {
      await np.close();
    }
    const all = [...texts, log.text()].join('\n');
    expect(all).to.include('NICEPAY_OUTCOME_UNKNOWN');
    for (const secret of ['5555555555554444', '4000000000000002', '5555555555554445', KEY])
      expect(all).to.not.include(secret);
    expect(all).to.not.match(/CardNo=\d|CardExpire=|CardPwd=|BuyerAuthNum=|EncData=|"password2":|"number":|"expiry":/);
    // Strip long digit runs (TIDs, AuthDate, AuthCode) so short card values can be searched as tokens.
    const short = all.replace(/\d{7,}/g, '#').replace(/"durationMs":\d+/g, '');
    for (const secret of [card.expiry, card.buyerAuthNum, '978'])
      expect(short).to.not.match(new RegExp(`(?<!\\d)${secret}(?!\\d)`));
  });
});
