/**
 * Error pages. checkoutReturn passes what the shop must not treat as a payment result to
 * next(err) as a NicepayError (status, stable code, expose); this renders it for the buyer
 * in Korean. Codes and the library's (English, developer-facing) messages go to the log
 * only; the page shows a reference number that finds the log line. The
 * merchant key never reaches a page or a log line.
 */
import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import { randomBytes } from 'node:crypto';
import { isNicepayError, type NicepayErrorCode } from '../src/index.js';
import type { ShopContext } from './shop-context.js';
import { html, sendPage } from './views.js';

/**
 * An approval whose outcome the package is still settling: a lost answer, and an answer it
 * could not verify (a bad signature, another amount), which docs/reliability.md treats as a lost
 * one. The order may yet be paid, so the buyer is sent to the order, never back to pay.
 */
const OUTCOME_BEING_SETTLED =
  '결제 결과를 아직 확인하지 못했습니다. 자동으로 확인해 처리하며, 결제되지 않은 금액은 청구되지 않습니다. 잠시 후 주문 내역에서 확인해 주세요.';

/** What the buyer is told per error code (branch on the code, never on the message). */
const KOREAN: Partial<Record<NicepayErrorCode, string>> = {
  NICEPAY_AMOUNT_MISMATCH: '결제 금액이 주문 금액과 일치하지 않아 결제를 진행하지 않았습니다.',
  NICEPAY_SIGNATURE_MISMATCH: '결제 결과의 위변조 검증에 실패하여 결제를 진행하지 않았습니다.',
  NICEPAY_UNKNOWN_ORDER: '주문을 찾을 수 없습니다.',
  NICEPAY_UNTRUSTED_URL: '신뢰할 수 없는 결제 서버 주소가 포함되어 결제를 진행하지 않았습니다.',
  NICEPAY_BODY_TOO_LARGE: '결제 결과를 해석할 수 없습니다.',
  NICEPAY_BODY_MALFORMED: '결제 결과를 해석할 수 없습니다.',
  NICEPAY_CONTENT_TYPE_UNSUPPORTED: '결제 결과를 해석할 수 없습니다.',
  NICEPAY_CHARSET_UNSUPPORTED: '결제 결과를 해석할 수 없습니다.',
  NICEPAY_FIELD_INVALID: '결제 결과에 잘못된 항목이 있습니다.',
  NICEPAY_GATEWAY_UNREACHABLE: '결제 서버에 연결할 수 없습니다. 잠시 후 다시 시도해 주세요.',
  NICEPAY_OUTCOME_UNKNOWN: OUTCOME_BEING_SETTLED,
  NICEPAY_ANSWER_UNVERIFIED: OUTCOME_BEING_SETTLED,
  NICEPAY_ANSWER_AMOUNT_MISMATCH: OUTCOME_BEING_SETTLED,
  NICEPAY_GATEWAY_ERROR: '결제 서버가 올바르지 않은 응답을 보냈습니다.',
  NICEPAY_HOOK_FAILED: '주문을 처리하지 못해 결제를 취소했습니다. 이미 결제된 주문일 수 있습니다.',
  NICEPAY_SHUTTING_DOWN: '서버 점검 중입니다. 잠시 후 다시 시도해 주세요.',
};

/** Sends the shop's 404 page: the same for a page that does not exist and one not the buyer's. */
export function sendNotFound(res: Response): void {
  sendPage(
    res,
    404,
    '페이지를 찾을 수 없습니다',
    html`<h1 class="status-error">페이지를 찾을 수 없습니다</h1><p><a class="line-link" href="/">상품 목록으로</a></p>`,
  );
}

/**
 * Sends the 403 page of a refused form post (one from another site, or one without a valid
 * CSRF token): nothing was done, and `back` is where to start again.
 */
export function sendRefusedPost(res: Response, back: { href: string; label: string }): void {
  sendPage(
    res,
    403,
    '요청 거부',
    html`<h1 class="status-error">요청을 거부했습니다</h1>
<p id="csrf-error">이 사이트의 화면에서 보낸 요청이 아니거나 보안 토큰이 올바르지 않습니다. 아무것도 처리하지 않았습니다. 화면을 새로 연 뒤 다시 시도해 주세요.</p>
<p><a class="button" href="${back.href}">${back.label}</a></p>`,
  );
}

/** The shop's last handler: any path nothing else answered. */
export const notFound: RequestHandler = (_req, res) => sendNotFound(res);

export function errorHandler(ctx: ShopContext): ErrorRequestHandler {
  const hide = (text: string): string => text.split(ctx.merchantKey).join('[redacted]');
  return (err, _req, res, next) => {
    if (res.headersSent) return next(err);
    const known = isNicepayError(err);
    const status = known ? err.status : typeof err?.status === 'number' && err.status < 500 ? err.status : 500;
    const code: string = known ? err.code : 'INTERNAL_ERROR';
    const friendly =
      (known && KOREAN[err.code]) ||
      (status < 500 ? '요청을 처리할 수 없습니다.' : '일시적인 오류가 발생했습니다. 잠시 후 다시 시도해 주세요.');
    // A short reference the buyer can quote to support; it finds this log line.
    const ref = randomBytes(4).toString('hex').toUpperCase();
    ctx.logger[status >= 500 ? 'error' : 'warn'](
      { ref, ...(known ? err.toJSON() : { code, message: hide(String(err?.message ?? err)) }) },
      'example shop: request failed',
    );
    sendPage(
      res,
      status,
      '결제 오류',
      html`<h1 id="result-status" class="status-error" data-status="error">결제를 완료하지 못했습니다</h1>
<p id="error-message">${friendly}</p>
<p class="muted">문의하실 때 참조 번호(<strong id="error-ref">${ref}</strong>)를 알려 주세요.</p>
<div class="actions"><a class="button" href="/">상품 목록으로</a><a class="button secondary" href="/orders">주문 내역</a></div>`,
    );
  };
}
