import { encodeText } from '../../wire/charset.js';
import type { SandboxResponse } from '../types.js';
import type { AuthCompletion } from './auth-return.js';
import type { WindowProblem, WindowSession } from './session.js';
import { METHODS, escapeHtml, formatWon } from './util.js';

// Korean headings break between words only (keep-all), never inside one such as 결제창. Every
// button and payment-method label is at least 44 px tall, a thumb's size on a phone.
const STYLE = `body{font-family:sans-serif;max-width:32rem;margin:2rem auto;padding:0 1rem;color:#222}
h1{font-size:1.6rem;line-height:1.3;word-break:keep-all;overflow-wrap:anywhere}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.3rem;border-bottom:1px solid #ddd}
fieldset{margin:1rem 0}button{padding:.5rem 1.5rem;margin:0 .5rem .5rem 0;min-height:2.75rem}.error{color:#b00}
#methods label{display:inline-flex;align-items:center;gap:.5rem;min-height:2.75rem}#methods input{width:1.25rem;height:1.25rem;margin:0}`;

/**
 * The window's icon, inline: a browser asks for /favicon.ico when a page names none, and
 * every window would log a 404 for it.
 */
const ICON = `data:image/svg+xml,${encodeURIComponent('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#e4002b"/><text x="16" y="23" font-size="19" font-weight="700" text-anchor="middle" fill="#fff" font-family="sans-serif">S</text></svg>')}`;

function page(title: string, body: string, charset: string): string {
  // The viewport tag makes a phone lay the window out at its own width, not at 980 px.
  return (
    `<!DOCTYPE html>\n<html lang="ko"><head><meta charset="${charset}">` +
    `<meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title>` +
    `<link rel="icon" href="${ICON}"><style>${STYLE}</style></head><body>${body}</body></html>\n`
  );
}

const HTML_UTF8 = { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' };

/**
 * The payment window (UTF-8): the order, the methods the request offered (radio `PayMethod`, ids
 * `#method-CARD` ...), the cash-receipt choice for BANK/VBANK and the buttons `#approve`
 * (결제하기), `#decline` (승인 거절 시험: authenticates, then the approval is refused) and
 * `#cancel` (취소), posting to /window/confirm with the session id.
 */
export function renderWindowPage(s: WindowSession, notice?: string): SandboxResponse {
  const selected = s.payMethod ?? s.offered[0] ?? 'CARD';
  const methods = s.offered
    .map(
      (m) =>
        `<label><input type="radio" name="PayMethod" id="method-${m}" value="${m}"${m === selected ? ' checked' : ''}> ${METHODS[m].label}</label><br>`,
    )
    .join('\n');
  const body = `<h1>NICEPAY 샌드박스 결제창</h1>
${notice ? `<p class="error" id="notice">${escapeHtml(notice)}</p>` : ''}
<table id="order">
<tr><th>상품명</th><td id="goods-name">${escapeHtml(s.goodsName)}</td></tr>
<tr><th>결제 금액</th><td id="amount">${formatWon(s.amount)}</td></tr>
<tr><th>주문번호</th><td id="moid">${escapeHtml(s.moid)}</td></tr>
<tr><th>구매자</th><td id="buyer-name">${escapeHtml(s.buyerName)}</td></tr>
<tr><th>상점 아이디</th><td id="mid">${escapeHtml(s.mid)}</td></tr>
</table>
<form id="window-form" method="post" action="/window/confirm" accept-charset="utf-8">
<input type="hidden" name="SessionId" value="${escapeHtml(s.id)}">
<fieldset id="methods"><legend>결제수단 선택</legend>
${methods}
</fieldset>
<fieldset id="cash-receipt"><legend>현금영수증 (계좌이체·가상계좌)</legend>
<label><select name="RcptType" id="rcpt-type">
<option value="">발급 안 함</option>
<option value="income-deduction">소득공제용</option>
<option value="expense-proof">지출증빙용</option>
</select></label><br>
<label>발급 번호 <input type="text" name="RcptIdentity" id="rcpt-identity" maxlength="20" inputmode="numeric"></label>
</fieldset>
<button type="submit" name="Action" value="approve" id="approve">결제하기</button>
<button type="submit" name="Action" value="decline" id="decline">승인 거절 시험</button>
<button type="submit" name="Action" value="cancel" id="cancel">취소</button>
</form>`;
  return { status: 200, headers: HTML_UTF8, body: Buffer.from(page('결제창', body, 'utf-8'), 'utf8') };
}

/**
 * The page of a window request that was already used (the buyer pressed Back after the result
 * and the browser posted the request again): no buttons, only what became of the order. A paid
 * order says so (#already-paid); otherwise the request is spent (#request-used). HTTP 409.
 */
export function renderUsedRequestPage(paid: boolean): SandboxResponse {
  const body = paid
    ? `<h1>이미 결제가 완료된 주문입니다</h1>\n<p id="already-paid">이 주문은 결제가 끝났습니다. 다시 결제하지 않아도 됩니다. 상점 화면에서 주문 내역을 확인하세요.</p>`
    : `<h1>이미 사용된 결제 요청입니다</h1>\n<p id="request-used">이 결제 요청으로는 결제창을 다시 열 수 없습니다. 상점에서 결제를 다시 시작하세요.</p>`;
  return { status: 409, headers: HTML_UTF8, body: Buffer.from(page('결제창', body, 'utf-8'), 'utf8') };
}

/**
 * The PC layer's answer to the buyer's choice: no navigation, a message to the merchant's page
 * (only to the origin that opened the layer), which nicepay-pgweb.js turns into the form fields
 * and nicepaySubmit(), or into nicepayClose() when `c` is undefined (the buyer pressed 취소).
 */
export function renderLayerMessage(origin: string, c: AuthCompletion | undefined): SandboxResponse {
  const message = c ? { nicepay: 'auth', fields: c.fields } : { nicepay: 'close' };
  // JSON in a script element: '<' is escaped so no value can end the element.
  const json = JSON.stringify(message).replace(/</g, '\\u003c');
  const body = `<p id="layer-done">${c ? '인증이 완료되었습니다. 상점으로 돌아갑니다...' : '결제창을 닫습니다...'}</p>
<script>parent.postMessage(${json}, ${JSON.stringify(origin).replace(/</g, '\\u003c')});</script>`;
  return { status: 200, headers: HTML_UTF8, body: Buffer.from(page('결제창', body, 'utf-8'), 'utf8') };
}

/** The window's error page (HTTP 400, UTF-8), naming the field that is wrong. */
export function renderErrorPage(problem: WindowProblem, status = 400): SandboxResponse {
  const body = `<h1>결제 요청 오류</h1>
<p class="error" id="error">잘못된 요청입니다: <strong id="error-field">${escapeHtml(problem.field)}</strong> 항목을 확인하세요.</p>
<p id="error-message">${escapeHtml(problem.message)}</p>`;
  return { status, headers: HTML_UTF8, body: Buffer.from(page('결제 요청 오류', body, 'utf-8'), 'utf8') };
}

/**
 * The page that makes the browser POST the auth return to the ReturnURL: a form of hidden
 * fields submitted by an inline script. For EUC-KR the page itself is CP949 bytes served as
 * `text/html; charset=euc-kr` with `accept-charset="euc-kr"`, so the browser sends EUC-KR.
 */
export function renderAutoPost(c: AuthCompletion): SandboxResponse {
  const inputs = Object.entries(c.fields)
    .map(([k, v]) => `<input type="hidden" name="${escapeHtml(k)}" value="${escapeHtml(v)}">`)
    .join('\n');
  const body = `<p>결제 결과를 상점으로 전송하고 있습니다...</p>
<form id="return-form" method="post" action="${escapeHtml(c.returnUrl)}" accept-charset="${c.charset}">
${inputs}
<noscript><button type="submit" id="return-submit">상점으로 돌아가기</button></noscript>
</form>
<script>document.getElementById('return-form').submit();</script>`;
  return {
    status: 200,
    headers: { 'content-type': `text/html; charset=${c.charset}`, 'cache-control': 'no-store' },
    body: encodeText(page('결제 결과 전송', body, c.charset), c.charset),
  };
}

/** The 200 HTML error page of the `html` fault (what a gateway behind a proxy sometimes sends). */
export function faultHtmlPage(): Buffer {
  return encodeText(
    page('시스템 오류', '<h1>시스템 점검 중입니다</h1><p>잠시 후 다시 시도해 주십시오.</p>', 'euc-kr'),
    'euc-kr',
  );
}
