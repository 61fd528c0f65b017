import { CASH_RECEIPT_FIELDS, SID } from '../../wire/data-fields.js';
import { hexEquals } from '../../wire/hash.js';
import { reconEncKey } from '../../wire/signatures.js';
import type { SandboxHandler, SandboxState } from '../types.js';
import { answer, checkBody, DataHostRefusal, peekSid, refusalAnswer, readEnvelope, withFaults } from './envelope.js';
import { dataHostState } from './state.js';

/**
 * POST /recon/api: cash receipts approved or cancelled on `dt`. The merchant is found by its
 * usrId; encKey = sha256(sid + usrId + trDtm + key). idCl 2 lists the searchID merchant's
 * receipts (none for another MID); the sandbox has no groups, so 3 and 4 list the usrId's
 * merchant. orgSvcCd filters by the original method: 02 bank transfer, 03 virtual account, 04
 * a cash receipt on its own (billing-facts §2).
 * Keys are spelled as in the official response example (otid, identity).
 */
export const reconApi: SandboxHandler = (httpReq, state: SandboxState) =>
  withFaults(
    state,
    () => {
      let sid = '';
      let raw: unknown;
      try {
        const req = readEnvelope(httpReq, state.clock.now(), state.rules.ediDateToleranceMs);
        sid = req.sid;
        raw = req.raw;
        if (req.sid !== SID.cashReceipts) throw new DataHostRefusal('0102', `알 수 없는 sid: ${req.sid}`);
        checkBody(CASH_RECEIPT_FIELDS, req.body);
        const { usrId, dt, orgSvcCd, idCl, searchID } = req.body as Record<
          'usrId' | 'dt' | 'orgSvcCd' | 'idCl' | 'searchID',
          string
        >;
        const merchant = [...state.merchants.values()].find((m) => m.usrId === usrId);
        const expected = merchant ? reconEncKey(SID.cashReceipts, usrId, req.trDtm, merchant.merchantKey) : '';
        if (!merchant || !hexEquals(expected, req.body['encKey'] ?? ''))
          throw new DataHostRefusal('1000', '사용자 인증 실패');
        const mid = idCl === '2' ? searchID : merchant.mid;
        const visible = mid === merchant.mid;
        const data = dataHostState(state)
          .receipts.filter(
            (r) => visible && r.mid === mid && (r.appDt === dt || r.ccDt === dt) && r.orgSvcCd === orgSvcCd,
          )
          .map((r) => ({
            appDt: r.appDt,
            appTm: r.appTm,
            ccDt: r.ccDt,
            ccTm: r.ccTm,
            mid: r.mid,
            serviceId: '',
            tid: r.tid,
            otid: r.orgTid,
            orgSvcCd: r.orgSvcCd,
            goodsNm: r.goodsNm,
            goodsAmt: r.goodsAmt,
            stateCd: r.stateCd,
            appNo: r.appNo,
            ccNo: r.ccNo,
            ordNm: r.ordNm,
            identity: r.identity,
            status: r.status,
            reqFlg: r.reqFlg,
            coNm: '',
            coNo: '',
            moid: r.moid,
          }));
        return answer(state, sid, '0000', '정상처리', {
          reqDt: dt,
          authCl: '2',
          dataCnt: data.length,
          data,
          reqInfo: req.raw,
        });
      } catch (err) {
        if (err instanceof DataHostRefusal) return refusalAnswer(state, err, sid, raw);
        throw err;
      }
    },
    peekSid(httpReq),
  );
