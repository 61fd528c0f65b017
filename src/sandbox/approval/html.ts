import { encodeText } from '../../wire/charset.js';
import type { SandboxResponse } from '../types.js';
import type { AuthCompletion } from './auth-return.js';
import type { WindowProblem, WindowSession } from './session.js';
import { METHODS, escapeHtml, formatWon } from './util.js';

const STYLE = `body{font-family:sans-serif;max-width:32rem;margin:2rem auto;padding:0 1rem;color:#222}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.3rem;border-bottom:1px solid #ddd}
fieldset{margin:1rem 0}button{padding:.5rem 1.5rem;margin-right:.5rem}.error{color:#b00}`;

function page(title: string, body: string, charset: string): string {
  return `<!DOCTYPE html>\n<html lang="ko"><head><meta charset="${charset}"><title>${escapeHtml(title)}</title>` +
    `<style>${STYLE}</style></head><body>${body}</body></html>\n`;
}

const HTML_UTF8 = { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' };

/**
 * The payment window (UTF-8): the order, the four methods (radio `PayMethod`, ids
 * `#method-CARD` ...), the cash-receipt choice for BANK/VBANK and the buttons `#approve`
 * (결제하기), `#decline` (승인 거절 시험: authenticates, then the approval is refused) and
 * `#cancel` (취소), posting to /window/confirm with the session id.
 */
export function renderWindowPage(s: WindowSession, notice?: string): SandboxResponse {
  const selected = s.payMethod ?? 'CARD';
  const methods = Object.entries(METHODS).map(([m, { label }]) =>
    `<label><input type="radio" name="PayMethod" id="method-${m}" value="${m}"${m === selected ? ' checked' : ''}> ${label}</label><br>`).join('\n');
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
    .map(([k, v]) => `<input type="hidden" name="${escapeHtml(k)}" value="${escapeHtml(v)}">`).join('\n');
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
  return encodeText(page('시스템 오류', '<h1>시스템 점검 중입니다</h1><p>잠시 후 다시 시도해 주십시오.</p>', 'euc-kr'), 'euc-kr');
}
