import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { resolveConfig } from '../src/config.js';
import type { ClientContext } from '../src/context.js';
import { DATA_RES_REASONS, reasonOf } from '../src/data-api/res-codes.js';
import { parseDataResponse } from '../src/data-api/parse-response.js';
import { NicepayDataApiError, NicepayGatewayError, NicepayRequestError } from '../src/errors/index.js';
import { mapBalance, mapResults, payoutStatus } from '../src/payout/map-response.js';
import { createPayoutClient } from '../src/payout/index.js';
import { mapCashReceipts } from '../src/recon/map-response.js';
import { createReconClient } from '../src/recon/index.js';
import { TransportError, type Transport } from '../src/transport.js';
import { fromKst } from '../src/wire/kst.js';
import { DATA_KEY, DATA_MID, rejection } from './helpers/data-host.js';

/*
 * The data host client without a network: a recording transport stands in for ctx.data, so
 * the exact envelope can be compared with vectors.json and every answer shape fed in.
 */

const vectors = JSON.parse(readFileSync(new URL('./fixtures/vectors.json', import.meta.url), 'utf8')) as {
  vectors: Array<{ name: string; input: Record<string, string>; expect: string }>;
};
const vector = (name: string) => vectors.vectors.find((v) => v.name === name)!;

// biome-ignore lint/suspicious/noExplicitAny: the sent envelope is read field by field and compared whole with vectors.json
type SentJson = any;
interface Sent {
  url: string;
  contentType: string;
  json: SentJson;
}

/** A context whose data transport records what is sent and answers with `reply`. */
function fakeContext(reply: (sent: Sent) => string | Error, clock = fromKst(2026, 11, 21, 9, 30, 0)) {
  const sent: Sent[] = [];
  const transport: Transport = {
    async post(url, body, contentType) {
      const s = { url: url.href, contentType, json: JSON.parse(body.toString()) };
      sent.push(s);
      const r = reply(s);
      if (r instanceof Error) throw r;
      // A real answer names the sid it answers: `ok` leaves it for the transport to fill in.
      return {
        statusCode: 200,
        body: Buffer.from(r.replace('"sid":"@sid"', JSON.stringify({ sid: s.json.header.sid }).slice(1, -1)), 'utf8'),
      };
    },
    async close() {},
  };
  const config = resolveConfig({
    mid: DATA_MID,
    merchantKey: DATA_KEY,
    baseUrl: 'https://web.example',
    dataUrl: 'https://data.example/prefix/',
    clock: () => clock,
  });
  const ctx: ClientContext = {
    config,
    web: transport,
    data: transport,
    isClosing: () => false,
    track: (w) => w,
    inFlight: () => 0,
    whenIdle: () => Promise.resolve(),
    hooks: new Map(),
  };
  return { ctx, sent };
}

/** The context with `payout.scheduleChecks: false`, as createNicepay resolves it. */
function withoutScheduleChecks(ctx: ClientContext): ClientContext {
  return { ...ctx, config: { ...ctx.config, payout: { ...ctx.config.payout, scheduleChecks: false } } };
}

const ok = (body: Record<string, unknown>, sid = '@sid') =>
  JSON.stringify({ header: { sid, trDtm: '20261121093001', gubun: 'R', resCode: '0000', resMsg: '정상' }, body });
const fail = (resCode: unknown, resMsg = '오류', sid = '0102001') =>
  JSON.stringify({ header: { sid, trDtm: '20261121093001', gubun: 'R', resCode, resMsg }, body: {} });

describe('data host envelope and encKey', () => {
  it('balance: envelope, trDtm in KST and encKey match the payout vector', async () => {
    const v = vector('payout encKey (balance query)');
    const { ctx, sent } = fakeContext(() => ok({ mid: DATA_MID, remainAmt: 0 }));
    await createPayoutClient(ctx).balance();
    expect(sent).to.have.length(1);
    expect(sent[0]!.url).to.equal('https://data.example/prefix/om/api');
    expect(sent[0]!.contentType).to.match(/^application\/json; charset=utf-8$/i);
    expect(sent[0]!.json).to.deep.equal({
      header: { sid: '0101001', trDtm: v.input['trDtm'], gubun: 'S', resCode: '', resMsg: '' },
      body: { mid: v.input['mid'], encKey: v.expect },
    });
  });

  it('cash receipts: sid 0301002 and encKey match the reconciliation vector; values are strings', async () => {
    const v = vector('reconciliation encKey');
    const { ctx, sent } = fakeContext(() => ok({ reqDt: '20261120', authCl: '2', dataCnt: 0, data: [] }));
    await createReconClient(ctx).cashReceipts({
      usrId: v.input['usrId']!,
      dt: '20261120',
      orgSvcCd: '02',
      idCl: '2',
      searchID: DATA_MID,
      svcCd: '04',
      trCl: '1',
    });
    const { header, body } = sent[0]!.json;
    expect(sent[0]!.url).to.equal('https://data.example/prefix/recon/api');
    expect(header).to.deep.equal({ sid: '0301002', trDtm: v.input['trDtm'], gubun: 'S', resCode: '', resMsg: '' });
    expect(body).to.deep.equal({
      usrId: 'merchantadmin',
      encKey: v.expect,
      dt: '20261120',
      orgSvcCd: '02',
      idCl: '2',
      searchID: DATA_MID,
      svcCd: '04',
      trCl: '1',
    });
  });

  it('payout request body: all strings, dupChkYn Y by default, settlmntDt today in KST', async () => {
    // 2026-11-23 00:10 KST is still the 22nd in UTC: the default date must be the 23rd.
    const { ctx, sent } = fakeContext(
      () => ok({ seq: '1', settlmntAmt: '5000', dupYn: 'Y' }),
      fromKst(2026, 11, 23, 0, 10),
    );
    await createPayoutClient(ctx).request({ subId: 's1', amount: 5000 });
    const body = sent[0]!.json.body;
    expect(body).to.include({ mid: DATA_MID, settlmntDt: '20261123', subId: 's1', settlmntAmt: '5000', dupChkYn: 'Y' });
    expect(Object.values(body).every((x) => typeof x === 'string')).to.equal(true);
    expect(body).to.not.have.property('accntDesc');
  });

  it('register and update carry reqType 0 and 1', async () => {
    const { ctx, sent } = fakeContext((s) => ok({ mid: DATA_MID, subId: 's1', reqType: s.json.body.reqType }));
    const p = createPayoutClient(withoutScheduleChecks(ctx));
    const input = { subId: 's1', subNm: 'n', subCoNo: '1', bankCd: '004', accntNo: '1', accntNm: 'a' };
    expect((await p.registerSubMerchant(input)).reqType).to.equal('0');
    expect((await p.updateSubMerchant({ ...input, memo: 'm' })).reqType).to.equal('1');
    expect(sent.map((s) => [s.json.header.sid, s.json.body.reqType, s.json.body.memo])).to.deep.equal([
      ['0105001', '0', undefined],
      ['0105001', '1', 'm'],
    ]);
  });
});

describe('data host answers: spelling variants and numbers as strings', () => {
  it('balance: last as an object with lastCl or lastcl, numbers or strings, unknown fields ignored', () => {
    for (const last of [
      { lastCl: '10', lastAmt: 3000, lastDt: '20261120' },
      { lastcl: '10', lastAmt: '000000003000', lastDt: '20261120', extra: 1 },
    ]) {
      const b = mapBalance({ mid: DATA_MID, remainAmt: '12,000', last, newField: { x: 1 } });
      expect(b.remainAmt).to.equal(12000);
      expect(b.last).to.deep.equal({ kind: 'payout', lastcl: '10', amount: 3000, date: '20261120' });
    }
    expect(
      mapBalance({ mid: DATA_MID, remainAmt: 5, lastCl: '00', lastAmt: 5, lastDt: '20261120' }).last!.kind,
    ).to.equal('settlement');
    expect(mapBalance({ mid: DATA_MID, remainAmt: 5, last: { lastcl: '77', lastAmt: 1 } }).last!.kind).to.equal(
      'unknown',
    );
    expect(mapBalance({ mid: DATA_MID, remainAmt: 0 }).last).to.equal(undefined);
    expect(mapBalance({ mid: DATA_MID, remainAmt: 0, last: {} }).last).to.equal(undefined);
  });

  it('payout request: dupChkYn or dupYn', async () => {
    for (const [key, value, expected] of [
      ['dupYn', 'N', false],
      ['dupChkYn', 'N', false],
      ['dupYn', 'Y', true],
      ['dupchkyn', 'y', true],
    ] as const) {
      const { ctx } = fakeContext(() => ok({ seq: 77, settlmntAmt: 5000, [key]: value }));
      const r = await createPayoutClient(withoutScheduleChecks(ctx)).request({
        subId: 's1',
        amount: 5000,
        settlmntDt: '20261123',
        dupCheck: !expected,
      });
      expect(r.dupCheck, `${key}=${value}`).to.equal(expected);
      expect(r.seq).to.equal('77');
    }
  });

  it('results: counts as strings or numbers; every statusNm', () => {
    const r = mapResults({
      totCnt: '5',
      succCnt: 1,
      failCnt: '1',
      remainAmt: '100',
      detail: [
        { rowNo: '1', seq: 11, statusNm: '요청', settlmntAmt: '000000001000' },
        { rowNo: 2, seq: '12', statusNm: '성공', settlmntAmt: 2000 },
        { rowNo: 3, seq: '13', statusNm: '실패', settlmntAmt: 3, errReason: '잔액 부족' },
        { rowNo: 4, seq: '14', statusNm: '재요청 진행중', settlmntAmt: 4 },
        { rowNo: 5, seq: '15', statusNm: '삭제', settlmntAmt: 5 },
        { rowNo: 6, seq: '16', statusNm: '보류', settlmntAmt: 6 },
        'not an object',
      ],
    });
    expect(r).to.include({ totCnt: 5, succCnt: 1, failCnt: 1, remainAmt: 100 });
    expect(r.items.map((i) => i.status)).to.deep.equal([
      'requested',
      'succeeded',
      'failed',
      'retrying',
      'deleted',
      'unknown',
    ]);
    expect(r.items[0]).to.include({ seq: '11', amount: 1000, rowNo: 1, statusNm: '요청' });
    expect(r.items[5]!.statusNm).to.equal('보류');
    expect(payoutStatus('재요청진행중')).to.equal('retrying');
    expect(mapResults({}).items).to.deep.equal([]);
  });

  it('cash receipts: orgTid or otid, Identity or identity, codes kept beside their meaning', () => {
    const base = { appDt: '20261120', appTm: '101010', tid: 't1', goodsNm: '책', moid: 'o1' };
    const list = mapCashReceipts({
      reqDt: '20261120',
      authCl: 2,
      dataCnt: '3',
      data: [
        { ...base, otid: 'pay-1', identity: '010****5678', stateCd: '0', status: '4', reqFlg: '1', goodsAmt: '1000' },
        { ...base, orgTid: 'pay-2', Identity: '123***', stateCd: 1, status: 10, reqFlg: 2, goodsAmt: 2000 },
        { ...base, orgTid: 'pay-3', stateCd: '5', status: '7', reqFlg: '9' },
      ],
    });
    expect(list).to.include({ reqDt: '20261120', authCl: '2', count: 3 });
    const [a, b, c] = list.items;
    expect(a).to.include({
      orgTid: 'pay-1',
      identity: '010****5678',
      state: 'approval',
      stateCd: '0',
      status: 'issued',
      statusCd: '4',
      purpose: 'income-deduction',
      reqFlg: '1',
      goodsAmt: 1000,
    });
    expect(b).to.include({
      orgTid: 'pay-2',
      identity: '123***',
      state: 'cancel',
      stateCd: '1',
      status: 'issue-failed',
      statusCd: '10',
      purpose: 'expense-proof',
      goodsAmt: 2000,
    });
    expect(c).to.include({ state: 'unknown', status: 'unknown', purpose: 'unknown', goodsAmt: 0 });
    const statuses = ['0', '1', '2', '3', '4', '9', '10'].map(
      (s) => mapCashReceipts({ data: [{ status: s }] }).items[0]!.status,
    );
    expect(statuses).to.deep.equal([
      'success',
      'requested',
      'request-cancelled',
      'request-completed',
      'issued',
      'request-failed',
      'issue-failed',
    ]);
    expect(mapCashReceipts({ data: [{}, {}] }).count).to.equal(2);
  });

  it('a non-numeric amount is refused, not guessed', () => {
    expect(() => mapBalance({ remainAmt: 'lots' })).to.throw(NicepayGatewayError, /remainAmt/);
  });
});

describe('data host answers: errors', () => {
  it('maps every listed resCode to its stable reason', () => {
    for (const [resCode, reason] of Object.entries(DATA_RES_REASONS)) {
      const err = (() => {
        try {
          parseDataResponse(fail(resCode, '메시지'), '0102001');
        } catch (e) {
          return e;
        }
      })() as NicepayDataApiError;
      expect(err, resCode).to.be.instanceOf(NicepayDataApiError);
      expect(err).to.include({
        resCode,
        reason,
        resMsg: '메시지',
        sid: '0102001',
        outcomeUnknown: false,
        code: 'NICEPAY_DATA_HOST_REFUSED',
      });
      expect(err.message).to.include(resCode);
    }
    expect(DATA_RES_REASONS['1003']).to.equal('account-holder-mismatch');
    expect(DATA_RES_REASONS['1107']).to.equal('past-cutoff');
    expect(reasonOf('4242')).to.equal('unlisted-code');
  });

  it('8xxx, 9001 and 9999 are an unknown outcome like every other (NICEPAY_OUTCOME_UNKNOWN) for a state change, an unusable answer (NICEPAY_GATEWAY_ERROR) for a query; never a refusal', () => {
    for (const resCode of ['8000', '8123', '9001', '9999']) {
      expect(() => parseDataResponse(fail(resCode), '0102001', true))
        .to.throw(NicepayGatewayError)
        .with.property('code', 'NICEPAY_OUTCOME_UNKNOWN');
      expect(() => parseDataResponse(fail(resCode, '', '0101001'), '0101001'))
        .to.throw(NicepayGatewayError)
        .with.property('code', 'NICEPAY_GATEWAY_ERROR');
    }
    expect(() => parseDataResponse(fail('1003'), '0102001', true))
      .to.throw(NicepayDataApiError)
      .with.property('outcomeUnknown', false);
  });

  it("a resCode that is not exactly four digits is read as exactly as the web host's ResultCode: an unusable answer, never a refusal or a success", () => {
    for (const resCode of ['0000 ', ' 0000', '000', 'ok', '1003\t']) {
      expect(() => parseDataResponse(fail(resCode, '', '0101001'), '0101001'), JSON.stringify(resCode))
        .to.throw(NicepayGatewayError)
        .with.property('code', 'NICEPAY_GATEWAY_ERROR');
      expect(() => parseDataResponse(fail(resCode), '0102001', true), JSON.stringify(resCode))
        .to.throw(NicepayGatewayError)
        .with.property('code', 'NICEPAY_OUTCOME_UNKNOWN');
    }
  });

  it('resCode as a JSON number is read as 4 digits', () => {
    expect(parseDataResponse(fail(0, '', '0101001'), '0101001').header.resCode).to.equal('0000');
    expect(() => parseDataResponse(fail(1003, '', '0101001'), '0101001'))
      .to.throw(NicepayDataApiError)
      .with.property('resCode', '1003');
  });

  it('malformed answers: NICEPAY_GATEWAY_ERROR for a query, NICEPAY_OUTCOME_UNKNOWN for a state change', () => {
    for (const bad of [
      '<html>error</html>',
      '{"header":{"resCode":"00',
      '[]',
      '{"body":{}}',
      '{"header":{"resMsg":"x"}}',
      '',
    ]) {
      expect(() => parseDataResponse(bad, '0101001'), bad)
        .to.throw(NicepayGatewayError)
        .with.property('code', 'NICEPAY_GATEWAY_ERROR');
      expect(() => parseDataResponse(bad, '0102001', true), bad)
        .to.throw(NicepayGatewayError)
        .with.property('code', 'NICEPAY_OUTCOME_UNKNOWN');
    }
  });

  it('a timeout after sending is NICEPAY_OUTCOME_UNKNOWN; a refused connection is NICEPAY_GATEWAY_UNREACHABLE', async () => {
    const timeout = fakeContext(() => new TransportError('timeout', true, 'no complete answer'));
    const e1 = await rejection(createPayoutClient(timeout.ctx).balance());
    expect(e1).to.be.instanceOf(NicepayGatewayError);
    expect(e1).to.include({ code: 'NICEPAY_OUTCOME_UNKNOWN', outcomeUnknown: true });
    const refused = fakeContext(() => new TransportError('connect', false, 'ECONNREFUSED'));
    const e2 = await rejection(createPayoutClient(refused.ctx).balance());
    expect(e2).to.include({ code: 'NICEPAY_GATEWAY_UNREACHABLE', outcomeUnknown: false });
  });

  it('a fractional or unsafe amount from the data host is refused, not rounded', async () => {
    for (const remainAmt of ['1000.50', 1000.5, 2 ** 60]) {
      const { ctx } = fakeContext(() => ok({ remainAmt }));
      const e = await rejection(createPayoutClient(ctx).balance());
      expect(e, String(remainAmt)).to.include({ code: 'NICEPAY_GATEWAY_ERROR' });
    }
  });

  it('a payout request accepted without a seq is an unknown outcome, not a success', async () => {
    const { ctx } = fakeContext(() => ok({}));
    const e = await rejection(
      createPayoutClient(withoutScheduleChecks(ctx)).request({ subId: 's', amount: 1, settlmntDt: '20261123' }),
    );
    expect(e).to.be.instanceOf(NicepayGatewayError);
    expect(e).to.include({ code: 'NICEPAY_OUTCOME_UNKNOWN', outcomeUnknown: true });
  });

  it('field sizes are checked in UTF-8 bytes before sending, naming the field', async () => {
    const { ctx, sent } = fakeContext(() => ok({ seq: '000001' }));
    const p = createPayoutClient(withoutScheduleChecks(ctx));
    // 10 Hangul = 30 bytes is fine, 11 = 33 bytes is not (accntDesc 30).
    await p.request({ subId: 's', amount: 1, settlmntDt: '20261123', accntDesc: '가'.repeat(10) });
    const e = await rejection(p.request({ subId: 's', amount: 1, settlmntDt: '20261123', accntDesc: '가'.repeat(11) }));
    expect(e).to.be.instanceOf(NicepayRequestError);
    expect(e).to.include({ code: 'NICEPAY_FIELD_INVALID', field: 'accntDesc', status: 400 });
    expect(e.message).to.include('33 bytes');
    const input = { subId: 's', subNm: '가'.repeat(17), subCoNo: '1', bankCd: '004', accntNo: '1', accntNm: 'a' };
    expect(await rejection(p.registerSubMerchant(input))).to.include({ field: 'subNm' });
    expect(await rejection(p.registerSubMerchant({ ...input, subNm: 'n', bankCd: '0040' }))).to.include({
      field: 'bankCd',
    });
    expect(await rejection(p.cancel({ subId: 's', settlmntDt: '20261123', seq: '1'.repeat(21) }))).to.include({
      field: 'seq',
    });
    expect(
      await rejection(
        createReconClient(ctx).cashReceipts({
          usrId: 'u'.repeat(21),
          dt: '20261120',
          orgSvcCd: '02',
          idCl: '2',
          searchID: 'x',
        }),
      ),
    ).to.include({ field: 'usrId' });
    expect(
      await rejection(
        createReconClient(ctx).cashReceipts({
          usrId: 'u',
          dt: '20261120',
          orgSvcCd: '02',
          idCl: '5' as '2',
          searchID: 'x',
        }),
      ),
    ).to.include({ field: 'idCl' });
    expect(sent).to.have.length(1);
  });

  it('bad call input is a NicepayRequestError naming the field; nothing is sent', async () => {
    const { ctx, sent } = fakeContext(() => ok({}));
    const p = createPayoutClient(withoutScheduleChecks(ctx));
    for (const amount of [0, -1, 1.5, 1e15, Number.NaN, '100' as unknown as number]) {
      expect(await rejection(p.request({ subId: 's', amount }))).to.include({
        field: 'amount',
        code: 'NICEPAY_FIELD_INVALID',
      });
    }
    expect(await rejection(p.request({ subId: 's', amount: 1, settlmntDt: '20261331' }))).to.include({
      field: 'settlmntDt',
    });
    expect(await rejection(p.request({ subId: '', amount: 1 }))).to.include({ field: 'subId' });
    expect(await rejection(p.results({ settlmntDt: '2026-11-23' }))).to.include({ field: 'settlmntDt' });
    expect(
      await rejection(
        createReconClient(ctx).cashReceipts({ usrId: 'u', dt: '20261199', orgSvcCd: '02', idCl: '2', searchID: 'x' }),
      ),
    ).to.include({ field: 'dt' });
    expect(sent).to.have.length(0);
  });
});
