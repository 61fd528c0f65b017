import type { PayMethod } from '../../types/payment.js';
import { type Charset, encodeText, normalizeCharset } from '../../wire/charset.js';
import { safeEquals } from '../../wire/hash.js';
import { windowSignData } from '../../wire/signatures.js';
import { checkGatewayTime } from '../gateway-time.js';
import type { SandboxState } from '../types.js';
import { METHODS, isMethod, randomAlnum } from './util.js';
import { LAYER_WINDOW_RULES, WINDOW_RULES, brokenRule } from '../request-rules.js';
import type { FieldProblem } from '../../wire/field-sizes.js';
import { parseKstTimestamp } from '../../wire/kst.js';
import { midMisshaped } from './gateway-io.js';
import { moduleSlot } from '../module-state.js';

/** One open payment window: the merchant's validated request, waiting for the buyer. */
export interface WindowSession {
  id: string;
  mid: string;
  /** Amt as the merchant sent it (plain digits) and as a number. */
  amt: string;
  amount: number;
  moid: string;
  goodsName: string;
  buyerName: string;
  buyerEmail: string;
  buyerTel: string;
  returnUrl: string;
  charset: Charset;
  /** Method the merchant preselected, if any (the first it offered). */
  payMethod?: PayMethod;
  /** Methods the window offers: those the merchant listed in PayMethod, else all four. */
  offered: readonly PayMethod[];
  /** The virtual account's deposit deadline the merchant asked for (VbankExpDate, KST), if any. */
  vbankExpiry?: { date: string; time: string };
  /** The window request's identity (MID, Moid, EdiDate, SignData): a request used once cannot open the window again. */
  requestKey: string;
  /** Opened as goPay's PC layer: the origin of the merchant page the result goes back to by message. */
  layerOrigin?: string;
  reqReserved: string;
  mallReserved: string;
}

/** A window request the sandbox refuses, naming the field (shown on the error page). */
export interface WindowProblem {
  field: string;
  message: string;
}

/** The approval module's own state (kept in `state.modules`). */
export interface ApprovalModuleState {
  sessions: Map<string, WindowSession>;
  /** Window requests a buyer authenticated with, by requestKey, and the TID they made. */
  usedRequests: Map<string, string>;
}

/** The approval module's state, created on first use. */
export function moduleState(state: SandboxState): ApprovalModuleState {
  return moduleSlot<ApprovalModuleState>(state, 'approval', () => ({ sessions: new Map(), usedRequests: new Map() }));
}

/**
 * Validates the payment window's request fields (MID known, Amt positive digits, EdiDate a KST
 * time within the tolerance of the sandbox clock, SignData = sha256(EdiDate + MID + Amt + key)
 * in lower-case hex, ReturnURL absolute http(s), then the whole window table (request-rules.ts
 * WINDOW_RULES) in bytes of the answers' charset, and a VbankExpDate not yet past) and opens a
 * session offering the methods PayMethod lists, or says which field is wrong. Values are taken
 * exactly as sent: a signed value with added white space is another value. A PC layer (`layer`)
 * may leave ReturnURL out: its result goes back into the merchant page's form.
 */
export function openSession(state: SandboxState, f: Record<string, string>, layer = false): WindowSession | WindowProblem {
  const get = (k: string): string => (Object.hasOwn(f, k) ? f[k]! : '');
  const mid = get('MID');
  // The MID's shape before the lookup, as at every endpoint (gateway-io midMisshaped).
  if (midMisshaped(f)) return { field: 'MID', message: '상점 아이디(MID) 형식이 올바르지 않습니다 (영문·숫자 9자리 + 소문자 m).' };
  const merchant = state.merchants.get(mid);
  if (!merchant) return { field: 'MID', message: '등록되지 않은 상점 아이디입니다.' };
  const amt = get('Amt');
  if (!/^\d{1,12}$/.test(amt) || Number(amt) <= 0) return { field: 'Amt', message: '결제 금액은 0보다 큰 숫자여야 합니다.' };
  const ediDate = get('EdiDate');
  const timeProblem = ediDate.length === 14 ? checkGatewayTime(ediDate, state.clock.now(), state.rules.ediDateToleranceMs) : 'format';
  if (timeProblem === 'format') return { field: 'EdiDate', message: '요청 일시는 YYYYMMDDHHMISS 14자리 한국 표준시여야 합니다.' };
  if (timeProblem === 'skew') return { field: 'EdiDate', message: '요청 일시가 게이트웨이 시각(한국 표준시)과 맞지 않습니다.' };
  // lifecycle-facts 1: the window's SignData is lower-case hex, compared exactly.
  if (!safeEquals(windowSignData(ediDate, mid, amt, merchant.merchantKey), get('SignData'))) {
    return { field: 'SignData', message: '위변조 검증 데이터가 일치하지 않습니다.' };
  }
  if (!get('Moid')) return { field: 'Moid', message: '주문번호가 없습니다.' };
  if (!get('GoodsName')) return { field: 'GoodsName', message: '상품명이 없습니다.' };
  const returnUrl = get('ReturnURL');
  if ((returnUrl !== '' || !layer) && !isAbsoluteHttpUrl(returnUrl)) return { field: 'ReturnURL', message: '결과 수신 URL은 http(s)로 시작하는 절대 주소여야 합니다.' };
  const outCharset = normalizeCharset(get('CharSet')) ?? 'euc-kr';
  for (const field of Object.keys(WINDOW_RULES)) {
    try {
      encodeText(get(field), outCharset, field);
    } catch {
      return { field, message: '선택한 문자셋으로 표현할 수 없는 문자가 있습니다.' };
    }
  }
  // lifecycle-facts 1's table, in bytes of the answers' charset: PayMethod one or several of the
  // four, BuyerTel up to 40 digits, BuyerEmail an address, VbankExpDate YYYYMMDD or YYYYMMDDHHmm.
  const broken = brokenRule(layer ? LAYER_WINDOW_RULES : WINDOW_RULES, f, outCharset);
  if (broken) return { field: broken.field, message: windowRuleMessage(broken) };
  const vbankExpiry = readVbankExpiry(get('VbankExpDate'), state.clock.now());
  if (vbankExpiry === 'invalid') return { field: 'VbankExpDate', message: '가상계좌 입금 기한은 지나지 않은 YYYYMMDD 또는 YYYYMMDDHHmm(한국 표준시)이어야 합니다.' };
  const offered = get('PayMethod') ? [...new Set(get('PayMethod').split(',').filter(isMethod))] : (Object.keys(METHODS) as PayMethod[]);
  const session: WindowSession = {
    id: randomAlnum(24),
    mid, amt, amount: Number(amt),
    moid: get('Moid'), goodsName: get('GoodsName'), buyerName: get('BuyerName'),
    buyerEmail: get('BuyerEmail'), buyerTel: get('BuyerTel'), returnUrl, charset: outCharset,
    ...(get('PayMethod') ? { payMethod: offered[0]! } : {}),
    offered,
    ...(vbankExpiry ? { vbankExpiry } : {}),
    requestKey: windowRequestKey(f),
    reqReserved: get('ReqReserved'), mallReserved: get('MallReserved'),
  };
  moduleState(state).sessions.set(session.id, session);
  return session;
}

/** True when `text` is an absolute http: or https: URL. */
export function isAbsoluteHttpUrl(text: string): boolean {
  try {
    const u = new URL(text);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.host !== '';
  } catch {
    return false;
  }
}

/** The Korean text of a broken window rule, naming the rule (the page names the field). */
function windowRuleMessage(p: FieldProblem): string {
  if (p.rule === 'required') return '필수 항목이 없습니다.';
  if (p.rule === 'too-long') return `최대 길이를 넘었습니다 (${p.message}).`;
  return '형식이 올바르지 않습니다.';
}

/**
 * The deposit deadline of VbankExpDate (lifecycle-facts 1: YYYYMMDD or YYYYMMDDHHmm, KST):
 * a date alone lasts to 23:59:59 of that day. A time that is no calendar time, or one already
 * past on the sandbox clock, is 'invalid'; no value is undefined (the sandbox then allows 7 days).
 */
export function readVbankExpiry(text: string, now: Date): { date: string; time: string } | 'invalid' | undefined {
  if (text === '') return undefined;
  const time = text.length === 8 ? '235959' : `${text.slice(8, 12)}00`;
  const at = parseKstTimestamp(text.slice(0, 8) + time);
  if (!at || at.getTime() < now.getTime()) return 'invalid';
  return { date: text.slice(0, 8), time };
}

/** A window request's identity: the signed values that make it one request (MID, Moid, Amt, EdiDate, SignData). */
export function windowRequestKey(f: Record<string, string>): string {
  return ['MID', 'Moid', 'Amt', 'EdiDate', 'SignData'].map((k) => (Object.hasOwn(f, k) ? f[k]! : '')).join('\u0000');
}
