/**
 * Back-office payouts (mounted at /admin/payouts, behind the login and CSRF guard):
 *
 *   GET  /admin/payouts?date=…        request form, payouts requested here, results of a date
 *   POST /admin/payouts               step 1: a confirmation page with the amount and the target;
 *                                     step 2 (confirm=yes): nicepay.payout.request, then 303 back
 *   POST /admin/payouts/cancel        the same two steps for nicepay.payout.cancel
 *
 * Money moves only on the confirmed second post, and each one leaves an audit line (who,
 * what, to whom, how much; never a secret). Requests made here are kept in SQLite with their
 * seq, which the cancel needs (results are only readable from 16:00, after the cut-off).
 */
import type { Router, Request, Response } from 'express';
import { shopRouter } from './router.js';
import { redirectWithNotice, takeNotice } from '../admin-notice.js';
import type { PayoutStatus } from '../../src/index.js';
import type { ShopContext } from '../shop-context.js';
import { audit, csrfInput } from '../admin-auth.js';
import { dataTable, type Column } from '../data-table.js';
import { bankName, operatorError } from '../korean.js';
import { html, won, type SafeHtml } from '../views.js';
import {
  adminPage,
  errorNotice,
  field,
  fmtDate,
  infoNotice,
  isDate8,
  kstToday,
  okNotice,
  queryDate,
} from './admin-page.js';
import type { SubMerchantRow } from './admin.js';

/** Korean labels of payout statuses. */
export const PAYOUT_STATUS_LABEL: Readonly<Record<PayoutStatus, string>> = {
  requested: '요청',
  succeeded: '지급 완료',
  failed: '지급 실패',
  retrying: '재요청 진행 중',
  deleted: '삭제',
  unknown: '알 수 없음',
};

const SCHEMA = `CREATE TABLE IF NOT EXISTS admin_payouts (
  seq TEXT NOT NULL, settlmnt_dt TEXT NOT NULL, sub_id TEXT NOT NULL, amount INTEGER NOT NULL,
  state TEXT NOT NULL DEFAULT 'requested', requested_by TEXT NOT NULL, created_at TEXT NOT NULL,
  PRIMARY KEY (settlmnt_dt, seq)
)`;
interface PayoutRow {
  seq: string;
  settlmnt_dt: string;
  sub_id: string;
  amount: number;
  state: string;
  requested_by: string;
}

interface PayoutForm {
  subId: string;
  amount: string;
  settlmntDt: string;
}

type PayoutResultItem = Awaited<ReturnType<ShopContext['nicepay']['payout']['results']>>['items'][number];

/** The gateway's payout results of a date. */
const RESULT_COLUMNS: ReadonlyArray<Column<PayoutResultItem>> = [
  { label: '순번', kind: 'id', cell: (i) => i.seq },
  { label: '서브몰', kind: 'id', cell: (i) => i.subId },
  { label: '상호', kind: 'text', cell: (i) => i.subCoNm },
  { label: '금액', kind: 'amount', cell: (i) => won(i.amount) },
  { label: '상태', kind: 'status', cell: (i) => (i.status === 'unknown' ? i.statusNm : PAYOUT_STATUS_LABEL[i.status]) },
  { label: '계좌', kind: 'id', cell: (i) => i.accntNo },
  { label: '실패 사유', kind: 'text', cell: (i) => i.errReason || '-' },
];

/** The payout pages; `subMerchants` lists the sub-merchants registered through the back office. */
export function adminPayoutRoutes(ctx: ShopContext, subMerchants: () => SubMerchantRow[]): Router {
  const { db, nicepay, logger } = ctx;
  db.sqlite.exec(SCHEMA);
  const q = {
    mine: db.sqlite.prepare<[], PayoutRow>('SELECT * FROM admin_payouts ORDER BY created_at DESC, rowid DESC LIMIT 50'),
    one: db.sqlite.prepare<[string, string], PayoutRow>(
      'SELECT * FROM admin_payouts WHERE settlmnt_dt = ? AND seq = ?',
    ),
    insert:
      db.sqlite.prepare(`INSERT OR REPLACE INTO admin_payouts (seq, settlmnt_dt, sub_id, amount, requested_by, created_at)
      VALUES (@seq, @settlmntDt, @subId, @amount, @user, @createdAt)`),
    cancelled: db.sqlite.prepare(`UPDATE admin_payouts SET state = 'cancelled' WHERE settlmnt_dt = ? AND seq = ?`),
  };
  const today = (): string => kstToday(ctx.clock());
  /**
   * The schedule rule a new payout for `settlmntDt` would break now, in the operator's words, or
   * undefined: the client's own check (its clock, its business days, the 10:30 KST cut-off).
   */
  const scheduleRefusal = (settlmntDt: string): { message: string; status: number } | undefined => {
    try {
      nicepay.payout.checkRequestDate(settlmntDt);
      return undefined;
    } catch (err) {
      const e = operatorError(err);
      if (!e) throw err;
      return e;
    }
  };
  /** The form's date: the first day from today (KST) the client would take a payout for now, a month ahead at most. */
  const firstPayoutDay = (): string => {
    for (let t = ctx.clock().getTime(), days = 0; days < 31; t += 86_400_000, days++) {
      const day = kstToday(new Date(t));
      if (!scheduleRefusal(day)) return day;
    }
    return today();
  };
  const router = shopRouter();

  async function page(
    req: Request,
    res: Response,
    status: number,
    opts: { date: string; error?: string; ok?: string; values?: Partial<PayoutForm>; dateError?: string },
  ): Promise<void> {
    const subs = subMerchants();
    const v = opts.values ?? {};
    let results: SafeHtml;
    try {
      const r = await nicepay.payout.results({ settlmntDt: opts.date });
      results = html`<p id="payout-summary">전체 ${r.totCnt}건 · 성공 ${r.succCnt}건 · 실패 ${r.failCnt}건 · 잔액 ${won(r.remainAmt)}</p>
${
  r.items.length === 0
    ? html`<p id="no-payouts" class="muted">지급 내역이 없습니다.</p>`
    : dataTable('payouts', RESULT_COLUMNS, r.items, (i) => ({ seq: i.seq, status: i.status }))
}`;
    } catch (err) {
      const e = operatorError(err);
      if (!e) throw err;
      // Results not out yet (before 16:00 KST) is the normal morning state, not a failure.
      const notYet = (err as { rule?: string }).rule === 'results-not-ready';
      results = notYet ? infoNotice(e.message, 'results-error') : html`${errorNotice(e.message, 'results-error')}`;
    }
    const mine = q.mine.all();
    const mineColumns: Array<Column<PayoutRow>> = [
      { label: '지급일', kind: 'date', cell: (p) => fmtDate(p.settlmnt_dt) },
      { label: '순번', kind: 'id', cell: (p) => p.seq },
      { label: '서브몰', kind: 'id', cell: (p) => p.sub_id },
      { label: '금액', kind: 'amount', cell: (p) => won(p.amount) },
      { label: '상태', kind: 'status', cell: (p) => (p.state === 'cancelled' ? '취소됨' : '요청') },
      {
        label: '관리',
        kind: 'actions',
        cell: (p) =>
          p.state === 'requested' &&
          html`<form method="post" action="/admin/payouts/cancel" class="inline">${csrfInput(req)}
<input type="hidden" name="settlmntDt" value="${p.settlmnt_dt}"><input type="hidden" name="seq" value="${p.seq}"><button type="submit" class="secondary" id="cancel-${p.seq}">취소</button></form>`,
      },
    ];
    adminPage(
      req,
      res,
      status,
      '서브몰 지급',
      html`${errorNotice(opts.error)}${okNotice(opts.ok)}
<form id="payout-form" class="card" method="post" action="/admin/payouts"><h2>지급 요청</h2>${csrfInput(req)}
<label>서브몰 <select name="subId" id="payout-sub-id">${subs.map((s) => html`<option value="${s.sub_id}"${s.sub_id === v.subId ? html` selected` : ''}>${s.sub_id} (${s.sub_nm})</option>`)}</select></label>
<label>금액 (원) <input type="text" name="amount" id="payout-amount" inputmode="numeric" required value="${v.amount ?? ''}"></label>
<label>지급일 (YYYYMMDD) <input type="text" name="settlmntDt" id="payout-date" value="${v.settlmntDt ?? (opts.date === today() ? firstPayoutDay() : opts.date)}" maxlength="8"></label>
<div class="actions"><button type="submit" id="payout-submit">지급 요청</button></div></form>
${mine.length > 0 && html`<h2>이 화면에서 요청한 지급</h2>${dataTable('my-payouts', mineColumns, mine, (p) => ({ seq: p.seq, state: p.state }))}`}
<h2>${fmtDate(opts.date)} 지급 결과</h2>
${errorNotice(opts.dateError, 'date-error')}
<form method="get" action="/admin/payouts" class="row" id="results-form"><label for="results-date">조회일 (YYYYMMDD)</label><input type="text" name="date" id="results-date" value="${opts.date}" maxlength="8"> <button type="submit">조회</button></form>
${results}`,
    );
  }

  /**
   * The payout balance beside a request's confirmation. Neither the gateway nor the client
   * checks it at request time; a payout the balance cannot cover fails on its date (잔액 부족),
   * so a request above it is said plainly before the operator confirms.
   */
  async function balanceNotice(amount: number): Promise<SafeHtml> {
    let remainAmt: number;
    try {
      remainAmt = (await nicepay.payout.balance()).remainAmt;
    } catch (err) {
      const e = operatorError(err);
      if (!e) throw err;
      return html`<p class="muted" id="confirm-balance">지급 가능 잔액을 확인하지 못했습니다: ${e.message}</p>`;
    }
    if (amount <= remainAmt)
      return html`<p class="muted" id="confirm-balance" data-amount="${remainAmt}">현재 지급 가능 잔액: ${won(remainAmt)}</p>`;
    return html`<p id="balance-warning" class="status-error" role="alert" data-amount="${remainAmt}">요청 금액이 현재 지급 가능 잔액(${won(remainAmt)})보다 ${won(amount - remainAmt)} 많습니다. 지급일 전까지 잔액이 채워지지 않으면 이 지급은 '잔액 부족'으로 실패합니다. 그래도 요청하려면 확인을 누르세요.</p>`;
  }

  /** The confirmation page of a money-moving action: what, to whom, how much; confirm or go back. */
  function confirmPage(
    req: Request,
    res: Response,
    action: string,
    title: string,
    summary: SafeHtml,
    hidden: Record<string, string>,
    notice: SafeHtml | false = false,
  ): void {
    adminPage(
      req,
      res,
      200,
      title,
      html`<form id="confirm-form" class="card" method="post" action="${action}">${csrfInput(req)}
<p id="confirm-summary">${summary}</p>${notice}
${Object.entries(hidden).map(([k, val]) => html`<input type="hidden" name="${k}" value="${val}">`)}
<input type="hidden" name="confirm" value="yes">
<div class="actions"><button type="submit" id="confirm-submit">확인, 실행합니다</button><a class="button secondary" href="/admin/payouts" id="confirm-back">돌아가기</a></div></form>`,
    );
  }

  router.get('/', async (req, res, next) => {
    try {
      const { date, error } = queryDate(req.query.date, today());
      const { ok } = takeNotice(req);
      await page(req, res, error ? 400 : 200, { date, ...(error ? { dateError: error } : {}), ...(ok ? { ok } : {}) });
    } catch (err) {
      next(err);
    }
  });

  router.post('/', async (req, res, next) => {
    const values: PayoutForm = {
      subId: field(req.body, 'subId'),
      amount: field(req.body, 'amount'),
      settlmntDt: field(req.body, 'settlmntDt') || today(),
    };
    const back = (status: number, error: string) =>
      page(req, res, status, { date: isDate8(values.settlmntDt) ? values.settlmntDt : today(), error, values });
    try {
      const sub = subMerchants().find((s) => s.sub_id === values.subId);
      if (!sub) return await back(400, '서브몰을 선택해 주세요.');
      if (!/^[1-9]\d{0,13}$/.test(values.amount)) return await back(400, '금액은 1원 이상의 정수(원)로 입력해 주세요.');
      if (!isDate8(values.settlmntDt)) return await back(400, '지급일은 YYYYMMDD 형식의 날짜로 입력해 주세요.');
      const amount = Number(values.amount);
      if (field(req.body, 'confirm') !== 'yes') {
        // A date the client would refuse is said on the form, before a confirmation is offered.
        const refusal = scheduleRefusal(values.settlmntDt);
        if (refusal) return await back(refusal.status, refusal.message);
        return confirmPage(
          req,
          res,
          '/admin/payouts',
          '지급 요청 확인',
          html`<strong id="confirm-target">${sub.sub_id} (${sub.sub_nm}, ${bankName(sub.bank_cd)} ${sub.accnt_no})</strong>에 <strong id="confirm-amount">${won(amount)}</strong>을 <strong>${fmtDate(values.settlmntDt)}</strong> 지급일로 요청합니다.`,
          { subId: values.subId, amount: values.amount, settlmntDt: values.settlmntDt },
          await balanceNotice(amount),
        );
      }
      try {
        const r = await nicepay.payout.request({ subId: values.subId, amount, settlmntDt: values.settlmntDt });
        // A payout settled as done without its seq (the gateway said "already requested") cannot be
        // cancelled from here: the day's results name its seq from 16:00.
        if (r.seq)
          q.insert.run({
            seq: r.seq,
            settlmntDt: r.settlmntDt,
            subId: r.subId,
            amount: r.amount,
            user: req.session.admin ?? '?',
            createdAt: new Date().toISOString(),
          });
        audit(logger, req, 'payout.request', {
          subId: r.subId,
          amount: r.amount,
          settlmntDt: r.settlmntDt,
          seq: r.seq,
        });
        redirectWithNotice(req, res, `/admin/payouts?date=${r.settlmntDt}`, {
          ok: `지급을 요청했습니다 (순번 ${r.seq}).`,
        });
      } catch (err) {
        const e = operatorError(err);
        if (!e) throw err;
        audit(logger, req, 'payout.request.refused', {
          subId: values.subId,
          amount,
          settlmntDt: values.settlmntDt,
          code: (err as { code?: string }).code,
        });
        await back(e.status, e.message);
      }
    } catch (err) {
      next(err);
    }
  });

  router.post('/cancel', async (req, res, next) => {
    try {
      const row = q.one.get(field(req.body, 'settlmntDt'), field(req.body, 'seq'));
      if (row?.state !== 'requested')
        return await page(req, res, 404, { date: today(), error: '취소할 수 있는 지급 요청이 아닙니다.' });
      if (field(req.body, 'confirm') !== 'yes') {
        return confirmPage(
          req,
          res,
          '/admin/payouts/cancel',
          '지급 취소 확인',
          html`<strong id="confirm-target">${row.sub_id}</strong>에 대한 <strong id="confirm-amount">${won(row.amount)}</strong> 지급 요청(${fmtDate(row.settlmnt_dt)}, 순번 ${row.seq})을 취소합니다.`,
          { settlmntDt: row.settlmnt_dt, seq: row.seq },
        );
      }
      try {
        await nicepay.payout.cancel({ subId: row.sub_id, settlmntDt: row.settlmnt_dt, seq: row.seq });
        q.cancelled.run(row.settlmnt_dt, row.seq);
        audit(logger, req, 'payout.cancel', {
          subId: row.sub_id,
          amount: row.amount,
          settlmntDt: row.settlmnt_dt,
          seq: row.seq,
        });
        redirectWithNotice(req, res, `/admin/payouts?date=${row.settlmnt_dt}`, {
          ok: `지급 요청(순번 ${row.seq})을 취소했습니다.`,
        });
      } catch (err) {
        const e = operatorError(err);
        if (!e) throw err;
        await page(req, res, e.status, { date: row.settlmnt_dt, error: e.message });
      }
    } catch (err) {
      next(err);
    }
  });
  return router;
}
