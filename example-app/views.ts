/**
 * Tiny HTML templating for the example shop, no template engine: an `html` tagged template
 * escapes every interpolated value unless it is already `SafeHtml` (a nested `html` or
 * `raw()`), so buyer- and gateway-supplied text can never inject markup. Pages are UTF-8;
 * only the window form's own submission is EUC-KR (accept-charset on the form).
 */
import type { Response } from 'express';
import type { PayMethod } from '../src/index.js';

/** Markup that is already safe and is inserted as is. */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

/** What an `html` template takes: text (escaped), numbers, `SafeHtml`, lists of them; `false`/`null`/`undefined` render nothing. */
export type Value = string | number | boolean | null | undefined | SafeHtml | readonly Value[];

const ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Escapes text for an HTML text node or a quoted attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

/** Marks trusted markup (constants only; never buyer or gateway text). */
export function raw(markup: string): SafeHtml {
  return new SafeHtml(markup);
}

function render(v: Value): string {
  if (v === null || v === undefined || v === false) return '';
  if (v instanceof SafeHtml) return v.value;
  if (Array.isArray(v)) return v.map(render).join('');
  return escapeHtml(String(v));
}

/** `html\`<p>${text}</p>\``: escapes every value; `false`/`null`/`undefined` render nothing. */
export function html(strings: TemplateStringsArray, ...values: Value[]): SafeHtml {
  let out = strings[0]!;
  values.forEach((v, i) => {
    out += render(v) + strings[i + 1]!;
  });
  return new SafeHtml(out);
}

const wonFormat = new Intl.NumberFormat('ko-KR');

/** 12000 → "12,000원". */
export function won(amount: number): string {
  return `${wonFormat.format(amount)}원`;
}

// Gateway time is KST (UTC+9, no DST); format in Asia/Seoul whatever the server's TZ is.
const kstFormat = new Intl.DateTimeFormat('ko-KR', {
  timeZone: 'Asia/Seoul',
  year: 'numeric',
  month: 'numeric',
  day: 'numeric',
  weekday: 'short',
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
});

/** A Date as Korean wall-clock time, e.g. "2025년 1월 9일 (목) 23:59". */
export function kstDateTime(date: Date): string {
  const part = Object.fromEntries(kstFormat.formatToParts(date).map((p) => [p.type, p.value]));
  return `${part.year}년 ${part.month}월 ${part.day}일 (${part.weekday}) ${part.hour}:${part.minute}`;
}

const kstDateFormat = new Intl.DateTimeFormat('ko-KR', {
  timeZone: 'UTC',
  year: 'numeric',
  month: 'numeric',
  day: 'numeric',
  weekday: 'short',
});

/**
 * A KST calendar date `YYYYMMDD` (payout and reconciliation dates) in the same Korean format
 * as {@link kstDateTime}, e.g. "2025년 1월 9일 (목)"; anything else is returned as it is.
 */
export function kstDate(yyyymmdd: string): string {
  const m = /^(\d{4})(\d{2})(\d{2})$/.exec(yyyymmdd);
  if (!m) return yyyymmdd;
  // The date is already KST: read it as a UTC calendar day so no offset moves it.
  const day = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  if (day.getUTCDate() !== Number(m[3])) return yyyymmdd;
  const part = Object.fromEntries(kstDateFormat.formatToParts(day).map((p) => [p.type, p.value]));
  return `${part.year}년 ${part.month}월 ${part.day}일 (${part.weekday})`;
}

/** A bank `<select>` (code values, names shown), with `value` selected and a prompt when none is. */
export function bankSelect(
  name: string,
  id: string,
  value: string | undefined,
  banks: ReadonlyArray<readonly [string, string]>,
): SafeHtml {
  return html`<select name="${name}" id="${id}" required><option value=""${value ? '' : html` selected`}>은행 선택</option>
${banks.map(([code, bank]) => html`<option value="${code}"${code === value ? html` selected` : ''}>${bank} (${code})</option>`)}</select>`;
}

/** The shop's icon (a white N on a blue rounded square), served at /favicon.svg and /favicon.ico. */
export const FAVICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#1f6feb"/>' +
  '<text x="16" y="23" font-size="19" font-weight="700" text-anchor="middle" fill="#fff" font-family="sans-serif">N</text></svg>';

/** Pay method → Korean label. */
export const METHOD_LABEL: Readonly<Record<PayMethod, string>> = {
  CARD: '신용카드',
  BANK: '계좌이체',
  VBANK: '가상계좌',
  CELLPHONE: '휴대폰',
};

// Layout rules: every page fits 1,280 px, 1,100 px and 375 px without sideways scrolling of the
// page; at 1,280 px every table fits its frame whole (the back office's pages, body.wide, use
// the full width), narrower ones scroll inside .table-wrap, and on a phone tables become
// labelled cards (data-table.ts); header, status and amount cells never break one syllable per
// line; identifiers (order numbers, TIDs, sequence numbers, test card numbers) never break
// inside, a TID or order number in a table only between its parts (.id-part); a row of
// buttons is a div.actions, so a table's actions cell stays a table cell; buttons side by side
// keep a gap, and boxes stacked one above the other never touch. On a phone every link, button
// and radio label is at least 44 px tall (a link alone on its line is an a.line-link; a link
// inside a sentence is exempt).
const STYLE = `
:root{--accent:#1f6feb;--muted:#667085;--ok:#0a7a43;--warn:#b54708;--bad:#b42318}
*{box-sizing:border-box}
body{font-family:"Apple SD Gothic Neo","Malgun Gothic","Noto Sans KR","NanumGothic",system-ui,sans-serif;margin:0;background:#f6f7f9;color:#1d2939;line-height:1.6;overflow-wrap:anywhere;word-break:keep-all}
header{background:#fff;border-bottom:1px solid #e4e7ec}
header .wrap{display:flex;flex-wrap:wrap;align-items:center;gap:.25rem 1.5rem}
header a{color:inherit;text-decoration:none}
header .brand{font-weight:700;font-size:1.15rem}
nav{display:flex;flex-wrap:wrap;gap:.25rem 1rem;align-items:center}
nav a{color:var(--muted);white-space:nowrap}
nav a[aria-current=page]{color:var(--accent);font-weight:700}
.wrap{max-width:64rem;margin:0 auto;padding:1rem 1.25rem}
body.wide .wrap{max-width:100rem}
.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(14rem,1fr));gap:1rem;padding:0;list-style:none}
.card{background:#fff;border:1px solid #e4e7ec;border-radius:.75rem;padding:1rem 1.25rem;margin:0 0 1rem}
.price{font-size:1.2rem;font-weight:700}
.muted{color:var(--muted);font-size:.9rem}
button,.button{background:var(--accent);color:#fff;border:1px solid var(--accent);border-radius:.5rem;padding:.55rem 1.2rem;font-size:1rem;line-height:1.4;cursor:pointer;text-decoration:none;display:inline-block;white-space:nowrap;font-family:inherit}
button.secondary,.button.secondary{background:#fff;color:var(--accent)}
div.actions{display:flex;flex-wrap:wrap;gap:.75rem;align-items:center;margin:.75rem 0}
form.inline{display:inline;margin:0}
.subnav{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center}
.subnav form{margin-left:auto}
label{display:block;margin:.4rem 0}
input[type=text],input[type=email],input[type=tel],input[type=password],select{padding:.4rem;border:1px solid #d0d5dd;border-radius:.4rem;width:100%;max-width:20rem;font:inherit}
.row{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center;margin:0 0 1rem}.row input{max-width:12rem}
.table-wrap{overflow-x:auto;max-width:100%;margin:0 0 1rem;border:1px solid #e4e7ec;border-radius:.5rem;background:#fff}
table{border-collapse:collapse;width:100%;background:#fff;overflow-wrap:normal}
th,td{text-align:left;padding:.5rem;border-bottom:1px solid #e4e7ec;font-size:.95rem;vertical-align:top}
th,td.status,td.method,td.amount,td.date{white-space:nowrap}
td{min-width:3rem}td.goods,td.text{min-width:6rem}td.actions{white-space:nowrap}
td.actions form.inline+form.inline{margin-left:.5rem}
dl{display:grid;grid-template-columns:minmax(5rem,9rem) 1fr;gap:.3rem 1rem}dt{color:var(--muted)}dd{margin:0;min-width:0}
.status-approved,.status-paid,.tone-ok{color:var(--ok)}.status-awaiting-deposit,.status-pending,.status-refund-pending,.status-partial-refund-pending,.tone-wait{color:var(--warn)}
.status-declined,.status-auth-failed,.status-error,.status-cancelled,.status-window-left,.status-refunded,.status-partially-refunded,.tone-bad{color:var(--bad)}
.notice-info{color:var(--muted)}
.moid,.tid,.id,code,.card-number,#card-number,#vbank-account{white-space:nowrap;overflow-wrap:normal;word-break:normal;font-variant-numeric:tabular-nums}
.id-parts{white-space:normal}.id-part{white-space:nowrap}
.date{white-space:nowrap}
.field-error{color:var(--bad);font-size:.9rem;margin:.1rem 0 0}
input[aria-invalid=true]{border-color:var(--bad);outline:1px solid var(--bad)}
.buyer-first{display:grid;grid-template-columns:repeat(auto-fill,minmax(14rem,1fr));gap:0 1rem}
.buyer-first legend{grid-column:1/-1}
@media (max-width:40rem){
.wrap{padding:.75rem}
header a,nav a,.table-wrap td a,a.line-link{display:inline-flex;align-items:center;min-height:2.75rem}
button,.button{padding-top:.65rem;padding-bottom:.65rem}
.card{padding:.85rem 1rem}
h1{font-size:1.6rem;line-height:1.35}
dl{grid-template-columns:auto 1fr;gap:.3rem .75rem}dt{white-space:nowrap}
dd.tid,dd.moid{grid-column:1/-1;margin-top:-.3rem}
.table-wrap{overflow-x:visible;border:0;background:transparent}
.table-wrap table,.table-wrap tbody{display:block;background:transparent}
.table-wrap thead{display:none}
.table-wrap tr{display:block;background:#fff;border:1px solid #e4e7ec;border-radius:.6rem;padding:.5rem .75rem;margin:0 0 .6rem}
.table-wrap td{display:flex;flex-wrap:wrap;justify-content:space-between;align-items:baseline;gap:0 .75rem;border:0;padding:.15rem 0;min-width:0;text-align:right}
.table-wrap td[data-label]::before{content:attr(data-label);color:var(--muted);font-size:.85rem;white-space:nowrap;text-align:left}
.table-wrap td.actions{justify-content:flex-start;gap:.5rem;padding-top:.4rem}
.table-wrap td.actions::before{display:none}
.table-wrap td.actions form.inline+form.inline{margin-left:0}
.table-wrap td:empty{display:none}
.table-wrap td.goods,.table-wrap td.text{min-width:0}
}
`;

/** One link of a navigation bar: where it goes, its label, its element id. */
export interface NavLink {
  href: string;
  label: string;
  id: string;
}

/** The buyer's navigation: every page a buyer can reach. */
export const BUYER_NAV: readonly NavLink[] = [
  { href: '/', label: '상품', id: 'nav-products' },
  { href: '/keyin', label: '카드 직접 결제', id: 'nav-keyin' },
  { href: '/subscription', label: '정기구독', id: 'nav-subscription' },
  { href: '/orders', label: '주문 내역', id: 'nav-orders' },
  { href: '/admin', label: '관리자', id: 'nav-admin' },
];

/**
 * The links of a navigation bar; the one whose path is the longest prefix of `current` is
 * marked `aria-current="page"` (`/` only on `/` itself).
 */
export function navLinks(links: readonly NavLink[], current: string): SafeHtml {
  const path = current.split('?')[0]!;
  const matches = (href: string): boolean => path === href || (href !== '/' && path.startsWith(`${href}/`));
  const best = links.filter((l) => matches(l.href)).sort((a, b) => b.href.length - a.href.length)[0];
  return html`${links.map((l) => html`<a href="${l.href}" id="${l.id}"${l === best ? html` aria-current="page"` : ''}>${l.label}</a>`)}`;
}

/** How a page is laid out: `wide` lets it use the full width of a laptop (the back office's tables). */
export interface PageOptions {
  wide?: boolean;
}

/**
 * The page shell: header with navigation, main content, footer. `path` marks the current page
 * in the navigation.
 */
export function layout(title: string, body: SafeHtml, path = '', options: PageOptions = {}): string {
  return `<!DOCTYPE html>\n${
    html`<html lang="ko"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>${title} · 니스몰</title><link rel="icon" href="/favicon.svg" type="image/svg+xml"><style>${raw(STYLE)}</style></head>
<body${options.wide ? html` class="wide"` : ''}><header><div class="wrap"><a class="brand" href="/">니스몰</a>
<nav id="site-nav">${navLinks(BUYER_NAV, path)}</nav></div></header>
<main class="wrap">${body}</main>
<footer class="wrap muted">express-nicepay 예제 상점 · 실제 결제가 이루어지지 않습니다.</footer>
</body></html>`.value
  }\n`;
}

/** Sends a UTF-8 page; pages carry order data, so nothing is cached. */
export function sendPage(res: Response, status: number, title: string, body: SafeHtml, options?: PageOptions): void {
  res
    .status(status)
    .set('cache-control', 'no-store')
    .type('html')
    .send(layout(title, body, res.req.originalUrl, options));
}
