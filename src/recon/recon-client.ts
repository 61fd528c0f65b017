import type { ClientContext } from '../context.js';
import { callDataHost } from '../data-api/call.js';
import { SID } from '../data-api/envelope.js';
import { NicepayRequestError } from '../errors/index.js';
import type { FieldTable } from '../wire/field-sizes.js';
import { parseKstTimestamp } from '../wire/kst.js';
import { reconEncKey } from '../wire/signatures.js';
import { mapCashReceipts } from './map-response.js';
import type { ReconClient } from './types.js';

/** Request fields of 0301002 (gateway-interface.md, D), sizes in UTF-8 bytes. */
export const CASH_RECEIPT_FIELDS: FieldTable = {
  usrId: { max: 20, required: true },
  encKey: { max: 256, required: true },
  dt: { max: 8, required: true, pattern: /^\d{8}$/ },
  orgSvcCd: { max: 2, required: true, pattern: /^\d{2}$/ },
  idCl: { max: 1, required: true, pattern: /^[234]$/ },
  searchID: { max: 10, required: true },
  // Size not shown in the spec; bounded so a mistake cannot send an unbounded value.
  svcCd: { max: 10, required: false },
  trCl: { max: 10, required: false },
};

/** Creates the reconciliation client (interface D). */
export function createReconClient(ctx: ClientContext): ReconClient {
  const key = ctx.config.merchantKey;
  return {
    async cashReceipts(query) {
      if (typeof query !== 'object' || query === null) {
        throw new NicepayRequestError('NICEPAY_FIELD_INVALID', 'recon cashReceipts wants a query object', 400);
      }
      for (const f of ['usrId', 'dt', 'orgSvcCd', 'idCl', 'searchID'] as const) {
        if (typeof query[f] !== 'string' || query[f] === '') {
          throw new NicepayRequestError('NICEPAY_FIELD_INVALID', `recon ${f} is required (a non-empty string)`, 400, f);
        }
      }
      for (const f of ['svcCd', 'trCl'] as const) {
        if (query[f] !== undefined && typeof query[f] !== 'string') {
          throw new NicepayRequestError('NICEPAY_FIELD_INVALID', `recon ${f} must be a string when set`, 400, f);
        }
      }
      if (!/^\d{8}$/.test(query.dt) || !parseKstTimestamp(query.dt)) {
        throw new NicepayRequestError('NICEPAY_FIELD_INVALID', 'recon dt must be a calendar date YYYYMMDD', 400, 'dt');
      }
      const sid = SID.cashReceipts;
      const res = await callDataHost(ctx, {
        path: '/recon/api',
        sid,
        fields: CASH_RECEIPT_FIELDS,
        body: {
          usrId: query.usrId,
          dt: query.dt,
          orgSvcCd: query.orgSvcCd,
          idCl: query.idCl,
          searchID: query.searchID,
          svcCd: query.svcCd,
          trCl: query.trCl,
        },
        encKey: (trDtm) => reconEncKey(sid, query.usrId, trDtm, key),
        mutating: false,
      });
      return mapCashReceipts(res.body);
    },
  };
}
