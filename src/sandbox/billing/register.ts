import { randomInt } from 'node:crypto';
import { BILLING_ENC_FIELDS, BILLING_REGISTER_FIELDS, parseBillingEncPlaintext } from '../../wire/billing-fields.js';
import { billingRegisterSignData } from '../../wire/billing-signatures.js';
import { decryptEncData } from '../../wire/enc-data.js';
import { checkFields } from '../../wire/field-sizes.js';
import type { FormFields } from '../../wire/form-codec.js';
import { hexEquals } from '../../wire/hash.js';
import { kstDate8, kstTimestamp12 } from '../../wire/kst.js';
import { SANDBOX_TEST_CARDS } from '../keyin/cards.js';
import type { SandboxRequest, SandboxResponse, SandboxState } from '../types.js';
import { BILLING_CODES, type BillingCode } from './codes.js';
import { field, readForm } from '../form-fields.js';
import { expiredAt } from '../keyin/card-answer.js';
import { checkCommon } from './common.js';
import { replyWithFault } from '../keyin/fault-reply.js';
import { billingState } from './state.js';

/**
 * POST /webapi/billing/billing_regist.jsp (billing-facts §1a). Checks the merchant, the table,
 * EdiDate, SignData = sha256(MID + EdiDate + Moid + key), the EncData with the billing names
 * (key-in's names are refused) and the contract's IDNo / CardPw, then issues a new BID bound to
 * the card and its expiry: one card may hold several. A Moid used before is accepted: the facts
 * say "unique", but a public merchant integration registers and removes with one constant Moid,
 * and nothing a registration answers depends on it. Test cards as key-in's (keyin/cards.ts):
 * lost, stolen or suspended ones and past expiries are refused; the limit-exceeded card
 * registers and declines its charges. Faults: target 'billing-register'.
 */
export function billingRegister(req: SandboxRequest, state: SandboxState): SandboxResponse {
  const form = readForm(req);
  return replyWithFault(state, 'billing-register', form, {
    process: () => register(form, state),
    notCommitted: (code, message) =>
      answer(form ?? {}, {
        code: code ?? BILLING_CODES.issuerTimeout.code,
        message: message ?? BILLING_CODES.issuerTimeout.message,
      }),
  });
}

function register(form: FormFields | undefined, state: SandboxState): Record<string, string> {
  const checked = checkCommon(form, BILLING_REGISTER_FIELDS, state);
  if ('refusal' in checked) return answer(form ?? {}, checked.refusal);
  const f = form!;
  const { merchant, now } = checked;
  const moid = field(f, 'Moid');
  if (
    !hexEquals(
      billingRegisterSignData(merchant.mid, field(f, 'EdiDate'), moid, merchant.merchantKey),
      field(f, 'SignData'),
    )
  )
    return answer(f, BILLING_CODES.badSignature);
  const books = billingState(state);
  let enc: Record<string, string> | undefined;
  try {
    enc = parseBillingEncPlaintext(decryptEncData(field(f, 'EncData'), merchant.merchantKey));
  } catch {
    enc = undefined;
  }
  if (!enc || checkFields(BILLING_ENC_FIELDS, enc, 'euc-kr')) return answer(f, BILLING_CODES.badEncData);
  if (merchant.keyinRequiresAuthNum && !enc.IDNo) return answer(f, BILLING_CODES.authNumRequired);
  if (merchant.keyinRequiresPassword && !enc.CardPw) return answer(f, BILLING_CODES.passwordRequired);
  const card = SANDBOX_TEST_CARDS[enc.CardNo!];
  if (!card) return answer(f, BILLING_CODES.unknownCard);
  if (expiredAt(enc.ExpYear!, enc.ExpMonth!, now) || card.outcome === 'expired')
    return answer(f, BILLING_CODES.cardExpired);
  if (card.outcome === 'lost-stolen' || card.outcome === 'suspended') return answer(f, BILLING_CODES.cardRefused);
  const stamp = kstTimestamp12(now);
  let bid: string;
  do bid = `BIKY${merchant.mid}${stamp}${String(randomInt(10_000)).padStart(4, '0')}`;
  while (books.keys.has(bid));
  const tid = `${merchant.mid}0116${stamp}${String(randomInt(10_000)).padStart(4, '0')}`;
  books.keys.set(bid, {
    bid,
    mid: merchant.mid,
    cardNo: enc.CardNo!,
    expYear: enc.ExpYear!,
    expMonth: enc.ExpMonth!,
    tid,
    registeredAt: now,
  });
  return answer(f, BILLING_CODES.registered, {
    TID: tid,
    BID: bid,
    AuthDate: kstDate8(now),
    CardCode: card.cardCode,
    CardName: card.cardName,
    CardCl: card.cardCl,
    AcquCardCode: card.acquCode,
    AcquCardName: card.acquName,
  });
}

/** The registration answer: every field of the facts' table (empty where not applicable). */
function answer(form: FormFields, result: BillingCode, extra: Record<string, string> = {}): Record<string, string> {
  return {
    ResultCode: result.code,
    ResultMsg: result.message,
    TID: '',
    BID: '',
    AuthDate: '',
    CardCode: '',
    CardName: '',
    CardCl: '',
    AcquCardCode: '',
    AcquCardName: '',
    ...extra,
    MID: field(form, 'MID'),
    Moid: field(form, 'Moid'),
  };
}
