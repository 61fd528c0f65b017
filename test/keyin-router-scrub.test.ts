/**
 * No key-in body shape leaves card data on `req`: whatever the shop's error handler or a later
 * handler logs, it finds no card number, expiry, birth date or password digits. Through the
 * public router against the sandbox, for every shape a client can post.
 */
import { expect } from 'chai';
import express, { type ErrorRequestHandler } from 'express';
import request from 'supertest';
import { createNicepay, type Nicepay } from '../src/index.js';
import { createSandbox, TEST_MERCHANTS, type Sandbox } from '../src/sandbox/index.js';
import { kstParts } from '../src/wire/kst.js';

const MID = 'nictest04m';
const KEY = TEST_MERCHANTS.find((m) => m.mid === MID)!.merchantKey;
const FUTURE = (() => {
  const k = kstParts(new Date());
  return `${String((k.year + 3) % 100).padStart(2, '0')}07`;
})();
const PAN = '5555555555554444';
const BIRTH = '860719';
const PW = '97';
/** A number split over four inputs: no part looks like a card number on its own. */
const SPLIT = ['4917', '6102', '3456', '7890'];
/** What the router may leave on req.body of a plain key-in form. */
const ALLOWED = ['moid', 'amount', 'goodsName', 'quota', 'buyerName', 'buyerEmail', 'buyerTel', '_csrf'];

describe('keyinRouter: no card data is left on req, whatever the body shape', () => {
  let sandbox: Sandbox;
  let nicepay: Nicepay;
  const orders = new Map<string, number>();
  const seen: string[] = [];
  const app = express();

  before(async () => {
    sandbox = createSandbox();
    const { url } = await sandbox.listen(0);
    nicepay = createNicepay({
      mid: MID,
      merchantKey: KEY,
      baseUrl: url,
      timeouts: { connectMs: 5_000, responseMs: 5_000 },
    });
    app.use('/keyin', nicepay.keyinRouter({ expectedAmount: (m) => orders.get(m), requireHttps: false }));
    app.post('/keyin', (req, res) => {
      seen.push(JSON.stringify({ body: req.body, keyin: req.keyin }));
      res.json({ status: req.keyin!.status });
    });
    // What a careless shop does: log the whole body of a failed request.
    const onError: ErrorRequestHandler = (err, req, res, _next) => {
      seen.push(JSON.stringify({ body: req.body }));
      res.status((err as { status?: number }).status ?? 500).json({ code: (err as { code?: string }).code });
    };
    app.use(onError);
  });
  after(async () => {
    await nicepay.close();
    await sandbox.close();
  });

  const flat = { cardNumber: PAN, cardExpiry: FUTURE, buyerAuthNum: BIRTH, cardPassword2: PW };
  const shapes: Array<[string, 'json' | 'form', object | string]> = [
    ['a JSON array of the flat fields', 'json', [{ moid: 'm-arr', goodsName: 'x', ...flat }]],
    ['a JSON array of bare values', 'json', [PAN, FUTURE, BIRTH, PW]],
    [
      "the library's own card: {...} shape",
      'json',
      { moid: 'm-card', goodsName: 'x', card: { number: PAN, expiry: FUTURE, buyerAuthNum: BIRTH, password2: PW } },
    ],
    [
      'nested under another key',
      'json',
      {
        moid: 'm-nest',
        goodsName: 'x',
        payment: { cardNumber: PAN, cardExpiry: FUTURE, buyerAuthNum: BIRTH, cardPassword2: PW },
      },
    ],
    [
      'PHP-style cardNumber[] fields',
      'form',
      `moid=m-php&goodsName=x&cardNumber[]=${PAN}&cardExpiry[]=${FUTURE}&buyerAuthNum[]=${BIRTH}&cardPassword2[]=${PW}`,
    ],
    [
      'PHP-style card[number] fields',
      'form',
      `moid=m-php2&goodsName=x&card[number]=${PAN}&card[expiry]=${FUTURE}&card[buyerAuthNum]=${BIRTH}&card[password2]=${PW}`,
    ],
    [
      'other spellings',
      'json',
      { moid: 'm-spell', goodsName: 'x', card_number: PAN, CARD_EXPIRY: FUTURE, birth_date: BIRTH, card_pw: PW },
    ],
    [
      'a card number under an innocent name',
      'json',
      {
        moid: 'm-memo',
        goodsName: 'x',
        memo: `${PAN.slice(0, 4)} ${PAN.slice(4, 8)} ${PAN.slice(8, 12)} ${PAN.slice(12)}`,
      },
    ],
    [
      'flat fields of an unknown order',
      'form',
      `moid=m-unknown&goodsName=x&cardNumber=${PAN}&cardExpiry=${FUTURE}&buyerAuthNum=${BIRTH}&cardPassword2=${PW}`,
    ],
    [
      'a number split over cardNo1..cardNo4 with validThru, birthYmd and cardPass',
      'form',
      `moid=m-split&goodsName=x&cardNo1=${SPLIT[0]}&cardNo2=${SPLIT[1]}&cardNo3=${SPLIT[2]}&cardNo4=${SPLIT[3]}&validThru=${FUTURE}&birthYmd=${BIRTH}&cardPass=${PW}`,
    ],
    [
      'a confirmation field, expiryDate and split expiry',
      'json',
      {
        moid: 'm-confirm',
        goodsName: 'x',
        cardNumberConfirm: PAN,
        expiryDate: FUTURE,
        expMonth: FUTURE.slice(2),
        expYear: FUTURE.slice(0, 2),
        birthday: BIRTH,
        pwd2: PW,
      },
    ],
    [
      'Korean and snake_case names, and a split number in an array',
      'form',
      `moid=m-ko&goodsName=x&${encodeURIComponent('카드번호')}=${PAN}&card_no=${SPLIT[0]}&card_no=${SPLIT[1]}&cc_exp=${FUTURE}&jumin=${BIRTH}&pass=${PW}`,
    ],
  ];

  for (const [name, type, body] of shapes) {
    it(`${name}: the error handler finds none of it on req.body`, async () => {
      const before = seen.length;
      const res = await request(app).post('/keyin').type(type).send(body);
      expect(res.status).to.be.within(400, 499);
      expect(seen.length).to.equal(before + 1);
      const logged = seen.at(-1)!;
      for (const secret of [
        PAN,
        `${PAN.slice(0, 4)} ${PAN.slice(4, 8)}`,
        FUTURE,
        BIRTH,
        `"${PW}"`,
        ...SPLIT.map((p) => `"${p}"`),
      ])
        expect(logged, name).to.not.include(secret);
      const { body: left } = JSON.parse(logged) as { body: Record<string, unknown> };
      expect(ALLOWED, name).to.include.members(Object.keys(left));
    });
  }

  it('a valid key-in still pays, and req.body keeps only the non-card fields of the allow-list', async () => {
    const moid = `m-ok-${Date.now()}`; // a long digit run in the Moid is not card data
    orders.set(moid, 1_000);
    const extra = {
      note: 'gift',
      cardNo1: SPLIT[0],
      cardNumberConfirm: PAN,
      validThru: FUTURE,
      birthYmd: BIRTH,
      cardPass: PW,
      _csrf: 'tok-1',
    };
    const res = await request(app)
      .post('/keyin')
      .type('json')
      .send({ moid, goodsName: 'x', buyerName: '홍길동', ...flat, ...extra });
    expect(res.body.status).to.equal('approved');
    const logged = JSON.parse(seen.at(-1)!) as { body: Record<string, unknown> };
    expect(logged.body).to.deep.equal({ moid, goodsName: 'x', buyerName: '홍길동', _csrf: 'tok-1' });
  });

  it("keeps the shop's keepFields on req.body, never one holding a card number, and refuses a card-data name among them", async () => {
    const shop = express();
    const bodies: Array<Record<string, unknown>> = [];
    shop.use(
      '/keyin',
      nicepay.keyinRouter({
        expectedAmount: (m) => orders.get(m),
        requireHttps: false,
        keepFields: ['note', 'giftTo'],
      }),
    );
    shop.post('/keyin', (req, res) => {
      bodies.push({ ...req.body });
      res.json({ status: req.keyin!.status });
    });
    const moid = `m-keep-${Date.now()}`;
    orders.set(moid, 1_000);
    const res = await request(shop)
      .post('/keyin')
      .type('form')
      .send({ moid, goodsName: 'x', note: 'gift', giftTo: PAN, other: 'x', ...flat });
    expect(res.body.status).to.equal('approved');
    expect(bodies).to.deep.equal([{ moid, goodsName: 'x', note: 'gift' }]);
    for (const name of ['cardNo1', 'validThru', 'birthYmd', 'cardPass', 'expiryDate']) {
      expect(() => nicepay.keyinRouter({ expectedAmount: () => 1, keepFields: [name] }), name).to.throw(/keepFields/);
    }
    expect(() => nicepay.keyinRouter({ expectedAmount: () => 1, keepFields: ['__proto__'] })).to.throw(/keepFields/);
  });
});
