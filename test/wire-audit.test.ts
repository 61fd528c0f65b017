import { expect } from 'chai';
import { createCipheriv, createDecipheriv, createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import iconv from 'iconv-lite';
import { createNicepay, NicepayConfigError, NicepayError, type Nicepay } from '../src/index.js';
import { NicepayDataApiError, NicepayRequestError } from '../src/errors/index.js';
import {
  APPROVAL_CODES,
  CANCEL_CODES,
  createSandbox,
  KEYIN_DECLINES,
  NET_CANCEL_CODES,
  STATUS_CODES,
  TEST_MERCHANTS,
  type Sandbox,
} from '../src/sandbox/index.js';
import { SANDBOX_DATA_CODES } from '../src/sandbox/data-host/envelope.js';
import { fromKst } from '../src/wire/kst.js';
import { DATA_KEY, DATA_MID, DATA_USR_ID, rejection, startDataHost } from './helpers/data-host.js';
import { startRawGateway, type CapturedRequest, type RawGateway } from './helpers/raw-gateway.js';

/*
 * The wire audit: the bytes each side puts on the wire are compared with literals
 * written from gateway-interface.md's TEXT (field lists, formulas), computed here with
 * node:crypto and iconv-lite only, never with the project's src/wire helpers. Client requests
 * are captured on a raw loopback server; the sandbox is fed hand-built requests.
 */

const MID = 'nictest04m';
const KEY = TEST_MERCHANTS.find((m) => m.mid === MID)!.merchantKey;
/** 2026-11-23 09:30:00 KST (a Monday), as an instant. */
const AT = new Date('2026-11-23T00:30:00Z');
const sha256 = (s: string): string => createHash('sha256').update(s, 'utf8').digest('hex');
const aesKey = Buffer.from(KEY.slice(0, 16), 'latin1');
const encrypt = (plain: string): string => {
  const c = createCipheriv('aes-128-ecb', aesKey, null);
  return Buffer.concat([c.update(plain, 'utf8'), c.final()]).toString('hex');
};
const decrypt = (hex: string): string => {
  const d = createDecipheriv('aes-128-ecb', aesKey, null);
  return Buffer.concat([d.update(Buffer.from(hex, 'hex')), d.final()]).toString('utf8');
};
/** KST wall time of an instant as YYYYMMDDHHMISS, by plain arithmetic. */
const kst14 = (d: Date): string => new Date(d.getTime() + 9 * 3600_000).toISOString().replace(/\D/g, '').slice(0, 14);

/** A form body as ordered [key, value] pairs: percent-escapes to bytes, bytes as EUC-KR. */
function formPairs(body: Buffer): Array<[string, string]> {
  const text = body.toString('latin1');
  const bytesOf = (s: string): Buffer => {
    const out: number[] = [];
    for (let i = 0; i < s.length; i++) {
      if (s[i] === '%') {
        out.push(parseInt(s.slice(i + 1, i + 3), 16));
        i += 2;
      } else if (s[i] === '+') out.push(0x20);
      else out.push(s.charCodeAt(i));
    }
    return Buffer.from(out);
  };
  return text.split('&').map((seg) => {
    const eq = seg.indexOf('=');
    return [iconv.decode(bytesOf(seg.slice(0, eq)), 'cp949'), iconv.decode(bytesOf(seg.slice(eq + 1)), 'cp949')];
  });
}

const FUTURE = '2907';

describe('wire audit: key-in request bytes against the spec text', () => {
  let raw: RawGateway;
  let nicepay: Nicepay;
  let answerKv = '';
  before(async () => {
    // The issuer's refusal of this very request: it echoes the request's TID and Moid (a refusal
    // naming another Moid is not this order's, and would be an unknown outcome).
    raw = await startRawGateway((req: CapturedRequest) => {
      const pairs = formPairs(req.body);
      const tid = pairs.find(([k]) => k === 'TID')?.[1] ?? '';
      const moid = pairs.find(([k]) => k === 'Moid')?.[1] ?? '';
      if (answerKv) return { body: answerKv.replace('@TID', tid) };
      return {
        body: JSON.stringify({ ResultCode: '3054', ResultMsg: 'limit', TID: tid, Moid: moid, Amt: '000000001004' }),
      };
    });
    nicepay = createNicepay({ mid: MID, merchantKey: KEY, baseUrl: raw.url, clock: () => AT });
  });
  beforeEach(() => {
    raw.requests.length = 0;
    answerKv = '';
  });
  after(async () => {
    await nicepay.close();
    await raw.close();
  });

  it('sends the B table in order, SignData = sha256(MID+Amt+EdiDate+Moid+key), EncData with all four keys', async () => {
    await nicepay.keyin({
      moid: 'wire-1',
      amount: 1004,
      goodsName: 'Wire test',
      card: { number: '4111 1111 1111 1111', expiry: FUTURE },
    });
    expect(raw.requests).to.have.length(1);
    const req = raw.requests[0]!;
    expect(req.path).to.equal('/webapi/card_keyin.jsp');
    expect(req.contentType).to.match(/^application\/x-www-form-urlencoded/);
    const pairs = formPairs(req.body);
    const tid = pairs[0]![1];
    expect(tid).to.match(/^nictest04m0101261123093000[0-9A-Za-z]{4}$/);
    const encData = pairs.find(([k]) => k === 'EncData')![1];
    expect(pairs).to.deep.equal([
      ['TID', tid],
      ['MID', 'nictest04m'],
      ['EdiDate', '20261123093000'],
      ['Moid', 'wire-1'],
      ['Amt', '1004'],
      ['GoodsName', 'Wire test'],
      ['EncData', encData],
      ['CardInterest', '0'],
      ['CardQuota', '00'],
      ['SignData', sha256(`nictest04m100420261123093000wire-1${KEY}`)],
      ['CharSet', 'euc-kr'],
      ['EdiType', 'JSON'],
    ]);
    // Authentication: "CardNo=<value>&CardExpire=<YYMM>&BuyerAuthNum=<value>&CardPwd=<value>".
    expect(decrypt(encData)).to.equal('CardNo=4111111111111111&CardExpire=2907&BuyerAuthNum=&CardPwd=');
    expect(encData).to.equal(encrypt('CardNo=4111111111111111&CardExpire=2907&BuyerAuthNum=&CardPwd='));
  });

  it('keeps the four keys when only some are given', async () => {
    await nicepay.keyin({
      moid: 'wire-2',
      amount: 1004,
      goodsName: 'g',
      card: { number: '4111111111111111', expiry: FUTURE, buyerAuthNum: '800101' },
    });
    await nicepay.keyin({
      moid: 'wire-3',
      amount: 1004,
      goodsName: 'g',
      card: { number: '4111111111111111', expiry: FUTURE, password2: '12' },
    });
    const plains = raw.requests.map((r) => decrypt(formPairs(r.body).find(([k]) => k === 'EncData')![1]));
    expect(plains).to.deep.equal([
      'CardNo=4111111111111111&CardExpire=2907&BuyerAuthNum=800101&CardPwd=',
      'CardNo=4111111111111111&CardExpire=2907&BuyerAuthNum=&CardPwd=12',
    ]);
  });

  it('reads the clock once: the TID time part and EdiDate name the same second', async () => {
    let t = AT.getTime();
    const ticking = createNicepay({
      mid: MID,
      merchantKey: KEY,
      baseUrl: raw.url,
      clock: () => {
        t += 1000;
        return new Date(t);
      },
    });
    try {
      await ticking.keyin({
        moid: 'wire-tick',
        amount: 1004,
        goodsName: 'g',
        card: { number: '4111111111111111', expiry: FUTURE },
      });
    } finally {
      await ticking.close();
    }
    const pairs = Object.fromEntries(formPairs(raw.requests[0]!.body));
    expect(pairs['TID']!.slice(14, 26)).to.equal(pairs['EdiDate']!.slice(2));
  });

  it('CardNo holds at most 16 digits: a 19-digit card is refused before sending; 15 digits are sent', async () => {
    const e = await rejection(
      nicepay.keyin({
        moid: 'wire-19',
        amount: 1004,
        goodsName: 'g',
        card: { number: '6011000000000000004', expiry: FUTURE },
      }),
    );
    expect(e).to.be.instanceOf(NicepayRequestError);
    expect(e).to.include({ code: 'NICEPAY_FIELD_INVALID', field: 'card.number' });
    expect(e.message).to.include('16').and.not.include('6011000000000000004');
    await nicepay.keyin({
      moid: 'wire-15',
      amount: 1004,
      goodsName: 'g',
      card: { number: '378282246310005', expiry: FUTURE },
    });
    expect(raw.requests).to.have.length(1);
    expect(decrypt(Object.fromEntries(formPairs(raw.requests[0]!.body))['EncData']!)).to.equal(
      'CardNo=378282246310005&CardExpire=2907&BuyerAuthNum=&CardPwd=',
    );
  });

  it("KV: a MallReserved with '&' or '=' is refused up front; a plain one comes back exactly as sent", async () => {
    for (const mallReserved of ['a=1&b=2', 'x&y', 'k=v']) {
      const e = await rejection(
        nicepay.keyin({
          moid: `wire-kv-${mallReserved}`,
          amount: 1004,
          goodsName: 'g',
          ediType: 'KV',
          mallReserved,
          card: { number: '4111111111111111', expiry: FUTURE },
        }),
      );
      expect(e).to.include({ code: 'NICEPAY_FIELD_INVALID', field: 'mallReserved' });
    }
    // The same for every text the answer echoes: GoodsName and the buyer's fields.
    for (const extra of [
      { goodsName: '1+1=2' },
      { goodsName: 'A&B' },
      { buyer: { name: '홍&길동' } },
      { buyer: { email: 'a=b@x.kr' } },
    ]) {
      const e = await rejection(
        nicepay.keyin({
          moid: 'wire-kv-text',
          amount: 1004,
          goodsName: 'g',
          ediType: 'KV',
          card: { number: '4111111111111111', expiry: FUTURE },
          ...extra,
        }),
      );
      expect(e).to.include({
        code: 'NICEPAY_FIELD_INVALID',
        field: 'goodsName' in extra ? 'goodsName' : `buyer.${Object.keys(extra.buyer!)[0]}`,
      });
      expect(e.message).to.include("must not contain '&' or '='");
    }
    expect(raw.requests).to.have.length(0);
    // JSON answers escape: the same value is fine with ediType JSON.
    await nicepay.keyin({
      moid: 'wire-kv-json',
      amount: 1004,
      goodsName: 'g',
      mallReserved: 'a=1&b=2',
      card: { number: '4111111111111111', expiry: FUTURE },
    });
    expect(Object.fromEntries(formPairs(raw.requests[0]!.body))['MallReserved']).to.equal('a=1&b=2');
    answerKv = 'ResultCode=3054&ResultMsg=limit&TID=@TID&Moid=wire-kv-ok&Amt=000000001004&MallReserved=order:7|x y';
    const r = await nicepay.keyin({
      moid: 'wire-kv-ok',
      amount: 1004,
      goodsName: 'g',
      ediType: 'KV',
      mallReserved: 'order:7|x y',
      card: { number: '4111111111111111', expiry: FUTURE },
    });
    expect(r.status).to.equal('declined');
    if (r.status === 'declined') expect(r.raw.MallReserved).to.equal('order:7|x y');
  });
});

describe('wire audit: MID and orgSvcCd enforced at run time', () => {
  it('createNicepay refuses a MID not shaped as 10 characters ending in a lower-case m, naming mid', () => {
    for (const mid of ['nicepay00M', 'nicepay000', 'nicepay0m', 'nicepay000m', 'nice-ay00m']) {
      expect(() => createNicepay({ mid, merchantKey: KEY, baseUrl: 'https://webapi.nicepay.co.kr' }), mid).to.throw(
        NicepayConfigError,
        /\bmid\b/,
      );
    }
    expect(() =>
      createNicepay({ mid: 'nicepay00m', merchantKey: KEY, baseUrl: 'https://webapi.nicepay.co.kr' }),
    ).to.not.throw();
  });

  it('recon refuses an orgSvcCd outside 01, 02, 03, 04, 26 (and an idCl outside 2-4) before sending', async () => {
    const raw = await startRawGateway(() => ({ body: '{}' }));
    const nicepay = createNicepay({ mid: MID, merchantKey: KEY, baseUrl: raw.url, dataUrl: raw.url, clock: () => AT });
    try {
      for (const orgSvcCd of ['05', '00', '1', '27']) {
        const e = await rejection(
          nicepay.recon.cashReceipts({
            usrId: 'u',
            dt: '20261120',
            orgSvcCd: orgSvcCd as '01',
            idCl: '2',
            searchID: MID,
          }),
        );
        expect(e, orgSvcCd).to.include({ code: 'NICEPAY_FIELD_INVALID', field: 'orgSvcCd' });
      }
      const e = await rejection(
        nicepay.recon.cashReceipts({ usrId: 'u', dt: '20261120', orgSvcCd: '01', idCl: '9' as '2', searchID: MID }),
      );
      expect(e).to.include({ field: 'idCl' });
      expect(raw.requests).to.have.length(0);
    } finally {
      await nicepay.close();
      await raw.close();
    }
  });
});

describe('wire audit: data host envelope bytes and strict answers', () => {
  let raw: RawGateway;
  let nicepay: Nicepay;
  let answer: (sid: string) => Buffer | string;
  const envelope = (header: Record<string, unknown>, body: Record<string, unknown>): string =>
    JSON.stringify({ header, body });
  const good = (sid: string, body: Record<string, unknown> = { mid: MID, remainAmt: 0 }): string =>
    envelope({ sid, trDtm: '20261123093001', gubun: 'R', resCode: '0000', resMsg: 'ok' }, body);
  before(async () => {
    raw = await startRawGateway((req) => ({
      body: answer(JSON.parse(req.body.toString('utf8')).header.sid),
      contentType: 'application/json;charset=utf-8',
    }));
    nicepay = createNicepay({
      mid: MID,
      merchantKey: KEY,
      baseUrl: raw.url,
      dataUrl: raw.url,
      clock: () => AT,
      payout: { scheduleChecks: false },
    });
  });
  beforeEach(() => {
    raw.requests.length = 0;
    answer = (sid) => good(sid);
  });
  after(async () => {
    await nicepay.close();
    await raw.close();
  });

  it('sends exactly {header:{sid,trDtm KST,gubun S,resCode "",resMsg ""},body:{mid,encKey}} with encKey = sha256(sid+mid+trDtm+key)', async () => {
    await nicepay.payout.balance();
    const req = raw.requests[0]!;
    expect(req.path).to.equal('/om/api');
    expect(req.contentType).to.match(/^application\/json/);
    expect(req.body.toString('utf8')).to.equal(
      `{"header":{"sid":"0101001","trDtm":"20261123093000","gubun":"S","resCode":"","resMsg":""},"body":{"mid":"nictest04m","encKey":"${sha256(`0101001nictest04m20261123093000${KEY}`)}"}}`,
    );
    expect(kst14(AT)).to.equal('20261123093000');
  });

  it('an answer with a byte that is not UTF-8 is refused, not read with U+FFFD', async () => {
    answer = (sid) =>
      Buffer.concat([
        Buffer.from(`{"header":{"sid":"${sid}","trDtm":"20261123093001","gubun":"R","resCode":"0000","resMsg":"`),
        Buffer.from([0xc0, 0xaf]),
        Buffer.from(`"},"body":{"mid":"${MID}","remainAmt":0}}`),
      ]);
    const e = await rejection(nicepay.payout.balance());
    expect(e).to.include({ code: 'NICEPAY_GATEWAY_ERROR' });
    expect(e.message).to.include('UTF-8');
    // A call that changes state cannot know what the gateway did.
    const e2 = await rejection(nicepay.payout.request({ subId: 's1', amount: 1, settlmntDt: '20261124' }));
    expect(e2).to.include({ code: 'NICEPAY_OUTCOME_UNKNOWN' });
  });

  it('gubun other than R, or another sid than the one sent, is refused with what came back', async () => {
    answer = (sid) =>
      envelope({ sid, trDtm: '20261123093001', gubun: 'S', resCode: '0000', resMsg: '' }, { mid: MID, remainAmt: 0 });
    const e1 = await rejection(nicepay.payout.balance());
    expect(e1).to.include({ code: 'NICEPAY_GATEWAY_ERROR' });
    expect(e1.message).to.include('gubun is "S"');
    answer = () => good('0101002');
    const e2 = await rejection(nicepay.payout.balance());
    expect(e2.message).to.include('sid is "0101002"').and.include('"0101001"');
    answer = () => envelope({ trDtm: '20261123093001', gubun: 'R', resCode: '0000', resMsg: '' }, {});
    expect((await rejection(nicepay.payout.balance())).message).to.include('sid is missing');
  });

  it('strips every encKey the answer echoes, however spelled or nested', async () => {
    const key = sha256(`0102001${MID}20261123093000${KEY}`);
    answer = (sid) =>
      good(sid, {
        mid: MID,
        subId: 's1',
        settlmntDt: '20261124',
        settlmntAmt: 1,
        seq: '9',
        reqInfo: { header: { sid }, body: { mid: MID, encKey: key, EncKey: key } },
        extra: [{ encKey: key, keep: 1 }],
      });
    const r = await nicepay.payout.request({ subId: 's1', amount: 1, settlmntDt: '20261124' });
    const text = JSON.stringify(r);
    expect(text).to.not.include(key);
    expect(text.toLowerCase()).to.not.include('enckey');
    expect(r.raw).to.deep.include({
      reqInfo: { header: { sid: '0102001' }, body: { mid: MID } },
      extra: [{ keep: 1 }],
    });
  });
});

describe('wire audit: the sandbox holds requests to the spec text', () => {
  let sandbox: Sandbox;
  let url: string;
  before(async () => {
    sandbox = createSandbox({ clock: () => AT });
    sandbox.clock.freeze();
    ({ url } = await sandbox.listen(0));
  });
  beforeEach(() => sandbox.clock.set(AT));
  after(() => sandbox.close());

  /** A key-in form written from the B table by hand; ASCII values, so escaping is trivial. */
  function keyinForm(
    over: Record<string, string> = {},
    enc = `CardNo=4111111111111111&CardExpire=${FUTURE}&BuyerAuthNum=&CardPwd=`,
  ): string {
    const ediDate = kst14(AT);
    const moid = over['Moid'] ?? `sb-${Math.random().toString(36).slice(2)}`;
    const f: Record<string, string> = {
      TID: `${MID}0101${ediDate.slice(2)}${Math.random().toString(36).slice(2, 6).padEnd(4, 'x')}`,
      MID,
      EdiDate: ediDate,
      Moid: moid,
      Amt: '1004',
      GoodsName: 'goods',
      EncData: encrypt(enc),
      CardInterest: '0',
      CardQuota: '00',
      SignData: '',
      ...over,
    };
    f['SignData'] = over['SignData'] ?? sha256(f['MID']! + f['Amt']! + f['EdiDate']! + f['Moid']! + KEY);
    return Object.entries(f)
      .map(([k, v]) => `${k}=${encodeURIComponent(v)}`)
      .join('&');
  }
  async function postKeyin(body: string): Promise<string> {
    const res = await fetch(`${url}/webapi/card_keyin.jsp`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body,
    });
    return iconv.decode(Buffer.from(await res.arrayBuffer()), 'cp949');
  }
  const keyinCode = async (body: string): Promise<{ ResultCode: string; ResultMsg: string }> =>
    JSON.parse(await postKeyin(body));

  it('approves a form written from the spec (the baseline of the cases below)', async () => {
    expect((await keyinCode(keyinForm())).ResultCode).to.equal('3001');
  });

  it('EncData must carry all four keys, in order (else 3094); CardNo at most 16 digits (else 3093 naming it)', async () => {
    expect((await keyinCode(keyinForm({}, `CardNo=4111111111111111&CardExpire=${FUTURE}`))).ResultCode).to.equal(
      KEYIN_DECLINES.badEncData.code,
    );
    expect(
      (await keyinCode(keyinForm({}, `CardExpire=${FUTURE}&CardNo=4111111111111111&BuyerAuthNum=&CardPwd=`)))
        .ResultCode,
    ).to.equal(KEYIN_DECLINES.badEncData.code);
    // Four keys in order, but a CardNo of 19 digits: read, and refused naming the field.
    const long = await keyinCode(
      keyinForm({}, `CardNo=6011000000000000004&CardExpire=${FUTURE}&BuyerAuthNum=&CardPwd=`),
    );
    expect(long).to.include({ ResultCode: KEYIN_DECLINES.badField.code });
    expect(long.ResultMsg).to.include('(CardNo)');
    // 15 digits fit the field: EncData is read, and the card is simply not a sandbox test card.
    expect(
      (await keyinCode(keyinForm({}, `CardNo=378282246310005&CardExpire=${FUTURE}&BuyerAuthNum=&CardPwd=`))).ResultCode,
    ).to.equal(KEYIN_DECLINES.unknownCard.code);
  });

  it('refuses a MID not ending in a lower-case m, upper-case SignData, and EdiDate or TID time in UTC', async () => {
    const badField = KEYIN_DECLINES.badField.code;
    const mid = await keyinCode(keyinForm({ MID: 'nictest04M' }));
    expect(mid).to.include({ ResultCode: badField });
    expect(mid.ResultMsg).to.include('(MID)');
    const upper = await keyinCode(
      keyinForm({ SignData: sha256(`${MID}1004${kst14(AT)}up-1${KEY}`).toUpperCase(), Moid: 'up-1' }),
    );
    expect(upper).to.include({ ResultCode: badField });
    // The official sample's bug: EdiDate in the server's UTC wall time, nine hours off KST.
    const utc = AT.toISOString().replace(/\D/g, '').slice(0, 14);
    const edi = await keyinCode(keyinForm({ EdiDate: utc }));
    expect(edi).to.include({ ResultCode: badField });
    expect(edi.ResultMsg).to.include('(EdiDate)');
    const tid = await keyinCode(keyinForm({ TID: `${MID}0101${utc.slice(2)}abcd` }));
    expect(tid.ResultCode).to.equal(KEYIN_DECLINES.badTid.code);
    // A signed value is taken as sent: added white space makes it another value.
    expect((await keyinCode(keyinForm({ EdiDate: `${kst14(AT)} ` }))).ResultCode).to.equal(badField);
  });

  it("refuses a KV key-in whose MallReserved holds '&' or '=' (its answer could not carry it)", async () => {
    const text = await postKeyin(keyinForm({ EdiType: 'KV', MallReserved: 'a=1&b=2' }));
    expect(text.startsWith(`ResultCode=${KEYIN_DECLINES.badField.code}&`)).to.equal(true);
    expect(text).to.include('(MallReserved)');
  });

  /** A data host envelope written from the spec (C and D) by hand. */
  async function postData(
    path: '/om/api' | '/recon/api',
    header: Record<string, string>,
    body: Record<string, string>,
  ): Promise<{ header: Record<string, string>; body: Record<string, unknown> }> {
    const res = await fetch(`${url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8' },
      body: JSON.stringify({ header, body }),
    });
    return JSON.parse(await res.text());
  }
  const head = (sid: string, trDtm = kst14(AT)): Record<string, string> => ({
    sid,
    trDtm,
    gubun: 'S',
    resCode: '',
    resMsg: '',
  });
  const balance = (trDtm = kst14(AT), mid = MID, encKey = sha256(`0101001${mid}${trDtm}${KEY}`)) =>
    postData('/om/api', head('0101001', trDtm), { mid, encKey });

  it('data host: refuses a UTC trDtm (1113), a mis-shaped mid, upper-case encKey and a response gubun, echoing the sid', async () => {
    expect((await balance()).header).to.include({ sid: '0101001', gubun: 'R', resCode: '0000' });
    const utc = AT.toISOString().replace(/\D/g, '').slice(0, 14);
    expect((await balance(utc)).header).to.include({
      sid: '0101001',
      gubun: 'R',
      resCode: SANDBOX_DATA_CODES.trDtmSkew,
    });
    expect((await balance(kst14(AT), 'nictest04M')).header.resCode).to.equal('0270');
    expect(
      (await balance(kst14(AT), MID, sha256(`0101001${MID}${kst14(AT)}${KEY}`).toUpperCase())).header.resCode,
    ).to.equal('0270');
    const r = await postData(
      '/om/api',
      { ...head('0101001'), gubun: 'R' },
      { mid: MID, encKey: sha256(`0101001${MID}${kst14(AT)}${KEY}`) },
    );
    expect(r.header.resCode).to.equal('0101');
  });

  it('data host: recon refuses an orgSvcCd outside the spec list (0270)', async () => {
    const usrId = `${MID}admin`;
    const send = (orgSvcCd: string) =>
      postData('/recon/api', head('0301002'), {
        usrId,
        encKey: sha256(`0301002${usrId}${kst14(AT)}${KEY}`),
        dt: '20261123',
        orgSvcCd,
        idCl: '2',
        searchID: MID,
      });
    expect((await send('02')).header.resCode).to.equal('0000');
    expect((await send('05')).header.resCode).to.equal('0270');
  });

  it('a client whose clock is nine hours off (UTC written as KST) is refused on both interfaces', async () => {
    const offClock = () => new Date(sandbox.clock.now().getTime() - 9 * 3600_000);
    const client = createNicepay({ mid: MID, merchantKey: KEY, baseUrl: url, dataUrl: url, clock: offClock });
    try {
      const r = await client.keyin({
        moid: 'utc-bug',
        amount: 1004,
        goodsName: 'g',
        card: { number: '4111111111111111', expiry: FUTURE },
      });
      expect(r).to.include({ status: 'declined', code: KEYIN_DECLINES.badField.code });
      const e = await rejection(client.payout.balance());
      expect(e).to.be.instanceOf(NicepayDataApiError);
      expect(e).to.include({ resCode: SANDBOX_DATA_CODES.trDtmSkew });
      expect(e).to.be.instanceOf(NicepayError);
    } finally {
      await client.close();
    }
  });
});

describe('no encKey in any raw, against the sandbox that echoes the request', () => {
  it('balance, register, request, cancel, results and cash receipts return reqInfo without the encKey that was sent', async () => {
    const rig = await startDataHost(fromKst(2026, 11, 23, 9, 0));
    try {
      const { nicepay, sandbox } = rig;
      const now = kst14(sandbox.clock.now());
      const keys = ['0101001', '0105001', '0102001', '0103001', '0101002'].map((sid) =>
        sha256(sid + DATA_MID + now + DATA_KEY),
      );
      keys.push(sha256(`0301002${DATA_USR_ID}${now}${DATA_KEY}`));
      sandbox.dataHost.deposit(DATA_MID, 100);
      const results: Array<{ raw: Record<string, unknown> }> = [];
      results.push(await nicepay.payout.balance());
      results.push(
        await nicepay.payout.registerSubMerchant({
          subId: 's1',
          subNm: 'n',
          subCoNo: '1',
          bankCd: '004',
          accntNo: '1',
          accntNm: 'a',
        }),
      );
      const first = await nicepay.payout.request({ subId: 's1', amount: 1, dupCheck: false });
      results.push(first, await nicepay.payout.request({ subId: 's1', amount: 2, dupCheck: false }));
      results.push(await nicepay.payout.cancel({ subId: 's1', settlmntDt: '20261123', seq: first.seq }));
      results.push(
        await nicepay.recon.cashReceipts({
          usrId: DATA_USR_ID,
          dt: '20261123',
          orgSvcCd: '04',
          idCl: '2',
          searchID: DATA_MID,
        }),
      );
      rig.at(2026, 11, 23, 16, 0);
      const later = kst14(sandbox.clock.now());
      keys.push(sha256(`0101002${DATA_MID}${later}${DATA_KEY}`));
      results.push(await nicepay.payout.results({ settlmntDt: '20261123' }));
      for (const r of results) {
        const echo = r.raw['reqInfo'] as { header: { sid: string }; body: Record<string, unknown> };
        expect(echo.body, echo.header.sid).to.not.have.property('encKey');
        expect(Object.keys(echo.body).length, echo.header.sid).to.be.greaterThan(0);
        const text = JSON.stringify(r);
        for (const k of keys) expect(text).to.not.include(k);
      }
    } finally {
      await rig.close();
    }
  });
});

describe('wire audit: the sandbox documents the codes it invents', () => {
  it('docs/sandbox.md lists every data host and key-in code of the sandbox', () => {
    const doc = readFileSync(new URL('../docs/sandbox.md', import.meta.url), 'utf8');
    const section = doc.slice(doc.indexOf('## Sandbox: key-in and data host'));
    expect(section.length).to.be.greaterThan(100);
    for (const code of [...Object.values(SANDBOX_DATA_CODES), ...Object.values(KEYIN_DECLINES).map((d) => d.code)]) {
      expect(section, code).to.include(`\`${code}\``);
    }
  });

  /** The codes in the first column of the table under `heading` (a cell may name several: `2056` / `1227`). */
  function tableCodes(doc: string, heading: string): string[] {
    const at = doc.indexOf(heading);
    expect(at, heading).to.be.greaterThan(-1);
    const after = doc
      .slice(at + heading.length)
      .split('\n')
      .slice(1);
    const next = after.findIndex((l) => l.startsWith('#'));
    const rows = (next === -1 ? after : after.slice(0, next)).filter((l) => l.startsWith('| `'));
    expect(rows.length, heading).to.be.greaterThan(0);
    return rows.flatMap((row) => [...row.split('|')[1]!.matchAll(/`([^`]+)`/g)].map((m) => m[1]!));
  }

  it('docs/sandbox.md lists every code of the approval, net-cancel, cancel and status endpoints once per table, each with its source', () => {
    const doc = readFileSync(new URL('../docs/sandbox.md', import.meta.url), 'utf8');
    const tables: Array<[string, readonly string[]]> = [
      ['## Approval codes', Object.values(APPROVAL_CODES)],
      ['## Net-cancel codes', Object.values(NET_CANCEL_CODES)],
      ['#### Cancel codes', Object.values(CANCEL_CODES)],
      ['#### Status codes', Object.values(STATUS_CODES)],
    ];
    for (const [heading, codes] of tables) {
      const listed = tableCodes(doc, heading);
      expect(new Set(listed).size, `${heading}: a code listed twice`).to.equal(listed.length);
      for (const code of codes) expect(listed, `${heading} lacks ${code}`).to.include(code);
    }
    // A code the documents do not define is marked as the sandbox's own (the W-codes, 9999).
    for (const row of doc.split('\n').filter((l) => /^\| `(W\d{3}|9999)`/.test(l)))
      expect(row).to.include("**sandbox's own**");
  });
});
