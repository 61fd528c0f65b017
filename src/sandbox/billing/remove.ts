import { randomInt } from 'node:crypto';
import { BILLING_REMOVE_FIELDS } from '../../wire/billing-fields.js';
import { billingRemoveSignData } from '../../wire/billing-signatures.js';
import type { FormFields } from '../../wire/form-codec.js';
import { hexEquals } from '../../wire/hash.js';
import { kstDate8, kstTimestamp12 } from '../../wire/kst.js';
import type { SandboxRequest, SandboxResponse, SandboxState } from '../types.js';
import { BILLING_CODES, type BillingCode } from './codes.js';
import { field, readForm } from '../form-fields.js';
import { checkCommon } from './common.js';
import { replyWithFault } from '../keyin/fault-reply.js';
import { billingState } from './state.js';

/**
 * POST /webapi/billing/billkey_remove.jsp (billing-facts §1c). Checks the merchant, the table,
 * EdiDate, SignData = sha256(MID + EdiDate + Moid + BID + key) (no Amt), then removes the BID
 * for good (a Moid used before is accepted, as at registration); a removed, unknown or other
 * merchant's BID is refused (F112). Faults: target 'billing-remove'.
 */
export function billingRemove(req: SandboxRequest, state: SandboxState): SandboxResponse {
  const form = readForm(req);
  return replyWithFault(state, 'billing-remove', form, {
    process: () => remove(form, state),
    notCommitted: (code, message) =>
      answer(form ?? {}, {
        code: code ?? BILLING_CODES.issuerTimeout.code,
        message: message ?? BILLING_CODES.issuerTimeout.message,
      }),
  });
}

function remove(form: FormFields | undefined, state: SandboxState): Record<string, string> {
  const checked = checkCommon(form, BILLING_REMOVE_FIELDS, state);
  if ('refusal' in checked) return answer(form ?? {}, checked.refusal);
  const f = form!;
  const { merchant, now } = checked;
  const bid = field(f, 'BID');
  const moid = field(f, 'Moid');
  if (
    !hexEquals(
      billingRemoveSignData(merchant.mid, field(f, 'EdiDate'), moid, bid, merchant.merchantKey),
      field(f, 'SignData'),
    )
  )
    return answer(f, BILLING_CODES.badSignature);
  const books = billingState(state);
  const key = books.keys.get(bid);
  if (!key || key.mid !== merchant.mid || key.removedAt) return answer(f, BILLING_CODES.bidUnusable);
  key.removedAt = now;
  return answer(f, BILLING_CODES.removed, {
    TID: `${merchant.mid}0116${kstTimestamp12(now)}${String(randomInt(10_000)).padStart(4, '0')}`,
    BID: bid,
    AuthDate: kstDate8(now),
  });
}

function answer(form: FormFields, result: BillingCode, extra: Record<string, string> = {}): Record<string, string> {
  return {
    ResultCode: result.code,
    ResultMsg: result.message,
    TID: '',
    BID: '',
    AuthDate: '',
    ...extra,
    MID: field(form, 'MID'),
    Moid: field(form, 'Moid'),
  };
}
