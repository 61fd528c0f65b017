import { type Charset, WireFormatError } from '../../wire/charset.js';
import { decodeForm } from '../../wire/form-codec.js';
import type { SandboxRequest, SandboxResponse, SandboxState } from '../types.js';
import { type BuyerChoice, completeAuthentication } from './auth-return.js';
import {
  renderAutoPost,
  renderErrorPage,
  renderLayerMessage,
  renderUsedRequestPage,
  renderWindowPage,
} from './html.js';
import { moduleState, openSession } from './session.js';
import { headerCharset, isMethod } from './util.js';

/**
 * Decodes form bytes in `charset`, or returns the error page naming what broke. A
 * Content-Type that declares another charset is refused: the bytes are read one way only.
 */
function readForm(
  req: SandboxRequest,
  bytes: Buffer,
  charset: Charset,
): { fields: Record<string, string> } | { error: SandboxResponse } {
  const declared = /;\s*charset\s*=/i.test(req.headers['content-type'] ?? '');
  if (declared && headerCharset(req.headers) !== charset) {
    return { error: renderErrorPage({ field: 'Content-Type', message: `요청은 ${charset} 폼이어야 합니다.` }) };
  }
  try {
    return { fields: decodeForm(bytes, charset) };
  } catch (err) {
    if (!(err instanceof WireFormatError)) throw err;
    return {
      error: renderErrorPage({
        field: err.field ?? '요청 본문',
        message: '요청을 해석할 수 없습니다 (문자셋 또는 형식 오류).',
      }),
    };
  }
}

/**
 * Validates the window request and shows the window, or the 400 error page. A request a buyer
 * already authenticated with (Back after the result re-posts it) opens nothing: the page says
 * the order is paid, or that the request is spent.
 */
function show(state: SandboxState, fields: Record<string, string>, layerOrigin?: string): SandboxResponse {
  const s = openSession(state, fields, layerOrigin !== undefined);
  if (!('id' in s)) return renderErrorPage(s);
  const used = moduleState(state).usedRequests.get(s.requestKey);
  if (used !== undefined) {
    moduleState(state).sessions.delete(s.id);
    const paid = state.ledger
      .byMoid(s.mid, s.moid)
      .some((e) => e.status === 'approved' || e.status === 'awaiting-deposit');
    return renderUsedRequestPage(paid);
  }
  if (layerOrigin) s.layerOrigin = layerOrigin;
  return renderWindowPage(s);
}

/**
 * The merchant page's origin when goPay opened the window as a PC layer (`?layer=1&origin=...`),
 * else undefined (a mobile redirect or a plain form post).
 */
function layerOriginOf(req: SandboxRequest): string | undefined {
  if (req.query.get('layer') !== '1') return undefined;
  try {
    const origin = new URL(req.query.get('origin') ?? '').origin;
    return origin === 'null' ? undefined : origin;
  } catch {
    return undefined;
  }
}

/**
 * `GET /window?MID=...`: the window opened by a link. The query's escapes are EUC-KR bytes,
 * like the POST form's (decoded with the CP949 codec, never URLSearchParams).
 */
export function getWindow(req: SandboxRequest, state: SandboxState): SandboxResponse {
  const read = readForm(req, Buffer.from(req.rawQuery ?? '', 'latin1'), 'euc-kr');
  return 'error' in read ? read.error : show(state, read.fields);
}

/**
 * `POST /window`: the merchant page's form, always read as EUC-KR. The form's CharSet field
 * chooses the encoding of the answers (the auth return), not of this request
 * (lifecycle-facts 1: "CharSet | the encoding of the answers the shop wants").
 */
export function postWindow(req: SandboxRequest, state: SandboxState): SandboxResponse {
  const read = readForm(req, req.body, 'euc-kr');
  return 'error' in read ? read.error : show(state, read.fields, layerOriginOf(req));
}

/**
 * `POST /window/confirm`: the window's own form (UTF-8) with SessionId, Action
 * (approve | decline | cancel), PayMethod, RcptType and RcptIdentity. Answers the auto-post
 * page that carries the auth return to the merchant's ReturnURL; the session is single-use.
 * `decline` authenticates like `approve`, but the approval of that token is refused as an
 * issuer would refuse it (3011), so a person can try the shop's decline path by hand.
 */
export function confirmWindow(req: SandboxRequest, state: SandboxState): SandboxResponse {
  const read = readForm(req, req.body, 'utf-8');
  if ('error' in read) return read.error;
  const form = read.fields;
  const get = (k: string): string => (Object.hasOwn(form, k) ? form[k]!.trim() : '');
  const sessions = moduleState(state).sessions;
  const session = sessions.get(get('SessionId'));
  if (!session)
    return renderErrorPage({ field: 'SessionId', message: '결제창 세션이 만료되었거나 이미 사용되었습니다.' });
  const method = get('PayMethod') || session.payMethod || session.offered[0] || 'CARD';
  if (!isMethod(method) || !session.offered.includes(method))
    return { ...renderWindowPage(session, '결제수단을 선택하세요.'), status: 400 };
  const choice: BuyerChoice = { method };
  const action = get('Action');
  if (action === 'cancel') choice.cancel = true;
  else if (action === 'decline') choice.decline = true;
  else if (action && action !== 'approve')
    return { ...renderWindowPage(session, '알 수 없는 요청입니다.'), status: 400 };
  const rcptType = get('RcptType');
  if (!choice.cancel && rcptType && (method === 'BANK' || method === 'VBANK')) {
    const identity = get('RcptIdentity').replace(/-/g, '');
    if (rcptType !== 'income-deduction' && rcptType !== 'expense-proof') {
      return { ...renderWindowPage(session, '현금영수증 종류를 확인하세요.'), status: 400 };
    }
    if (!/^\d{10,18}$/.test(identity)) {
      return {
        ...renderWindowPage(session, '현금영수증 발급 번호(휴대폰·사업자·주민번호)를 숫자로 입력하세요.'),
        status: 400,
      };
    }
    choice.cashReceipt = { type: rcptType, identity };
  }
  sessions.delete(session.id);
  // The PC layer closes on 취소 and posts nothing; the page's nicepayClose() runs instead.
  if (choice.cancel && session.layerOrigin) return renderLayerMessage(session.layerOrigin, undefined);
  const completion = completeAuthentication(state, session, choice);
  // A request the buyer authenticated with is spent: Back and re-post shows what became of it.
  if (!choice.cancel) moduleState(state).usedRequests.set(session.requestKey, completion.fields.TxTid ?? '');
  return session.layerOrigin ? renderLayerMessage(session.layerOrigin, completion) : renderAutoPost(completion);
}
