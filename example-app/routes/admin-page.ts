/**
 * What every back-office page shares: the page frame with the back-office navigation and the
 * logout button, notices, date helpers and the form-value helpers that let a form come back
 * with what the operator typed after an error.
 */
import type { Request, Response } from 'express';
import { csrfInput } from '../admin-auth.js';
import { particleFor } from '../korean.js';
import { html, kstDate, navLinks, sendPage, type NavLink, type SafeHtml } from '../views.js';

/** Today in KST as YYYYMMDD (gateway dates are KST whatever TZ says). */
export const kstToday = (now: Date): string =>
  new Date(now.getTime() + 9 * 3_600_000).toISOString().slice(0, 10).replace(/-/g, '');
/** 20261123 → 2026년 11월 23일 (월): the buyer pages' Korean date format. */
export const fmtDate = (d: string): string => kstDate(d);

/** A real calendar date YYYYMMDD (20261131 is not). */
export function isDate8(d: unknown): d is string {
  if (typeof d !== 'string' || !/^\d{8}$/.test(d)) return false;
  const y = Number(d.slice(0, 4));
  const m = Number(d.slice(4, 6));
  const day = Number(d.slice(6));
  const t = new Date(Date.UTC(y, m - 1, day));
  return t.getUTCFullYear() === y && t.getUTCMonth() === m - 1 && t.getUTCDate() === day;
}

/**
 * The `?date=` of a query page: today when absent, the date when valid, and otherwise
 * today plus a message saying the given one was invalid (never silently today).
 */
export function queryDate(value: unknown, today: string): { date: string; error?: string } {
  if (value === undefined || value === '') return { date: today };
  if (isDate8(value)) return { date: value };
  const given = String(value);
  return {
    date: today,
    error: `조회일 "${given}"${particleFor(given, '은/는')} 올바른 날짜(YYYYMMDD)가 아닙니다. 오늘(${fmtDate(today)}) 기준으로 보여 드립니다.`,
  };
}

/** A trimmed string field of a parsed form. */
export const field = (body: unknown, k: string): string => {
  const v = (body as Record<string, unknown> | undefined)?.[k];
  return typeof v === 'string' ? v.trim() : '';
};

/** An error notice (escaped). */
export const errorNotice = (message: string | undefined, id = 'admin-error'): SafeHtml | false =>
  message !== undefined && html`<p id="${id}" class="card status-error" role="alert">${message}</p>`;

/** An information notice (escaped): something to know, not a failure (e.g. results not out yet). */
export const infoNotice = (message: string, id: string): SafeHtml =>
  html`<p id="${id}" class="card notice-info" role="status">${message}</p>`;

/** A success notice (escaped). */
export const okNotice = (message: string | undefined): SafeHtml | false =>
  message !== undefined && html`<p id="admin-ok" class="card status-approved" role="status">${message}</p>`;

/**
 * Every back-office page, in the navigation's order: a new page is one more line here, and
 * the browser tests walk this list (every page reachable from every other).
 */
export const ADMIN_NAV: readonly NavLink[] = [
  { href: '/admin', label: '잔액', id: 'admin-nav-balance' },
  { href: '/admin/orders', label: '주문 관리', id: 'admin-nav-orders' },
  { href: '/admin/billing', label: '정기구독', id: 'admin-nav-billing' },
  { href: '/admin/billing/receipts', label: '현금영수증 발급', id: 'admin-nav-receipts' },
  { href: '/admin/sub-merchants', label: '서브몰', id: 'admin-nav-sub-merchants' },
  { href: '/admin/payouts', label: '지급', id: 'admin-nav-payouts' },
  { href: '/admin/recon', label: '현금영수증 대사', id: 'admin-nav-recon' },
  { href: '/admin/settlement', label: '결제 정산', id: 'admin-nav-settlement' },
];

/** Renders a back-office page: title, navigation (the current page marked) with logout, body. */
export function adminPage(req: Request, res: Response, status: number, title: string, body: SafeHtml): void {
  sendPage(
    res,
    status,
    title,
    html`<h1>${title}</h1>
<nav class="card subnav" id="admin-nav">${navLinks(ADMIN_NAV, req.originalUrl)}
<form method="post" action="/admin/logout" class="inline">${csrfInput(req)}<button type="submit" class="secondary" id="logout">로그아웃</button></form></nav>
${body}`,
    // The back office's tables are wide: its pages use the laptop's full width.
    { wide: true },
  );
}
