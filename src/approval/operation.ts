import type { ClientContext } from '../context.js';
import { cancelReversal, reversalTable } from '../cancel/reversal.js';
import { NicepayRequestError } from '../errors/index.js';
import type { AnswerTable, GatewayHolding, LedgerRecord, OperationCall, OperationKind } from '../pipeline/index.js';
import { CARD_COMPANY_TIMEOUTS, DUPLICATE_MOID_REFUSALS, refuseKvUnsafe } from '../pipeline/index.js';
import { askStatus } from '../status/client.js';
import { holdingOfStatus } from '../status/holding.js';
import type { CommittedCheckout, DeclinedCheckout } from '../types/checkout.js';
import { type PayMethod, SUCCESS_CODES } from '../types/payment.js';
import type { Charset } from '../wire/charset.js';
import { APPROVAL_REQUEST_FIELDS, checkFields } from '../wire/field-sizes.js';
import { encodeForm } from '../wire/form-codec.js';
import { hexEquals } from '../wire/hash.js';
import { ownCopy } from '../own-copy.js';
import { frozenFields, isPayMethod, mapPayment } from '../wire/payment-mapper.js';
import { type EdiType, ownField } from '../wire/response-body.js';
import { approvalResponseSignature } from '../wire/signatures.js';
import { signedApprovalFields } from './signed-form.js';

/** What an approval resolves to: money committed, or this order's decline. */
export type ApprovalResult = CommittedCheckout | DeclinedCheckout;

/** How long a closed approval answers repeats of its TID unless the route says otherwise. */
export const APPROVAL_KEEP_MS = 24 * 60 * 60 * 1000;

/** Every success code of any method (gateway-facts: 0000 for methods outside the spec). */
const ANY_SUCCESS: readonly string[] = [...Object.values(SUCCESS_CODES), '0000'];

/**
 * By the method the return names: its success code, and every other method's, which can be read
 * two ways there (money may have moved under a method we did not expect). Made once, not per call.
 */
const CODES_BY_METHOD = new Map(
  (Object.keys(SUCCESS_CODES) as PayMethod[]).map((method) => {
    const success = SUCCESS_CODES[method];
    return [
      method,
      {
        success: new Set([success]),
        // Another method's success, or a card-company timeout: either may mean money moved.
        ambiguous: new Set([...ANY_SUCCESS.filter((c) => c !== success), ...CARD_COMPANY_TIMEOUTS]),
      },
    ] as const;
  }),
);

/**
 * Refusals saying this token is not valid for this TxTid (the sandbox's W010: TID and AuthToken
 * not issued together; W011: the token expired): the return is nobody's order. Never a decline
 * of the order the buyer's form names.
 */
const INVALID_FOR_TID: ReadonlySet<string> = new Set(['W010', 'W011']);

/**
 * Codes saying the TID was processed before (gateway-facts: 1682 identical approval already
 * succeeded, 1621 duplicate request, I003 re-request of an authenticated transaction): never a
 * decline; recovered only for the order the gateway's own answer names (src/pipeline, recover).
 */
export const ALREADY_PROCESSED: ReadonlySet<string> = new Set(['1682', '1621', 'I003']);

const FORM = 'application/x-www-form-urlencoded; charset=euc-kr';

/** The shop's text the approval request sends, by wire name and option name. */
const SHOP_TEXT = { MallReserved: 'mallReserved' } as const;

/** What one approval needs, all verified by the checkout client before. */
export interface ApprovalInput {
  nextAppUrl: URL;
  netCancelUrl: URL;
  tid: string;
  authToken: string;
  /** Keyed digest of the AuthToken: a repeat of the TID must present the same token. */
  tokenDigest: string;
  /** The shop's amount (already equal to the authenticated Amt). */
  amount: number;
  /** The return's Moid: the order the shop's expectedAmount knows, attributed by the gateway's answer. */
  moid: string;
  payMethod: PayMethod;
  responseCharset: Charset;
  ediType: EdiType;
  keepMs: number;
  hook?: OperationCall<ApprovalResult>['hook'];
}

/**
 * The approval kind of the ledger (interface A): how a record becomes a checkout result, its
 * reversal (a cancel of the whole amount) and how settlement learns its state (the status
 * inquiry; "not found", which an unpaid virtual account is too, is cancelled, which says).
 */
export function approvalKind(ctx: ClientContext): OperationKind<ApprovalResult> {
  return {
    op: 'approval',
    what: 'approval',
    keepMs: APPROVAL_KEEP_MS,
    result: approvalResult,
    reversal: (r) => cancelReversal(ctx.config, r),
    inquire: async (r) => holdingOf(ctx, r),
  };
}

/** The caller's result of an approval record. */
function approvalResult(r: LedgerRecord, duplicate: boolean): ApprovalResult {
  const fields = r.fields ?? {};
  const { moid, tid, amount } = r;
  if (r.state === 'declined') {
    return {
      moid,
      tid,
      amount,
      duplicate,
      status: 'declined',
      code: r.resultCode ?? '',
      message: ownField(fields, 'ResultMsg') ?? '',
      raw: frozenFields(fields),
    };
  }
  const method = r.data.method as PayMethod;
  const payment = mapPayment(fields, method, amount);
  const recovered = r.recovered ? { recovered: true as const } : {};
  return payment.method === 'VBANK'
    ? { moid, tid, amount, duplicate, status: 'awaiting-deposit', payment, ...recovered }
    : { moid, tid, amount, duplicate, status: 'approved', payment, ...recovered };
}

/**
 * How long before a request was written an approval of its TID must be dated to be another
 * request's: the gateway takes a request only with an EdiDate near its own clock, so no request
 * it approved comes from a clock an hour off.
 */
const EARLIER_APPROVAL_MS = 60 * 60 * 1000;

/**
 * What the gateway holds for an approval's TID, from the status inquiry (advice, not proof).
 * An approval it dates well before the record was written is not this request's: the TID was
 * approved by an earlier one the store no longer remembers (its record expired, or a memoryStore
 * restarted), and this request, a replay or a stranger's token, charged nothing. Reversing it
 * would cancel a payment the shop recorded.
 */
async function holdingOf(ctx: ClientContext, r: LedgerRecord): Promise<GatewayHolding> {
  const status = await askStatus(ctx, r.tid, true);
  if (status.status === 'approved' && status.authDate && status.authDate.getTime() < r.at - EARLIER_APPROVAL_MS)
    return 'none';
  const holding = holdingOfStatus(status);
  // An issued virtual account not paid yet is "not found" too (lifecycle-facts §4), whatever
  // method the buyer's unsigned form claimed: the reversal's cancel tells the two apart
  // (cancelled, or 2012 no such transaction: never charged).
  return holding === 'none' ? 'unclear' : holding;
}

/** The one approval call of a verified return, as the ledger runs it. */
export function approvalCall(
  ctx: ClientContext,
  kind: OperationKind<ApprovalResult>,
  input: ApprovalInput,
): OperationCall<ApprovalResult> {
  const { config } = ctx;
  const { tid, moid, amount } = input;
  const codes = CODES_BY_METHOD.get(input.payMethod)!;
  const table: AnswerTable = {
    charset: input.responseCharset,
    ediType: input.ediType,
    success: codes.success,
    ambiguous: codes.ambiguous,
    invalid: INVALID_FOR_TID,
    // A127: the order was paid by another TID; this one charged nothing (never its decline).
    chargedBefore: DUPLICATE_MOID_REFUSALS,
    processed: ALREADY_PROCESSED,
    signature: (f) =>
      approvalResponseSignature(
        ownField(f, 'TID') ?? '',
        ownField(f, 'MID') ?? '',
        ownField(f, 'Amt') ?? '',
        config.merchantKey,
      ),
    // The auth return's Moid is not signed: the gateway's own Moid must name the same order,
    // or a buyer could pay order A and have order B marked paid.
    mustEcho: { TID: tid, MID: config.mid, Moid: moid },
    mayEcho: { PayMethod: input.payMethod },
    amount: { field: 'Amt', value: amount },
    refusalMustName: { field: 'Moid', value: moid },
  };
  return {
    kind,
    key: `approval:${config.mid}:${tid}`,
    keepMs: input.keepMs,
    start: { tid, moid, amount, binding: input.tokenDigest, data: { method: input.payMethod } },
    mismatch: {
      field: 'AuthToken',
      message: (own) =>
        `TID ${own.tid} was presented with another AuthToken; its result is not served and nothing was sent`,
    },
    send: {
      url: input.nextAppUrl,
      ids: { tid, moid },
      table,
      request() {
        const signed = signedApprovalFields(config, tid, input.authToken, amount);
        // One literal of a fixed shape: spreading the signed fields into a new object costs
        // more than signing them.
        const fields: Record<string, string | undefined> = {
          TID: signed.TID,
          AuthToken: signed.AuthToken,
          MID: signed.MID,
          Amt: signed.Amt,
          EdiDate: signed.EdiDate,
          SignData: signed.SignData,
          CharSet: input.responseCharset,
          EdiType: input.ediType,
        };
        const problem = checkFields(APPROVAL_REQUEST_FIELDS, fields, 'euc-kr');
        if (problem)
          throw new NicepayRequestError('NICEPAY_FIELD_INVALID', `approval request: ${problem.message}`, problem.field);
        refuseKvUnsafe('approval request', input.ediType, fields, SHOP_TEXT);
        return { body: encodeForm(fields, 'euc-kr'), contentType: FORM };
      },
    },
    refusal: 'kept',
    // Within its window, the net cancel reverses the approval with its own fields (gateway-facts).
    reverseNow: () => ({
      table: reversalTable(config, { tid, moid, amount }),
      url: input.netCancelUrl,
      request: () => ({
        body: encodeForm(
          {
            ...signedApprovalFields(config, tid, input.authToken, amount),
            NetCancel: '1',
            CharSet: 'utf-8',
            EdiType: 'JSON',
          },
          'euc-kr',
        ),
        contentType: FORM,
      }),
    }),
    async recover(reading) {
      // Recovered only for the order the gateway's own signed answer names: the buyer's form
      // could name any order of the same amount.
      const f = reading.fields;
      const signed = hexEquals(
        approvalResponseSignature(
          ownField(f, 'TID') ?? '',
          ownField(f, 'MID') ?? '',
          ownField(f, 'Amt') ?? '',
          config.merchantKey,
        ),
        ownField(f, 'Signature') ?? '',
      );
      if (!signed || ownField(f, 'TID') !== tid || ownField(f, 'Moid') !== moid) {
        return {
          recovered: false,
          why: "neither this store nor the gateway's signed answer attributes it to this order",
        };
      }
      let status: Awaited<ReturnType<typeof askStatus>>;
      try {
        status = await askStatus(ctx, tid, true);
      } catch (err) {
        return { recovered: false, why: `its status could not be asked (${(err as Error).message}); retry shortly` };
      }
      if (status.status !== 'approved')
        return {
          recovered: false,
          why: `the gateway reports it ${status.status === 'cancelled' ? 'cancelled' : 'not approved'}`,
        };
      const method = ownField(f, 'PayMethod') || input.payMethod;
      if (!isPayMethod(method)) return { recovered: false, why: 'it is approved under an unknown method' };
      ctx.config.logger.warn(
        { tid, moid, step: 'recover', resultCode: reading.code },
        'approval recovered: the gateway had already approved this TID for this order; onApproved runs for it',
      );
      return {
        recovered: true,
        // The TID and Moid were cut from the auth return: the record keeps copies, not its AuthToken.
        fields: {
          ...status.raw,
          TID: ownCopy(tid),
          MID: config.mid,
          Moid: ownCopy(moid),
          Amt: String(amount),
          PayMethod: method,
        },
      };
    },
    ...(input.hook ? { hook: input.hook } : {}),
  };
}
