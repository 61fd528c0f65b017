import { randomInt } from 'node:crypto';
import { parseAmount } from '../../wire/amount.js';
import { decryptEncData } from '../../wire/enc-data.js';
import { checkFields } from '../../wire/field-sizes.js';
import type { FormFields } from '../../wire/form-codec.js';
import { hexEquals } from '../../wire/hash.js';
import { KEYIN_ENC_FIELDS, KEYIN_SUCCESS_CODE, MID_PATTERN, parseKeyinEncPlaintext } from '../../wire/keyin-fields.js';
import { brokenRule, KEYIN_RULES } from '../request-rules.js';
import { kstTimestamp12 } from '../../wire/kst.js';
import { checkGatewayTime } from '../gateway-time.js';
import { keyinSignData } from '../../wire/signatures.js';
import type { SandboxRequest, SandboxResponse, SandboxState } from '../types.js';
import { field, readForm } from '../form-fields.js';
import { KEYIN_DECLINES, SANDBOX_TEST_CARDS } from './cards.js';
import { cardAnswerFields, cardFields, expiredAt } from './card-answer.js';
import { replyWithFault } from './fault-reply.js';
import { moduleSlot } from '../module-state.js';
import { approvedMoidHolder } from '../approval/rules.js';

/** Per-sandbox state of the key-in endpoint: every TID that passed the signature check, with its call count. */
export interface KeyinModuleState {
  seen: Map<string, number>;
}

/** The key-in module's state inside a sandbox (created on first use). */
export function keyinState(state: SandboxState): KeyinModuleState {
  return moduleSlot<KeyinModuleState>(state, 'keyin', () => ({ seen: new Map() }));
}

type Decline = { code: string; message: string };

/**
 * POST /webapi/card_keyin.jsp (gateway-interface.md, B). Reads the EUC-KR form, checks the
 * merchant, the field table, the TID format, SignData, a repeated TID, EncData and the
 * contract's BuyerAuthNum / CardPwd, then answers per {@link SANDBOX_TEST_CARDS}, applying
 * the next 'keyin' fault. Approvals and declines are booked in the ledger (source 'keyin').
 */
export function cardKeyin(req: SandboxRequest, state: SandboxState): SandboxResponse {
  const form = readForm(req);
  return replyWithFault(state, 'keyin', form, {
    process: () => processKeyin(form, state),
    // A decline answers its own code (or limit-exceeded); any other uncommitted fault looks like an issuer timeout.
    notCommitted: (code, message, kind) =>
      answer(
        form ?? {},
        kind === 'decline'
          ? {
              code: code ?? KEYIN_DECLINES['limit-exceeded'].code,
              message: message ?? KEYIN_DECLINES['limit-exceeded'].message,
            }
          : KEYIN_DECLINES.issuerTimeout,
      ),
  });
}

/** The request's checks and, when they pass, the issuer's answer. */
function processKeyin(form: FormFields | undefined, state: SandboxState): Record<string, string> {
  if (!form) return answer({}, KEYIN_DECLINES.badField);
  const mid = field(form, 'MID');
  // The MID's shape (10 characters ending in a lower-case m) before the merchant lookup.
  if (!MID_PATTERN.test(mid)) return badField(form, 'MID');
  const merchant = state.merchants.get(mid);
  if (!merchant) return answer(form, KEYIN_DECLINES.unknownMerchant);
  // The B table, and a KV MallReserved that could not come back as sent (brokenRule).
  const problem = brokenRule(KEYIN_RULES, form, 'euc-kr');
  if (problem) return badField(form, problem.field);
  const now = state.clock.now();
  // EdiDate and the TID's time part are KST within the documented tolerance (gateway-time.ts).
  if (checkGatewayTime(field(form, 'EdiDate'), now, state.rules.ediDateToleranceMs)) return badField(form, 'EdiDate');
  const tid = field(form, 'TID');
  const tidTime = tid.slice(14, 26);
  if (
    !tid.startsWith(`${mid}0101`) ||
    !/^\d{12}$/.test(tidTime) ||
    checkGatewayTime(tidTime, now, state.rules.ediDateToleranceMs) ||
    !/^[0-9A-Za-z]{4}$/.test(tid.slice(26))
  ) {
    return answer(form, KEYIN_DECLINES.badTid);
  }
  const amt = field(form, 'Amt');
  const amount = parseAmount(amt);
  if (!amount)
    return answer(form, { code: KEYIN_DECLINES.badField.code, message: `${KEYIN_DECLINES.badField.message} (Amt)` });
  const expected = keyinSignData(mid, amt, field(form, 'EdiDate'), field(form, 'Moid'), merchant.merchantKey);
  if (!hexEquals(expected, field(form, 'SignData'))) return answer(form, KEYIN_DECLINES.badSignature);

  // A TID the gateway has seen before is refused; the first call's booking stays as it was.
  const seen = keyinState(state).seen;
  const calls = seen.get(tid);
  if (calls !== undefined) {
    seen.set(tid, calls + 1);
    const entry = state.ledger.get(tid);
    if (entry) entry.approvalCalls += 1;
    return answer(form, KEYIN_DECLINES.duplicateTid);
  }
  seen.set(tid, 1);
  // An order number the merchant was paid under before, by the window, key-in or billing, is
  // refused as at approval: the gateway charges one Moid once.
  if (approvedMoidHolder(state, mid, field(form, 'Moid'), tid)) return answer(form, KEYIN_DECLINES.duplicateMoid);

  // EncData must be the spec's plaintext: all four keys in order, empty where not given.
  let enc: Record<string, string> | undefined;
  try {
    enc = parseKeyinEncPlaintext(decryptEncData(field(form, 'EncData'), merchant.merchantKey));
  } catch {
    enc = undefined;
  }
  if (!enc) return answer(form, KEYIN_DECLINES.badEncData);
  // Decrypted, but a card field breaks its format: the request is wrong, not the encryption.
  const encProblem = checkFields(KEYIN_ENC_FIELDS, enc, 'euc-kr');
  if (encProblem) return badField(form, encProblem.field);
  if (merchant.keyinRequiresAuthNum && !enc.BuyerAuthNum) return answer(form, KEYIN_DECLINES.authNumRequired);
  if (merchant.keyinRequiresPassword && !enc.CardPwd) return answer(form, KEYIN_DECLINES.passwordRequired);

  const card = SANDBOX_TEST_CARDS[enc.CardNo!];
  const book = (status: 'approved' | 'declined'): void =>
    state.ledger.add({
      tid,
      mid,
      moid: field(form, 'Moid'),
      amount,
      method: 'CARD',
      status,
      source: 'keyin',
      goodsName: field(form, 'GoodsName'),
      buyerName: field(form, 'BuyerName'),
      createdAt: now,
      ...(status === 'approved' ? { approvedAt: now } : {}),
      approvalCalls: 1,
      extra: {
        cardCode: card?.cardCode ?? '',
        quota: field(form, 'CardQuota'),
        mallReserved: field(form, 'MallReserved'),
      },
    });
  if (!card) {
    book('declined');
    return answer(form, KEYIN_DECLINES.unknownCard);
  }
  const outcome = expiredAt(enc.CardExpire!.slice(0, 2), enc.CardExpire!.slice(2), now) ? 'expired' : card.outcome;
  if (outcome !== 'approved') {
    book('declined');
    return answer(form, KEYIN_DECLINES[outcome], cardFields(card, enc.CardNo!));
  }
  book('approved');
  return answer(
    form,
    { code: KEYIN_SUCCESS_CODE, message: '정상 처리되었습니다' },
    {
      ...cardFields(card, enc.CardNo!),
      AuthCode: String(randomInt(0, 100_000_000)).padStart(8, '0'),
      AuthDate: kstTimestamp12(now),
      CcPartCl: '1',
    },
  );
}

/** The badField answer naming the field (never its value). */
function badField(form: FormFields, name: string): Record<string, string> {
  return answer(form, { code: KEYIN_DECLINES.badField.code, message: `${KEYIN_DECLINES.badField.message} (${name})` });
}

/**
 * The answer: the card answer's fields (src/sandbox/keyin/card-answer.ts) plus MsgSource,
 * which a client must tolerate too.
 */
function answer(form: FormFields, result: Decline, extra: Record<string, string> = {}): Record<string, string> {
  return { ...cardAnswerFields(form, result, extra), MsgSource: 'SANDBOX' };
}
