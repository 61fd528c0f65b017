import { randomUUID } from 'node:crypto';
import type { ClientContext } from '../context.js';
import { callDataHost, checkDataBody } from '../data-api/call.js';
import { text } from '../data-api/lenient.js';
import { NicepayRequestError } from '../errors/index.js';
import { type OperationKind, runOperation } from '../pipeline/index.js';
import { kstDate8 } from '../wire/kst.js';
import { payoutEncKey } from '../wire/signatures.js';
import {
  BALANCE_FIELDS,
  PAYOUT_CANCEL_FIELDS,
  PAYOUT_REQUEST_FIELDS,
  PAYOUT_RESULTS_FIELDS,
  SID,
  SUB_MERCHANT_FIELDS,
} from '../wire/data-fields.js';
import { cancelBody, cancelKept, payoutAmountOf, payoutCancelCall, payoutCancelKind } from './cancel-operation.js';
import { mapBalance, mapResults } from './map-response.js';
import { payoutCall, payoutKind, repeatsRecorded, requestBody, withGeneration } from './operation.js';
import type { NormalizedPayout, PayoutSeq } from './payout-record.js';
import {
  checkPayoutCancel,
  checkPayoutRequest,
  checkRegistrationWindow,
  checkResultsReady,
  isDate8,
} from './schedule.js';
import type { FieldTable } from '../wire/field-sizes.js';
import { refuseUnknownInput } from '../validation/known-keys.js';
import {
  PAYOUT_CANCEL_INPUT_KEYS,
  PAYOUT_REQUEST_INPUT_KEYS,
  PAYOUT_RESULTS_QUERY_KEYS,
  type PayoutCancelInput,
  type PayoutCancelResult,
  type PayoutClient,
  type PayoutRequestInput,
  type PayoutRequestResult,
  SUB_MERCHANT_INPUT_KEYS,
  type SubMerchantInput,
  type SubMerchantResult,
} from './types.js';

/** Largest settlmntAmt: 14 digits. */
const MAX_PAYOUT_AMOUNT = 99_999_999_999_999;

function invalid(field: string, wants: string): NicepayRequestError {
  return new NicepayRequestError('NICEPAY_FIELD_INVALID', `payout ${field} is invalid: ${wants}`, field);
}

/** The payout date (settlmntDt): the message says which date it is, not only its wire name. */
function date8(value: unknown, field: string): string {
  if (typeof value !== 'string' || !isDate8(value)) {
    throw invalid(
      field,
      'the payout date must be a real calendar date YYYYMMDD in KST (20261130 is one, 20261131 is not)',
    );
  }
  return value;
}

function str(value: unknown, field: string, required = true): string | undefined {
  if (value === undefined && !required) return undefined;
  if (typeof value !== 'string' || (required && value === '')) throw invalid(field, 'a non-empty string');
  return value;
}

/** A payout request's input, checked (NicepayRequestError naming the field); nothing is sent. */
function checkRequest(input: PayoutRequestInput, now: Date): NormalizedPayout {
  if (typeof input !== 'object' || input === null) throw invalid('input', 'an object');
  refuseUnknownInput(input, PAYOUT_REQUEST_INPUT_KEYS, 'payout.request()');
  const subId = str(input.subId, 'subId')!;
  const amt = input.amount;
  if (typeof amt !== 'number' || !Number.isSafeInteger(amt) || amt <= 0 || amt > MAX_PAYOUT_AMOUNT) {
    throw invalid('amount', 'a positive whole number of won of at most 14 digits');
  }
  const settlmntDt = input.settlmntDt === undefined ? kstDate8(now) : date8(input.settlmntDt, 'settlmntDt');
  const dupCheck = input.dupCheck ?? true;
  if (typeof dupCheck !== 'boolean') throw invalid('dupCheck', 'a boolean');
  const accntDesc = str(input.accntDesc, 'accntDesc', false);
  const crossBorder = input.crossBorder ?? false;
  if (typeof crossBorder !== 'boolean') throw invalid('crossBorder', 'a boolean');
  const key = input.idempotencyKey;
  if (key !== undefined && dupCheck)
    throw invalid(
      'idempotencyKey',
      'given only with dupCheck: false (with the duplicate check, the subId and date name the payout)',
    );
  if (key !== undefined && (typeof key !== 'string' || key === '' || key.length > 200))
    throw invalid('idempotencyKey', 'a non-empty string of at most 200 characters');
  return {
    subId,
    amount: amt,
    settlmntDt,
    dupCheck,
    accntDesc,
    crossBorder,
    once: dupCheck ? '' : (key ?? randomUUID()),
    generation: 0,
  };
}

/** A payout cancel's input, checked (NicepayRequestError naming the field); nothing is sent. */
function checkCancel(input: PayoutCancelInput): PayoutSeq {
  if (typeof input !== 'object' || input === null) throw invalid('input', 'an object');
  refuseUnknownInput(input, PAYOUT_CANCEL_INPUT_KEYS, 'payout.cancel()');
  return {
    subId: str(input.subId, 'subId')!,
    settlmntDt: date8(input.settlmntDt, 'settlmntDt'),
    seq: str(input.seq, 'seq')!,
  };
}

/**
 * Creates the payout client (interface C). Options are checked here (NicepayConfigError);
 * each call checks its input (NicepayRequestError, field named), then the schedule rules
 * unless `scheduleChecks: false` (NicepayScheduleError), then sends. The payout request and
 * cancel are ledger operations of `kind` and `cancelKind`, which settlement knows too.
 */
export function createPayoutClient(
  ctx: ClientContext,
  kind: OperationKind<PayoutRequestResult> = payoutKind(ctx),
  cancelKind: OperationKind<PayoutCancelResult> = payoutCancelKind(ctx),
): PayoutClient {
  // Resolved with every other option, at createNicepay (config.ts).
  const opts = ctx.config.payout;
  const { mid, merchantKey } = ctx.config;
  const now = (): Date => ctx.config.clock();

  const call = (sid: string, fields: FieldTable, body: Record<string, string | undefined>, mutating: boolean) =>
    callDataHost(ctx, {
      path: '/om/api',
      sid,
      fields,
      body: { mid, ...body },
      encKey: (trDtm) => payoutEncKey(sid, mid, trDtm, merchantKey),
      mutating,
    });

  async function subMerchant(input: SubMerchantInput, reqType: '0' | '1'): Promise<SubMerchantResult> {
    if (typeof input !== 'object' || input === null) throw invalid('input', 'an object');
    const caller = reqType === '0' ? 'payout.registerSubMerchant()' : 'payout.updateSubMerchant()';
    refuseUnknownInput(input, SUB_MERCHANT_INPUT_KEYS, caller);
    const body = {
      subId: str(input.subId, 'subId'),
      subNm: str(input.subNm, 'subNm'),
      subCoNo: str(input.subCoNo, 'subCoNo'),
      bankCd: str(input.bankCd, 'bankCd'),
      accntNo: str(input.accntNo, 'accntNo'),
      accntNm: str(input.accntNm, 'accntNm'),
      memo: str(input.memo, 'memo', false),
      reqType,
    };
    if (opts.scheduleChecks) checkRegistrationWindow(now());
    const res = await call(SID.subMerchant, SUB_MERCHANT_FIELDS, body, true);
    const rt = text(res.body, 'reqType');
    return {
      mid: text(res.body, 'mid') || mid,
      subId: text(res.body, 'subId') || input.subId,
      reqType: rt === '0' || rt === '1' ? rt : reqType,
      raw: res.body,
    };
  }

  return {
    async balance() {
      const res = await call(SID.balance, BALANCE_FIELDS, {}, false);
      return mapBalance(res.body);
    },

    registerSubMerchant: (input) => subMerchant(input, '0'),
    updateSubMerchant: (input) => subMerchant(input, '1'),

    async request(input) {
      const n = checkRequest(input, now());
      // Bad input is refused whatever the ledger holds.
      checkDataBody(SID.payoutRequest, PAYOUT_REQUEST_FIELDS, requestBody(mid, n));
      const call = payoutCall(ctx, kind, await withGeneration(ctx, n));
      // A repeat is answered from its record even after 10:30; a new payout meets the schedule first.
      if (opts.scheduleChecks && !(await repeatsRecorded(ctx, call)))
        checkPayoutRequest(n.settlmntDt, now(), opts.businessDays, n.crossBorder);
      const result = await runOperation(ctx, call);
      // Only a payout answered from its record can have been cancelled since.
      return result.duplicate && result.seq !== '' ? { ...result, cancelled: await cancelKept(ctx, result) } : result;
    },

    checkRequestDate(settlmntDt, options = {}) {
      const date = date8(settlmntDt, 'settlmntDt');
      const crossBorder = options.crossBorder ?? false;
      if (typeof crossBorder !== 'boolean') throw invalid('crossBorder', 'a boolean');
      if (opts.scheduleChecks) checkPayoutRequest(date, now(), opts.businessDays, crossBorder);
    },

    async cancel(input) {
      const c = checkCancel(input);
      // Bad input is refused whatever the ledger holds.
      checkDataBody(SID.payoutCancel, PAYOUT_CANCEL_FIELDS, cancelBody(mid, c));
      const call = payoutCancelCall(ctx, cancelKind, c, await payoutAmountOf(ctx, c));
      // A repeat is answered from its record even after 10:30; a new cancel meets the cut-off first.
      if (opts.scheduleChecks && !(await repeatsRecorded(ctx, call))) checkPayoutCancel(c.settlmntDt, now());
      return runOperation(ctx, call);
    },

    async results(query) {
      if (typeof query !== 'object' || query === null) throw invalid('query', 'an object');
      refuseUnknownInput(query, PAYOUT_RESULTS_QUERY_KEYS, 'payout.results()');
      const settlmntDt = date8(query.settlmntDt, 'settlmntDt');
      const subId = str(query.subId, 'subId', false);
      if (opts.scheduleChecks) checkResultsReady(settlmntDt, now());
      const res = await call(SID.payoutResults, PAYOUT_RESULTS_FIELDS, { settlmntDt, subId }, false);
      return mapResults(res.body);
    },
  };
}
