import { inspect } from 'node:util';
import type { ClientContext } from '../context.js';
import { NicepayGatewayError } from '../errors/index.js';
import { admit, callGateway, withMerchantKeyHint } from '../pipeline/index.js';
import { parseKstTimestamp, kstTimestamp14 } from '../wire/kst.js';
import { ownField } from '../wire/response-body.js';
import { readRegisterAnswer, readRemoveAnswer } from './answer.js';
import { buildRegisterForm, buildRemoveForm } from './request.js';
import type {
  BillingCardInfo,
  BillingRegisterInput,
  BillingRegisterResult,
  BillingRemoveInput,
  BillingRemoveResult,
  RegisteredBilling,
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
        const lost = (reason: string): never => {
          throw new NicepayGatewayError(
            'NICEPAY_OUTCOME_UNKNOWN',
            `billing registration of order ${n.moid} has an unknown outcome: ${reason}; a billing key may have been issued: register the card again with a new Moid`,
            { moid: n.moid },
          );
        };
        return admit(ctx, 'billing registration', () =>
          callGateway<BillingRegisterResult>(ctx, {
            operation: 'billing.register',
            host: 'web',
            url: registerUrl,
            ids: { moid: n.moid },
            continuation: true,
            request: () => ({
              body: buildRegisterForm(n, config.mid, config.merchantKey, kstTimestamp14(config.clock())),
              contentType: EUC_KR_FORM,
            }),
            lost: (failure) => lost(failure.message),
            answer(body) {
              const a = readRegisterAnswer(body, {
                mid: config.mid,
                moid: n.moid,
                charset: n.charset,
                ediType: n.ediType,
              });
              if (a.kind === 'unknown') return lost(a.reason);
              if (a.kind === 'refused')
                return {
                  status: 'refused',
                  code: a.code,
                  message: withMerchantKeyHint(a.code, a.message),
                  moid: n.moid,
                };
              return registered(a.bid, n.moid, a.raw);
            },
            report: (r) => ({
              outcome: r.status === 'registered' ? 'succeeded' : 'refused',
              resultCode: r.status === 'refused' ? r.code : 'F100',
            }),
          }),
        );
      } catch (err) {
        return Promise.reject(err);
      }
    },
    remove(input) {
      try {
        const n = validateRemove(input);
        const lost = (reason: string): never => {
          throw new NicepayGatewayError(
            'NICEPAY_OUTCOME_UNKNOWN',
            `removal of billing key ${maskBid(n.bid)} (order ${n.moid}) has an unknown outcome: ${reason}; remove it again with a new Moid (a removed key is refused)`,
            { moid: n.moid },
          );
        };
        return admit(ctx, 'billing removal', () =>
          callGateway<BillingRemoveResult>(ctx, {
            operation: 'billing.remove',
            host: 'web',
            url: removeUrl,
            ids: { moid: n.moid },
            continuation: true,
            request: () => ({
              body: buildRemoveForm(n, config.mid, config.merchantKey, kstTimestamp14(config.clock())),
              contentType: EUC_KR_FORM,
            }),
            lost: (failure) => lost(failure.message),
            answer(body) {
              const a = readRemoveAnswer(body, {
                mid: config.mid,
                moid: n.moid,
                bid: n.bid,
                charset: n.charset,
                ediType: n.ediType,
              });
              if (a.kind === 'unknown') return lost(a.reason);
              if (a.kind === 'refused')
                return {
                  status: 'refused',
                  code: a.code,
                  message: withMerchantKeyHint(a.code, a.message),
                  moid: n.moid,
                };
              return {
                status: 'removed',
                tid: ownField(a.raw, 'TID') ?? '',
                moid: n.moid,
                authDate: parseKstTimestamp(ownField(a.raw, 'AuthDate') ?? ''),
              };
            },
            report: (r) => ({
              outcome: r.status === 'removed' ? 'succeeded' : 'refused',
              resultCode: r.status === 'refused' ? r.code : 'F101',
            }),
          }),
        );
      } catch (err) {
        return Promise.reject(err);
      }
    },
  };
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
