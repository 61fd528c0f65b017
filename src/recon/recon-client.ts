import type { ClientContext } from '../context.js';
import { callDataHost } from '../data-api/call.js';
import { NicepayRequestError } from '../errors/index.js';
import { CASH_RECEIPT_FIELDS, ORG_SVC_CODES, SID } from '../wire/data-fields.js';
import type { FieldTable } from '../wire/field-sizes.js';
import { parseKstTimestamp } from '../wire/kst.js';
import { reconEncKey } from '../wire/signatures.js';
import { mapCashReceipts } from './map-response.js';
import { refuseUnknownInput } from '../validation/known-keys.js';
import { CASH_RECEIPT_QUERY_KEYS, type ReconClient } from './types.js';

/**
 * Request fields of 0301002 as sent, sizes in UTF-8 bytes: the spec's table, plus svcCd and
 * trCl whose size the spec does not show, bounded so a mistake cannot send an unbounded value.
 */
const REQUEST_FIELDS: FieldTable = {
  ...CASH_RECEIPT_FIELDS,
  svcCd: { max: 10, required: false },
  trCl: { max: 10, required: false },
};

/** Creates the reconciliation client (interface D). */
export function createReconClient(ctx: ClientContext): ReconClient {
  const key = ctx.config.merchantKey;
  return {
    async cashReceipts(query) {
      if (typeof query !== 'object' || query === null) {
        throw new NicepayRequestError('NICEPAY_FIELD_INVALID', 'recon cashReceipts wants a query object');
      }
      refuseUnknownInput(query, CASH_RECEIPT_QUERY_KEYS, 'recon.cashReceipts()');
      for (const f of ['usrId', 'dt', 'orgSvcCd', 'idCl', 'searchID'] as const) {
        if (typeof query[f] !== 'string' || query[f] === '') {
          throw new NicepayRequestError('NICEPAY_FIELD_INVALID', `recon ${f} is required (a non-empty string)`, f);
        }
      }
      for (const f of ['svcCd', 'trCl'] as const) {
        if (query[f] !== undefined && typeof query[f] !== 'string') {
          throw new NicepayRequestError('NICEPAY_FIELD_INVALID', `recon ${f} must be a string when set`, f);
        }
      }
      // Checked at run time: the OrgSvcCd type narrows only typed callers (spec D's list).
      if (!(ORG_SVC_CODES as readonly string[]).includes(query.orgSvcCd)) {
        throw new NicepayRequestError(
          'NICEPAY_FIELD_INVALID',
          `recon orgSvcCd must be one of ${ORG_SVC_CODES.join(', ')} (card, bank transfer, virtual account, cash receipt, CMS)`,
          'orgSvcCd',
        );
      }
      if (!/^[234]$/.test(query.idCl)) {
        throw new NicepayRequestError(
          'NICEPAY_FIELD_INVALID',
          'recon idCl must be 2 (MID), 3 (GID) or 4 (AID)',
          'idCl',
        );
      }
      if (!/^\d{8}$/.test(query.dt) || !parseKstTimestamp(query.dt)) {
        throw new NicepayRequestError('NICEPAY_FIELD_INVALID', 'recon dt must be a calendar date YYYYMMDD', 'dt');
      }
      const sid = SID.cashReceipts;
      const res = await callDataHost(ctx, {
        path: '/recon/api',
        sid,
        fields: REQUEST_FIELDS,
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
