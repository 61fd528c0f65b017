import { inspect } from 'node:util';
import type { ClientContext } from '../context.js';
import { NicepayGatewayError } from '../errors/index.js';
import { admit, callGateway, withMerchantKeyHint } from '../pipeline/index.js';
import { parseKstTimestamp, kstTimestamp14 } from '../wire/kst.js';
import { ownField } from '../wire/response-body.js';
import { type BillingAnswer, readRegisterAnswer, readRemoveAnswer } from './answer.js';
import { buildRegisterForm, buildRemoveForm } from './request.js';
import type {
  BillingCardInfo,
  BillingRegisterInput,
  BillingRegisterResult,
  BillingRemoveInput,
  BillingRemoveResult,
  RefusedBilling,
  RegisteredBilling,
  RemovedBilling,
} from './types.js';
import { maskBid, validateRegister, validateRemove } from './validate.js';
import { EUC_KR_FORM } from '../wire/content-type.js';

/** Registration and removal of billing keys. */
export interface Registration {
  register(input: BillingRegisterInput): Promise<BillingRegisterResult>;
  remove(input: BillingRemoveInput): Promise<BillingRemoveResult>;
}

/**
 * Registration and removal through the pipeline. Neither is run-once (each takes a new Moid,
 * and the gateway refuses a used one); a lost answer rejects with NICEPAY_OUTCOME_UNKNOWN:
 * a registration may have issued a BID nobody holds (harmless: it charges nothing until
 * used, and the card is simply registered again), a removal may have happened (removing
 * again then answers that the BID is unusable).
 */
export function createRegistration(ctx: ClientContext, registerUrl: URL, removeUrl: URL): Registration {
  const { config } = ctx;
  return {
    register(input) {
      try {
        const n = validateRegister(input, config.clock());
        return keyCall<RegisteredBilling, { kind: 'registered'; bid: string; raw: Record<string, string> }>(ctx, {
          what: 'billing registration',
          operation: 'billing.register',
          url: registerUrl,
          moid: n.moid,
          doneCode: 'F100',
          unknown: (reason) =>
            `billing registration of order ${n.moid} has an unknown outcome: ${reason}; a billing key may have been issued: register the card again with a new Moid`,
          body: () => buildRegisterForm(n, config.mid, config.merchantKey, kstTimestamp14(config.clock())),
          read: (body) =>
            readRegisterAnswer(body, { mid: config.mid, moid: n.moid, charset: n.charset, ediType: n.ediType }),
          done: (a) => registered(a.bid, n.moid, a.raw),
        });
      } catch (err) {
        return Promise.reject(err);
      }
    },
    remove(input) {
      try {
        const n = validateRemove(input);
        return keyCall<RemovedBilling, { kind: 'removed'; raw: Record<string, string> }>(ctx, {
          what: 'billing removal',
          operation: 'billing.remove',
          url: removeUrl,
          moid: n.moid,
          doneCode: 'F101',
          unknown: (reason) =>
            `removal of billing key ${maskBid(n.bid)} (order ${n.moid}) has an unknown outcome: ${reason}; remove it again with a new Moid (a removed key is refused)`,
          body: () => buildRemoveForm(n, config.mid, config.merchantKey, kstTimestamp14(config.clock())),
          read: (body) =>
            readRemoveAnswer(body, {
              mid: config.mid,
              moid: n.moid,
              bid: n.bid,
              charset: n.charset,
              ediType: n.ediType,
            }),
          done: (a) => ({
            status: 'removed',
            tid: ownField(a.raw, 'TID') ?? '',
            moid: n.moid,
            authDate: parseKstTimestamp(ownField(a.raw, 'AuthDate') ?? ''),
          }),
        });
      } catch (err) {
        return Promise.reject(err);
      }
    },
  };
}

/** True for a refusal of a billing-key call's answer reader. */
function isRefusal(a: { kind: string }): a is { kind: 'refused'; code: string; message: string } {
  return a.kind === 'refused';
}

/** What registration and removal each declare for {@link keyCall}. */
interface KeyCallSpec<R, T extends { kind: 'registered' | 'removed' }> {
  what: string;
  operation: 'billing.register' | 'billing.remove';
  url: URL;
  moid: string;
  /** The result code a done call reports (the answer's own success code). */
  doneCode: string;
  /** The message of an unknown outcome: what happened and how the shop ends it. */
  unknown(reason: string): string;
  body(): Buffer;
  read(body: Buffer): BillingAnswer<T>;
  done(answer: T): R;
}

/**
 * One billing-key call (a registration or a removal): sent once through the pipeline, read by
 * its answer reader; a refusal is the caller's result, anything unreadable or lost rejects with
 * NICEPAY_OUTCOME_UNKNOWN.
 */
function keyCall<R extends { status: 'registered' | 'removed' }, T extends { kind: 'registered' | 'removed' }>(
  ctx: ClientContext,
  spec: KeyCallSpec<R, T>,
): Promise<R | RefusedBilling> {
  const lost = (reason: string): never => {
    throw new NicepayGatewayError('NICEPAY_OUTCOME_UNKNOWN', spec.unknown(reason), { moid: spec.moid });
  };
  return admit(ctx, spec.what, () =>
    callGateway<R | RefusedBilling>(ctx, {
      operation: spec.operation,
      host: 'web',
      url: spec.url,
      ids: { moid: spec.moid },
      continuation: true,
      request: () => ({ body: spec.body(), contentType: EUC_KR_FORM }),
      lost: (failure) => lost(failure.message),
      answer(body) {
        const a = spec.read(body);
        if ('reason' in a) return lost(a.reason);
        if (isRefusal(a))
          return { status: 'refused', code: a.code, message: withMerchantKeyHint(a.code, a.message), moid: spec.moid };
        return spec.done(a);
      },
      report: (r) => ({
        outcome: r.status === 'refused' ? 'refused' : 'succeeded',
        resultCode: r.status === 'refused' ? r.code : spec.doneCode,
      }),
    }),
  );
}

/** The registered result; its BID is shown masked by toJSON (logs, JSON responses) and util.inspect (console.log). */
function registered(bid: string, moid: string, raw: Record<string, string>): RegisteredBilling {
  const cl = raw.CardCl;
  const card: BillingCardInfo = {
    code: raw.CardCode ?? '',
    name: raw.CardName ?? '',
    kind: cl === '0' ? 'credit' : cl === '1' ? 'check' : 'unknown',
    acquirerCode: raw.AcquCardCode ?? '',
    acquirerName: raw.AcquCardName ?? '',
  };
  const bidMasked = maskBid(bid);
  const tid = raw.TID ?? '';
  const authDate = parseKstTimestamp(raw.AuthDate ?? '');
  const shown = (): Record<string, unknown> => ({
    status: 'registered',
    bid: bidMasked,
    bidMasked,
    tid,
    moid,
    authDate,
    card,
  });
  const result: RegisteredBilling = { status: 'registered', bid, bidMasked, tid, moid, authDate, card, toJSON: shown };
  // console.log and util.inspect show the masked form too (not enumerable: a spread copies the BID, not this).
  Object.defineProperty(result, inspect.custom, { value: shown, enumerable: false });
  return result;
}
