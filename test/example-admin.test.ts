import { expect } from 'chai';
import request from 'supertest';
import { createShop, type Shop } from '../example-app/app.js';
import type { Logger } from '../src/index.js';
import { createSandbox, TEST_MERCHANTS, type Sandbox } from '../src/sandbox/index.js';
import { fromKst } from '../src/wire/kst.js';

const { mid: MID, merchantKey: KEY } = TEST_MERCHANTS[0]!;
const DAY = '20261123'; // a Monday
const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {} };
const textOf = (page: string, id: string): string | undefined => new RegExp(`id="${id}"[^>]*>([\\s\\S]*?)</`).exec(page)?.[1];

describe('example-app: back office (/admin)', () => {
  let sandbox: Sandbox;
  let shop: Shop;
  const at = (h: number, mi = 0, d = 23) => sandbox.clock.set(fromKst(2026, 11, d, h, mi));

  before(async () => {
    sandbox = createSandbox();
    sandbox.clock.freeze();
    await sandbox.listen(0);
    at(9, 0);
    shop = createShop({
      mid: MID, merchantKey: KEY, baseUrl: sandbox.url, dbFile: ':memory:', logger: quiet,
      nicepay: { clock: () => sandbox.clock.now() },
    });
  });
  after(async () => {
    await shop.close();
    await sandbox.close();
  });

  it('shows the payout balance in won', async () => {
    sandbox.dataHost.deposit(MID, 50_000);
    const res = await request(shop.app).get('/admin');
    expect(res.status, res.text).to.equal(200);
    expect(textOf(res.text, 'balance-amount')).to.equal('50,000원');
    expect(textOf(res.text, 'balance-last')).to.include('현금 입금');
  });

  it('registers a sub-merchant, keeps it in SQLite and lists it; the blackout is a friendly message', async () => {
    sandbox.dataHost.addAccountHolder('004', '111-222', '홍길동');
    const res = await request(shop.app).post('/admin/sub-merchants').type('form')
      .send({ subId: 'seller-a', subNm: '햏상점', subCoNo: '1234567890', bankCd: '004', accntNo: '111-222', accntNm: '홍길동', memo: '테스트' });
    expect(res.status, res.text).to.equal(303);
    const list = await request(shop.app).get(res.headers.location!);
    expect(textOf(list.text, 'admin-ok')).to.include('seller-a');
    expect(list.text).to.include('data-sub-id="seller-a"').and.include('햏상점');
    expect(shop.db.sqlite.prepare('SELECT sub_nm FROM admin_sub_merchants WHERE sub_id = ?').get('seller-a')).to.deep.equal({ sub_nm: '햏상점' });
    expect(sandbox.dataHost.subMerchants(MID).map((s) => s.subId)).to.include('seller-a');

    at(23, 30, 22);
    const late = await request(shop.app).post('/admin/sub-merchants').type('form')
      .send({ subId: 'seller-b', subNm: 'B', subCoNo: '1234567891', bankCd: '004', accntNo: '333-444', accntNm: '김철수' });
    expect(late.status).to.equal(422);
    expect(textOf(late.text, 'admin-error')).to.include('밤 11시부터 새벽 1시');
    expect(late.text).to.not.include('data-sub-id="seller-b"');
    at(9, 0);
  });

  it('requests a payout; results before 16:00 are a friendly message, after it a Korean status', async () => {
    const res = await request(shop.app).post('/admin/payouts').type('form').send({ subId: 'seller-a', amount: '30000', settlmntDt: DAY });
    expect(res.status, res.text).to.equal(200);
    expect(textOf(res.text, 'payout-seq')).to.match(/^\d+$/);
    expect(textOf(res.text, 'results-error')).to.include('오후 4시');

    at(10, 45);
    const late = await request(shop.app).post('/admin/payouts').type('form').send({ subId: 'seller-a', amount: '1000', settlmntDt: DAY });
    expect(late.status).to.equal(422);
    expect(textOf(late.text, 'admin-error')).to.include('10시 30분');

    at(16, 5);
    const results = await request(shop.app).get(`/admin/payouts?date=${DAY}`);
    expect(results.status, results.text).to.equal(200);
    const row = /<tr data-seq="\d+" data-status="(\w+)">([\s\S]*?)<\/tr>/.exec(results.text)!;
    expect(row[1]).to.equal('succeeded');
    expect(row[2]).to.include('지급 완료').and.include('30,000원');
  });

  it('lists cash receipts for a date and exports them as UTF-8 CSV with a BOM', async () => {
    at(11, 0);
    const checkout = await request(shop.app).post('/checkout').type('form').send({ productId: 'tomyum-kit' });
    const moid = /id="order-moid">([^<]+)</.exec(checkout.text)![1]!;
    const auth = await sandbox.authenticate({ moid, amount: 12_000, method: 'BANK', goodsName: '똠얌꿍 밀키트', cashReceipt: { type: 'income-deduction', identity: '01012345678' } });
    const ret = await request(shop.app).post('/pay/return').set('content-type', auth.contentType).send(auth.body.toString('latin1'));
    expect(ret.status, ret.text).to.equal(200);

    const page = await request(shop.app).get(`/admin/recon?date=${DAY}`);
    expect(page.status, page.text).to.equal(200);
    expect(textOf(page.text, 'recon-count')).to.equal('1');
    expect(page.text).to.include('똠얌꿍 밀키트').and.include('12,000원').and.include('소득공제').and.include(moid);

    const csv = await request(shop.app).get(`/admin/recon?date=${DAY}&format=csv`).buffer(true).parse((r, cb) => {
      const chunks: Buffer[] = [];
      r.on('data', (c: Buffer) => chunks.push(c));
      r.on('end', () => cb(null, Buffer.concat(chunks)));
    });
    expect(csv.status).to.equal(200);
    expect(csv.headers['content-type']).to.match(/^text\/csv; charset=utf-8/);
    expect(csv.headers['content-disposition']).to.include('attachment');
    const bytes = csv.body as Buffer;
    expect([...bytes.subarray(0, 3)]).to.deep.equal([0xef, 0xbb, 0xbf]);
    const lines = bytes.subarray(3).toString('utf8').trimEnd().split('\r\n');
    expect(lines[0]).to.match(/^승인일자,승인시각,거래번호/);
    expect(lines).to.have.length(2);
    expect(lines[1]).to.include('똠얌꿍 밀키트').and.include(',12000,').and.include(moid);

    const none = await request(shop.app).get('/admin/recon?date=20261120');
    expect(none.text).to.include('id="no-receipts"');
  });
});
