/**
 * The sandbox's rule table (docs/sandbox.md, "The rule table"), one row per rule: each row sends
 * the request that breaks the rule and the boundary-valid one over loopback HTTP, and checks the
 * code of each. The rows are data; the endpoints' requests are built here from the documents'
 * formulas (src/wire/signatures.ts), never from the sandbox's code.
 */
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import iconv from 'iconv-lite';
import { createSandbox, TEST_MERCHANTS, type Sandbox } from '../src/sandbox/index.js';
import { encodeForm } from '../src/wire/form-codec.js';
import { fromKst, kstTimestamp12, kstTimestamp14 } from '../src/wire/kst.js';
import {
  approvalSignData,
  cancelSignData,
  keyinSignData,
  payoutEncKey,
  reconEncKey,
  statusSignData,
  windowSignData,
} from '../src/wire/signatures.js';
import { encryptEncData } from '../src/wire/enc-data.js';
import { postBytes, type RawReply } from './helpers/gateway-form.js';
import {
  APPROVAL_RULES,
  CANCEL_RULES,
  KEYIN_NET_CANCEL_RULES,
  KEYIN_RULES,
  NET_CANCEL_RULES,
  STATUS_RULES,
  WINDOW_RULES,
} from '../src/sandbox/request-rules.js';
import { KEYIN_ENC_FIELDS } from '../src/wire/keyin-fields.js';
import {
  BALANCE_FIELDS,
  CASH_RECEIPT_FIELDS,
  PAYOUT_CANCEL_FIELDS,
  PAYOUT_REQUEST_FIELDS,
  PAYOUT_RESULTS_FIELDS,
  SUB_MERCHANT_FIELDS,
} from '../src/wire/data-fields.js';
import type { FieldTable } from '../src/wire/field-sizes.js';

const MID = 'nicepay00m';
const KEY = TEST_MERCHANTS.find((m) => m.mid === MID)!.merchantKey;
const KEYIN_MID = 'nictest04m';
const KEYIN_KEY = TEST_MERCHANTS.find((m) => m.mid === KEYIN_MID)!.merchantKey;
const FORM = 'application/x-www-form-urlencoded; charset=euc-kr';
const START = fromKst(2026, 3, 2, 10, 0);

/** A value of exactly `bytes` EUC-KR bytes (Hangul is 2 bytes each, an odd count ends in 'a'). */
const eucKrBytes = (bytes: number): string => '가'.repeat(Math.floor(bytes / 2)) + (bytes % 2 ? 'a' : '');

/** One row: the endpoint, the field, the value sent, the code (or HTTP status) expected. */
interface Row {
  field: string;
  value: string;
  expect: string;
  /** What the row shows, for the test's name. */
  why: string;
}

/** Reads a gateway answer whatever format it came in (JSON or KV, ASCII codes either way). */
function resultCode(r: RawReply): string {
  const text = iconv.decode(r.bytes, 'cp949');
  if (text.startsWith('{')) return (JSON.parse(text) as Record<string, string>).ResultCode ?? '';
  return /(?:^|&)ResultCode=([^&]*)/.exec(text)?.[1] ?? '';
}

describe('sandbox rule table: the violating and the boundary-valid request of every row', () => {
  let sandbox: Sandbox;
  let seq = 0;
  before(async () => {
    sandbox = createSandbox({ clock: () => START, testAutoCancel: false });
    sandbox.clock.freeze();
    await sandbox.listen(0);
  });
  after(() => sandbox.close());
  const edi = (): string => kstTimestamp14(sandbox.clock.now());

  /** An approval of a fresh window transaction with one field replaced; SignData follows the values sent. */
  async function approval(field: string, value: string): Promise<string> {
    const auth = await sandbox.authenticate({ moid: `rule-${++seq}`, amount: 1004, method: 'CARD' });
    const f: Record<string, string> = {
      TID: auth.fields.TxTid!,
      AuthToken: auth.fields.AuthToken!,
      MID,
      Amt: '1004',
      EdiDate: edi(),
      CharSet: 'utf-8',
      [field]: value,
    };
    if (field !== 'SignData') f.SignData = approvalSignData(f.AuthToken!, MID, f.Amt!, f.EdiDate!, KEY);
    return resultCode(await postBytes(`${sandbox.url}/webapi/pay_process.jsp`, encodeForm(f, 'euc-kr'), FORM));
  }

  /** A net cancel of a fresh approved window transaction with one field replaced. */
  async function netCancel(field: string, value: string): Promise<string> {
    const auth = await sandbox.authenticate({ moid: `rule-${++seq}`, amount: 1004, method: 'CARD' });
    const f: Record<string, string> = {
      TID: auth.fields.TxTid!,
      AuthToken: auth.fields.AuthToken!,
      MID,
      Amt: '1004',
      EdiDate: edi(),
      NetCancel: '1',
      [field]: value,
    };
    if (field !== 'SignData') f.SignData = approvalSignData(f.AuthToken!, MID, f.Amt!, f.EdiDate!, KEY);
    return resultCode(await postBytes(`${sandbox.url}/webapi/cancel_process.jsp`, encodeForm(f, 'euc-kr'), FORM));
  }

  /** Approves a fresh card payment of 1004 won through the approval endpoint; returns its TID. */
  async function approvedTid(): Promise<string> {
    const auth = await sandbox.authenticate({ moid: `rule-${++seq}`, amount: 1004, method: 'CARD' });
    const e = edi();
    const f = {
      TID: auth.fields.TxTid!,
      AuthToken: auth.fields.AuthToken!,
      MID,
      Amt: '1004',
      EdiDate: e,
      SignData: approvalSignData(auth.fields.AuthToken!, MID, '1004', e, KEY),
    };
    expect(
      resultCode(await postBytes(`${sandbox.url}/webapi/pay_process.jsp`, encodeForm(f, 'euc-kr'), FORM)),
    ).to.equal('3001');
    return auth.fields.TxTid!;
  }

  /** A full cancel of a fresh approved payment with one field replaced. */
  async function cancel(
    field: string,
    value: string,
    type = FORM,
    extra: Record<string, string> = {},
  ): Promise<string> {
    const tid = await approvedTid();
    const f: Record<string, string> = {
      TID: tid,
      MID,
      Moid: `cancel-${seq}`,
      CancelAmt: '1004',
      CancelMsg: '고객 요청',
      PartialCancelCode: '0',
      EdiDate: edi(),
      ...extra,
      [field]: value,
    };
    if (field !== 'SignData') f.SignData = cancelSignData(MID, f.CancelAmt!, f.EdiDate!, KEY);
    return resultCode(await postBytes(`${sandbox.url}/webapi/cancel_process.jsp`, encodeForm(f, 'euc-kr'), type));
  }

  /** A status inquiry of an approved payment with one field replaced. */
  async function status(field: string, value: string, type = FORM): Promise<string> {
    const tid = await approvedTid();
    const f: Record<string, string> = { TID: tid, MID, EdiDate: edi(), [field]: value };
    if (field !== 'SignData') f.SignData = statusSignData(f.TID!, MID, f.EdiDate!, KEY);
    return resultCode(await postBytes(`${sandbox.url}/webapi/inquery/trans_status.jsp`, encodeForm(f, 'euc-kr'), type));
  }

  /** Opens the window with one field replaced: '200', or the field the 400 page names. */
  async function window(field: string, value: string): Promise<string> {
    const e = edi();
    const f: Record<string, string> = {
      MID,
      Amt: '1004',
      Moid: `rule-${++seq}`,
      GoodsName: '상품',
      ReturnURL: 'https://shop.example/return',
      EdiDate: e,
      CharSet: 'euc-kr',
      [field]: value,
    };
    if (field !== 'SignData') f.SignData = windowSignData(f.EdiDate!, MID, f.Amt!, KEY);
    const r = await postBytes(`${sandbox.url}/window`, encodeForm(f, 'euc-kr'), 'application/x-www-form-urlencoded');
    if (r.status === 200) return '200';
    return /<strong id="error-field">([^<]*)<\/strong>/.exec(r.bytes.toString('utf8'))?.[1] ?? String(r.status);
  }

  /** A card key-in with one field (or EncData sub-field, `Enc.` prefix) replaced; SignData and EncData follow the values sent. */
  async function keyin(field: string, value: string, type = FORM): Promise<string> {
    const e = edi();
    const card: Record<string, string> = {
      CardNo: '4111111111111111',
      CardExpire: '2812',
      BuyerAuthNum: '',
      CardPwd: '',
    };
    if (field.startsWith('Enc.')) card[field.slice(4)] = value;
    const plain = `CardNo=${card.CardNo}&CardExpire=${card.CardExpire}&BuyerAuthNum=${card.BuyerAuthNum}&CardPwd=${card.CardPwd}`;
    const tid = `${KEYIN_MID}0101${kstTimestamp12(sandbox.clock.now())}${String(++seq).padStart(4, '0')}`;
    const f: Record<string, string> = {
      TID: tid,
      MID: KEYIN_MID,
      EdiDate: e,
      Moid: `keyin-${seq}`,
      Amt: '1004',
      GoodsName: '키인',
      EncData: encryptEncData(plain, KEYIN_KEY),
      CardInterest: '0',
      CardQuota: '00',
      CharSet: 'utf-8',
      ...(field.startsWith('Enc.') ? {} : { [field]: value }),
    };
    if (field !== 'SignData') f.SignData = keyinSignData(KEYIN_MID, f.Amt!, f.EdiDate!, f.Moid!, KEYIN_KEY);
    return resultCode(await postBytes(`${sandbox.url}/webapi/card_keyin.jsp`, encodeForm(f, 'euc-kr'), type));
  }

  /** A data host request (balance, or the cash-receipt list) with one body field replaced: its resCode. */
  function dataHost(sid: '0101001' | '0301002') {
    return async (field: string, value: string, type = 'application/json'): Promise<string> => {
      const trDtm = edi();
      const usrId = `${MID}admin`;
      const body: Record<string, string> =
        sid === '0101001'
          ? { mid: MID, encKey: payoutEncKey(sid, MID, trDtm, KEY) }
          : {
              usrId,
              encKey: reconEncKey(sid, usrId, trDtm, KEY),
              dt: '20260302',
              orgSvcCd: '01',
              idCl: '2',
              searchID: MID,
            };
      body[field] = value;
      const envelope = { header: { sid, trDtm, gubun: 'S', resCode: '', resMsg: '' }, body };
      const r = await postBytes(
        `${sandbox.url}${sid === '0101001' ? '/om/api' : '/recon/api'}`,
        Buffer.from(JSON.stringify(envelope), 'utf8'),
        type,
      );
      return (JSON.parse(r.bytes.toString('utf8')) as { header: { resCode: string } }).header.resCode;
    };
  }

  const tables: Array<{ endpoint: string; send: (field: string, value: string) => Promise<string>; rows: Row[] }> = [
    {
      endpoint: 'approval (pay_process.jsp)',
      send: approval,
      rows: [
        { field: 'Amt', value: '0000000001004', expect: 'W002', why: '13 digits (the table: 12)' },
        { field: 'Amt', value: '000000001004', expect: '3001', why: '12 digits, zero-padded' },
        { field: 'Amt', value: '1,004', expect: 'W002', why: 'not digits' },
        { field: 'TID', value: 'nicepay00m01012603021000001234X', expect: 'W002', why: '31 bytes (30)' },
        { field: 'AuthToken', value: 'x'.repeat(41), expect: 'W002', why: '41 bytes (40)' },
        { field: 'EdiDate', value: '260302100000', expect: 'W002', why: '12 digits, not YYYYMMDDHHMISS' },
        { field: 'SignData', value: 'a'.repeat(257), expect: 'W002', why: '257 bytes (256)' },
        { field: 'MallReserved', value: eucKrBytes(501), expect: 'W002', why: '501 EUC-KR bytes (500)' },
        { field: 'MallReserved', value: eucKrBytes(500), expect: '3001', why: '500 EUC-KR bytes, 250 Hangul' },
        { field: 'CharSet', value: 'utf-8-utf-8-utf8', expect: 'W002', why: 'a 16-character CharSet (10)' },
        { field: 'CharSet', value: 'latin1', expect: 'W002', why: 'neither euc-kr nor utf-8' },
        { field: 'CharSet', value: 'EUC-KR', expect: '3001', why: 'euc-kr in capitals (a charset label)' },
        { field: 'EdiType', value: 'NOT-A-TYPE!', expect: 'W002', why: 'neither JSON nor KV' },
        { field: 'EdiType', value: 'KV', expect: '3001', why: 'KV' },
      ],
    },
    {
      endpoint: 'net cancel (cancel_process.jsp, NetCancel=1)',
      send: netCancel,
      rows: [
        { field: 'MallReserved', value: eucKrBytes(700), expect: 'W002', why: '700 EUC-KR bytes (500)' },
        { field: 'MallReserved', value: eucKrBytes(500), expect: '2001', why: '500 EUC-KR bytes' },
        { field: 'Amt', value: '0000000001004', expect: 'W002', why: '13 digits (12)' },
        { field: 'EdiType', value: 'XML', expect: 'W002', why: 'neither JSON nor KV' },
        { field: 'CharSet', value: 'utf-8', expect: '2001', why: 'utf-8' },
      ],
    },
    {
      endpoint: 'cancel (cancel_process.jsp)',
      send: cancel,
      rows: [
        { field: 'CancelMsg', value: eucKrBytes(101), expect: 'W002', why: '101 EUC-KR bytes (100)' },
        { field: 'CancelMsg', value: eucKrBytes(100), expect: '2001', why: '100 EUC-KR bytes' },
        { field: 'CancelAmt', value: '0000000001004', expect: 'W002', why: '13 digits (12)' },
        { field: 'PartialCancelCode', value: '2', expect: 'W002', why: 'neither 0 nor 1' },
        { field: 'Moid', value: 'x'.repeat(65), expect: 'W002', why: '65 bytes (64)' },
        { field: 'Moid', value: 'x'.repeat(64), expect: '2001', why: "64 bytes, a Moid of the cancel's own" },
        { field: 'MallReserved', value: eucKrBytes(501), expect: 'W002', why: '501 EUC-KR bytes (500)' },
        { field: 'EdiType', value: 'json', expect: 'W002', why: 'JSON written in lower case' },
        { field: 'RefundBankCd', value: '04', expect: 'W002', why: 'not 3 digits' },
      ],
    },
    {
      endpoint: 'status (inquery/trans_status.jsp)',
      send: status,
      rows: [
        { field: 'EdiDate', value: '260302100000', expect: 'W002', why: 'a 12-digit EdiDate (14)' },
        {
          field: 'TID',
          value: `nicepay00m0101260302100000${'x'.repeat(14)}`,
          expect: 'W002',
          why: 'a 40-character TID (30)',
        },
        {
          field: 'TID',
          value: 'nicepay00m01012603021000001234',
          expect: '0000',
          why: 'an unknown TID of 30 characters (Status 9)',
        },
        { field: 'CharSet', value: 'x'.repeat(11), expect: 'W002', why: '11 bytes (10)' },
      ],
    },
    {
      endpoint: 'payment window (POST /window)',
      send: window,
      rows: [
        { field: 'PayMethod', value: 'CARD,BANK', expect: '200', why: 'several methods offered (lifecycle-facts 1)' },
        { field: 'PayMethod', value: 'CARD,PAYPAL', expect: 'PayMethod', why: 'a method that is not one of the four' },
        { field: 'BuyerTel', value: '0'.repeat(40), expect: '200', why: '40 digits (lifecycle-facts 1: 40)' },
        { field: 'BuyerTel', value: '0'.repeat(41), expect: 'BuyerTel', why: '41 digits' },
        { field: 'BuyerTel', value: 'call me', expect: 'BuyerTel', why: 'letters' },
        { field: 'BuyerEmail', value: 'not an address', expect: 'BuyerEmail', why: 'no address' },
        { field: 'BuyerEmail', value: `${'b'.repeat(50)}@shop.kr`, expect: '200', why: '58 bytes, an address' },
        {
          field: 'VbankExpDate',
          value: '2026031',
          expect: 'VbankExpDate',
          why: '7 digits: neither YYYYMMDD nor YYYYMMDDHHmm',
        },
        { field: 'VbankExpDate', value: '20260231', expect: 'VbankExpDate', why: 'no such day' },
        { field: 'VbankExpDate', value: '20260301', expect: 'VbankExpDate', why: 'already past on the clock' },
        { field: 'VbankExpDate', value: '202603051800', expect: '200', why: 'YYYYMMDDHHmm' },
        { field: 'GoodsName', value: eucKrBytes(41), expect: 'GoodsName', why: '41 EUC-KR bytes (40)' },
        { field: 'GoodsName', value: eucKrBytes(40), expect: '200', why: '40 EUC-KR bytes' },
        { field: 'Moid', value: 'x'.repeat(65), expect: 'Moid', why: '65 bytes (64)' },
        { field: 'CharSet', value: 'latin1', expect: 'CharSet', why: 'neither euc-kr nor utf-8' },
      ],
    },
    {
      endpoint: 'card key-in (card_keyin.jsp)',
      send: keyin,
      rows: [
        { field: 'GoodsName', value: eucKrBytes(41), expect: '3093', why: '41 EUC-KR bytes (40)' },
        { field: 'GoodsName', value: eucKrBytes(40), expect: '3001', why: '40 EUC-KR bytes' },
        { field: 'Amt', value: '0000000001004', expect: '3093', why: '13 digits (12)' },
        { field: 'CardQuota', value: '1', expect: '3093', why: 'one digit (two)' },
        { field: 'CardInterest', value: '2', expect: '3093', why: 'neither 0 nor 1' },
        { field: 'BuyerTel', value: '0'.repeat(21), expect: '3093', why: '21 bytes (20)' },
        { field: 'BuyerTel', value: '0'.repeat(20), expect: '3001', why: '20 bytes' },
        { field: 'MallReserved', value: eucKrBytes(501), expect: '3093', why: '501 EUC-KR bytes (500)' },
        { field: 'CharSet', value: 'latin1', expect: '3093', why: 'neither euc-kr nor utf-8' },
        { field: 'EdiType', value: 'XML', expect: '3093', why: 'neither JSON nor KV' },
        { field: 'EncData', value: 'zz', expect: '3093', why: 'not hex' },
        { field: 'CardQuota', value: '01', expect: '3093', why: 'no one-month plan (00, 02, 03, ...)' },
        { field: 'CardQuota', value: '02', expect: '3001', why: 'two months' },
        { field: 'EncData', value: 'ab'.repeat(16), expect: '3094', why: 'hex that does not decrypt' },
        { field: 'Enc.CardNo', value: '411111111111', expect: '3093', why: '12 digits (13-16), decrypted' },
        { field: 'Enc.CardExpire', value: '28123', expect: '3093', why: '5 digits (YYMM)' },
        { field: 'Enc.CardExpire', value: '2813', expect: '3093', why: 'month 13' },
        { field: 'Enc.BuyerAuthNum', value: '12345', expect: '3093', why: '5 digits (6 or 10)' },
        { field: 'Enc.BuyerAuthNum', value: '800101', expect: '3001', why: '6 digits' },
      ],
    },
    {
      endpoint: 'data host balance (om/api 0101001)',
      send: dataHost('0101001'),
      rows: [
        { field: 'mid', value: 'nicepay00mm', expect: '0260', why: '11 bytes (10)' },
        { field: 'encKey', value: '', expect: '0210', why: 'missing' },
        { field: 'encKey', value: 'A'.repeat(64), expect: '0270', why: 'upper-case hex' },
        { field: 'mid', value: MID, expect: '0000', why: 'the merchant, 10 bytes' },
      ],
    },
    {
      endpoint: 'data host cash receipts (recon/api 0301002)',
      send: dataHost('0301002'),
      rows: [
        { field: 'dt', value: '2026030', expect: '0270', why: '7 digits (YYYYMMDD)' },
        { field: 'orgSvcCd', value: '05', expect: '0270', why: 'not one of 01, 02, 03, 04, 26' },
        { field: 'idCl', value: '5', expect: '0270', why: 'not 2, 3 or 4' },
        { field: 'searchID', value: 'x'.repeat(11), expect: '0260', why: '11 bytes (10)' },
        { field: 'orgSvcCd', value: '26', expect: '0000', why: 'CMS account simple payment' },
      ],
    },
  ];

  it('a KV cancel whose MallReserved holds & or = is refused (W002), since its answer echoes MallReserved; the JSON one is done', async () => {
    expect(await cancel('EdiType', 'KV', FORM, { MallReserved: 'a=1&b=2' })).to.equal('W002');
    expect(await cancel('EdiType', 'JSON', FORM, { MallReserved: 'a=1&b=2' })).to.equal('2001');
  });

  it('a correctly signed request declared as another media type than its endpoint takes is refused, and one with its own type is taken', async () => {
    for (const type of ['application/json', 'text/plain']) {
      expect(await cancel('CancelMsg', '고객 요청', type), type).to.equal('W009');
      expect(await status('MID', MID, type), type).to.equal('W009');
      expect(await keyin('GoodsName', '키인', type), type).to.equal('3093');
    }
    for (const type of ['application/x-www-form-urlencoded', 'text/plain']) {
      expect(await dataHost('0101001')('mid', MID, type), type).to.equal('0101');
    }
    expect(await cancel('CancelMsg', '고객 요청')).to.equal('2001');
    expect(await status('MID', MID)).to.equal('0000');
    expect(await keyin('GoodsName', '키인')).to.equal('3001');
    expect(await dataHost('0101001')('mid', MID, 'application/json; charset=utf-8')).to.equal('0000');
  });

  for (const table of tables) {
    describe(table.endpoint, () => {
      for (const row of table.rows) {
        it(`${row.field} ${row.why}: ${row.expect}`, async () => {
          expect(await table.send(row.field, row.value)).to.equal(row.expect);
        });
      }
    });
  }
});

describe('sandbox rule table: docs/sandbox.md lists every rule the sandbox enforces', () => {
  const doc = readFileSync(new URL('../docs/sandbox.md', import.meta.url), 'utf8');
  const section = (heading: string): string => {
    const at = doc.indexOf(heading);
    expect(at, heading).to.be.greaterThan(-1);
    const rest = doc.slice(at + heading.length);
    const next = rest.search(/\n#{2,3} /);
    return next === -1 ? rest : rest.slice(0, next);
  };
  const tables: Array<[string, FieldTable]> = [
    ['### Approval: ', APPROVAL_RULES],
    ['### Net cancel: ', { ...NET_CANCEL_RULES, ...KEYIN_NET_CANCEL_RULES }],
    ['### Card key-in: ', { ...KEYIN_RULES, ...KEYIN_ENC_FIELDS }],
    ['### Cancel and refund: ', CANCEL_RULES],
    ['### Status: ', STATUS_RULES],
    ['### Payment window: ', WINDOW_RULES],
    [
      '### Data host: ',
      {
        ...BALANCE_FIELDS,
        ...SUB_MERCHANT_FIELDS,
        ...PAYOUT_REQUEST_FIELDS,
        ...PAYOUT_CANCEL_FIELDS,
        ...PAYOUT_RESULTS_FIELDS,
        ...CASH_RECEIPT_FIELDS,
      },
    ],
  ];
  for (const [heading, table] of tables) {
    it(`${heading.slice(4, -2)}: every field of the enforced table, with its size`, () => {
      const text = section(heading);
      for (const [field, spec] of Object.entries(table)) {
        if (heading.startsWith('### Net cancel')) continue; // given as "the approval's table" / "the cancel table" plus NetCancel
        expect(text, field).to.include(`\`${field}\``);
        expect(text, `${field} (${spec.max})`).to.match(new RegExp(`\`${field}\`[^\\n]*\\b${spec.max}\\b`));
      }
      if (heading.startsWith('### Net cancel'))
        expect(text).to.include('`NetCancel`').and.include('`PartialCancelCode` `0`');
    });
  }
});
